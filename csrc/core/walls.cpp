// Walls (walls.hpp): the grid built once, and the segment tests, decided exactly.
#include "walls.hpp"

#include <cmath>
#include <cstring>

#include "exact.hpp"
#include "kernels.hpp"

namespace soageo {
namespace {

// Shewchuk's orient2d filter on det = l - r: its sign where the doubles decide it, else 0.
inline int filter_sign(double l, double r) noexcept {
    const double det = l - r, bound = 3.3306690738754716e-16 * (std::fabs(l) + std::fabs(r));
    return det > bound ? 1 : -det > bound ? -1 : 0;
}

// The filter, then the exact expansion (orient.cpp) when it cannot decide.
inline int orient(float ax, float ay, float bx, float by, float px, float py) noexcept {
    const int sign = filter_sign((double(bx) - ax) * (double(py) - ay), (double(by) - ay) * (double(px) - ax));
    return sign ? sign : orient_exact(ax, ay, bx, by, px, py);
}

inline float fmin2(float a, float b) { return a < b ? a : b; }
inline float fmax2(float a, float b) { return a > b ? a : b; }

inline bool boxes_apart(const Seg& q, const Seg& s) noexcept {
    return fmax2(q.ax, q.bx) < fmin2(s.ax, s.bx) || fmax2(s.ax, s.bx) < fmin2(q.ax, q.bx) ||
           fmax2(q.ay, q.by) < fmin2(s.ay, s.by) || fmax2(s.ay, s.by) < fmin2(q.ay, q.by);
}

inline bool is_point(const Seg& s) noexcept { return s.ax == s.bx && s.ay == s.by; }

// A wall collinear with q, and q, as coordinates along an axis on which q moves (on their
// line, points are ordered as those coordinates).
struct Along {
    float qa, qb, sa, sb;
};
inline Along along(const Seg& q, const Seg& s) noexcept {
    if (q.ax != q.bx) return Along{q.ax, q.bx, s.ax, s.bx};
    return Along{q.ay, q.by, s.ay, s.by};
}

// How a wall meets the query segment q: which point is the first contact along q.
enum class Contact { none, start, end, point_a, point_b, crossing };

// The closed segments meet (boxes already overlap): the kind of the first contact along q.
Contact first_contact(const Seg& q, const Seg& s) noexcept {
    const bool qp = is_point(q), sp = is_point(s);
    if (qp) return (sp || orient(s.ax, s.ay, s.bx, s.by, q.ax, q.ay) == 0) ? Contact::start : Contact::none;
    if (sp) return orient(q.ax, q.ay, q.bx, q.by, s.ax, s.ay) == 0 ? Contact::point_a : Contact::none;
    const int o1 = orient(q.ax, q.ay, q.bx, q.by, s.ax, s.ay);
    const int o2 = orient(q.ax, q.ay, q.bx, q.by, s.bx, s.by);
    if (o1 == 0 && o2 == 0) {
        // Collinear with overlapping boxes: they overlap. The first point of the overlap is q's
        // start when the wall holds it, else the wall's end nearer that start.
        const Along l = along(q, s);
        if (fmin2(l.sa, l.sb) <= l.qa && l.qa <= fmax2(l.sa, l.sb)) return Contact::start;
        const bool a_first = l.qb > l.qa ? l.sa <= l.sb : l.sa >= l.sb;
        return a_first ? Contact::point_a : Contact::point_b;
    }
    if (o1 == o2) return Contact::none;
    const int o3 = orient(s.ax, s.ay, s.bx, s.by, q.ax, q.ay);
    const int o4 = orient(s.ax, s.ay, s.bx, s.by, q.bx, q.by);
    if (o3 == o4 && o3 != 0) return Contact::none;
    // One point, where the two lines cross: a named point when one of the four lies on the other.
    if (o3 == 0) return Contact::start;
    if (o1 == 0) return Contact::point_a;
    if (o2 == 0) return Contact::point_b;
    if (o4 == 0) return Contact::end;
    return Contact::crossing;
}

// u = p - a per axis, as exact expansions (2 components at most).
struct Diff2 {
    double x[2], y[2];
    int nx, ny;
};
inline Diff2 diff2(float px, float py, float ax, float ay) noexcept {
    Diff2 d;
    d.nx = exact::diff(px, ax, d.x);
    d.ny = exact::diff(py, ay, d.y);
    return d;
}

// h = u.x * v.y - u.y * v.x (cross) or u.x * v.x + u.y * v.y (dot); h has room 16.
int combine(const Diff2& u, const Diff2& v, bool cross, double* h) noexcept {
    double p[8], q[8], tmp[4];
    const int np = exact::mul(u.x, u.nx, cross ? v.y : v.x, cross ? v.ny : v.nx, p, tmp);
    const int nq = exact::mul(u.y, u.ny, cross ? v.x : v.y, cross ? v.nx : v.ny, q, tmp);
    if (cross) exact::negate(q, nq);
    return exact::sum(p, np, q, nq, h);
}

// The parameter along q of a contact of the given kind with s.
void contact_ratio(const Seg& q, const Seg& s, Contact c, exact::Ratio& r) noexcept {
    if (c == Contact::start) return exact::ratio_int(r, 0.0);
    if (c == Contact::end) return exact::ratio_int(r, 1.0);
    const Diff2 d = diff2(q.bx, q.by, q.ax, q.ay);
    if (c == Contact::crossing) {
        // t = cross(s.a - q.a, s.b - s.a) / cross(q.b - q.a, s.b - s.a)
        const Diff2 e = diff2(s.bx, s.by, s.ax, s.ay);
        r.nn = combine(diff2(s.ax, s.ay, q.ax, q.ay), e, true, r.n);
        r.nd = combine(d, e, true, r.d);
    } else {
        // A point p on q: t = dot(p - q.a, d) / dot(d, d). The same point gives the same value
        // whichever wall it ends, so walls sharing an end tie exactly.
        const bool a = c == Contact::point_a;
        r.nn = combine(diff2(a ? s.ax : s.bx, a ? s.ay : s.by, q.ax, q.ay), d, false, r.n);
        r.nd = combine(d, d, false, r.d);
    }
    exact::ratio_finish(r);
}

// A query segment with what every wall test against it would recompute: its box, and its
// start and direction in double for filter_sign.
struct Prepared {
    Seg q;
    float minx, maxx, miny, maxy;
    double ax, ay, dx, dy;
};

inline Prepared prepare(float ax, float ay, float bx, float by) noexcept {
    return Prepared{{ax, ay, bx, by}, fmin2(ax, bx), fmax2(ax, bx), fmin2(ay, by), fmax2(ay, by),
                    ax, ay, double(bx) - ax, double(by) - ay};
}

// The wall lies apart from the query's box, or strictly on one side of its line: most walls a
// ray's cells hold, rejected with a few multiplies. False means "test it".
inline bool clearly_apart(const Prepared& p, const Seg& s) noexcept {
    if (p.maxx < fmin2(s.ax, s.bx) || fmax2(s.ax, s.bx) < p.minx || p.maxy < fmin2(s.ay, s.by) || fmax2(s.ay, s.by) < p.miny)
        return true;
    const int a = filter_sign(p.dx * (double(s.ay) - p.ay), p.dy * (double(s.ax) - p.ax));
    const int b = filter_sign(p.dx * (double(s.by) - p.ay), p.dy * (double(s.bx) - p.ax));
    return a != 0 && a == b;
}

// Whether test(wall) holds for a wall in a cell the segment crosses. On a large map each cell
// costs two dependent cache misses (its start, then its walls): the cells are listed first
// and both loads prefetched for all of them, so that the misses overlap instead of queueing.
// A segment crossing more cells than the list holds walks them as it goes.
template <class Test>
bool any_wall(const Walls& w, float ax, float ay, float bx, float by, Test test) noexcept {
    constexpr uint32_t kListed = 64;
    uint32_t cells[kListed];
    uint32_t k = 0;
    bool more = false;
    walk_cells<false>(w.frame, ax, ay, bx, by, [&](uint32_t col, uint32_t row, double, double) {
        if (k == kListed) {
            more = true;
            return Walk::stop;
        }
        const uint32_t c = row * w.frame.cols + col;
        __builtin_prefetch(w.start + c);
        cells[k++] = c;
        return Walk::next;
    });
    if (!more) {
        for (uint32_t i = 0; i < k; ++i) __builtin_prefetch(w.cell_seg + w.start[cells[i]]);
        for (uint32_t i = 0; i < k; ++i)
            for (uint32_t e = w.start[cells[i]], end = w.start[cells[i] + 1]; e < end; ++e)
                if (test(w.cell_seg[e])) return true;
        return false;
    }
    bool hit = false;
    walk_cells<false>(w.frame, ax, ay, bx, by, [&](uint32_t col, uint32_t row, double, double) {
        const uint32_t c = row * w.frame.cols + col;
        for (uint32_t e = w.start[c], end = w.start[c + 1]; e < end; ++e) {
            if (test(w.cell_seg[e])) {
                hit = true;
                return Walk::stop;
            }
        }
        return Walk::next;
    });
    return hit;
}

// A contact's parameter in double and a bound on its error (infinite when the double cannot
// tell: a crossing at a grazing angle). Casts order contacts by these, and compute exact ratios
// (contact_ratio) only for two contacts whose bounds overlap, and for a winner whose bound
// is wider than the 1e-9 the result promises.
struct Approx {
    double t, err;
};

Approx approx_contact(const Prepared& p, const Seg& s, Contact c) noexcept {
    constexpr double eps = 2.220446049250313e-16;
    if (c == Contact::start) return {0, 0};
    if (c == Contact::end) return {1, 0};
    double num, den, en, ed;
    if (c == Contact::crossing) {
        const double ex = double(s.bx) - s.ax, ey = double(s.by) - s.ay;
        const double cx = double(s.ax) - p.ax, cy = double(s.ay) - p.ay;
        num = cx * ey - cy * ex;
        den = p.dx * ey - p.dy * ex;
        en = 8 * eps * (std::fabs(cx * ey) + std::fabs(cy * ex));
        ed = 8 * eps * (std::fabs(p.dx * ey) + std::fabs(p.dy * ex));
    } else {
        const bool a = c == Contact::point_a;
        const double ux = double(a ? s.ax : s.bx) - p.ax, uy = double(a ? s.ay : s.by) - p.ay;
        num = ux * p.dx + uy * p.dy;
        den = p.dx * p.dx + p.dy * p.dy;
        en = 8 * eps * (std::fabs(ux * p.dx) + std::fabs(uy * p.dy));
        ed = 8 * eps * den;
    }
    const double ad = std::fabs(den);
    if (!(ad > 2 * ed)) return {0, HUGE_VAL};
    const double t = num / den;
    return {t, 2 * ((en + std::fabs(t) * ed) / (ad - ed) + 2 * eps * std::fabs(t))};
}

struct Best {
    Seg s;
    Contact kind;
    uint32_t wall;
    Approx a;
    bool exact;  // r holds its exact ratio
    exact::Ratio r;
};

}  // namespace

bool seg_meets(const Seg& q, const Seg& s) noexcept {
    return !boxes_apart(q, s) && first_contact(q, s) != Contact::none;
}

bool seg_blocks_open(const Seg& q, const Seg& s) noexcept {
    if (is_point(q) || boxes_apart(q, s)) return false;
    if (is_point(s)) {
        if (orient(q.ax, q.ay, q.bx, q.by, s.ax, s.ay) != 0) return false;
        return !(s.ax == q.ax && s.ay == q.ay) && !(s.ax == q.bx && s.ay == q.by);
    }
    const int o1 = orient(q.ax, q.ay, q.bx, q.by, s.ax, s.ay);
    const int o2 = orient(q.ax, q.ay, q.bx, q.by, s.bx, s.by);
    if (o1 == 0 && o2 == 0) {
        // Collinear overlap [lo, hi]: more than one point blocks, and so does a single point
        // other than q's ends.
        const Along l = along(q, s);
        const float lo = fmax2(fmin2(l.qa, l.qb), fmin2(l.sa, l.sb)), hi = fmin2(fmax2(l.qa, l.qb), fmax2(l.sa, l.sb));
        return lo < hi || (lo == hi && lo != l.qa && lo != l.qb);
    }
    if (o1 == o2) return false;
    const int o3 = orient(s.ax, s.ay, s.bx, s.by, q.ax, q.ay);
    const int o4 = orient(s.ax, s.ay, s.bx, s.by, q.bx, q.by);
    if (o3 == o4 && o3 != 0) return false;
    // One common point: it is q's start when o3 == 0, its end when o4 == 0, else inside q.
    return o3 != 0 && o4 != 0;
}

WallPlan walls_plan(const Seg* seg, uint32_t n) noexcept {
    WallPlan p{};
    p.ok = true;
    if (n == 0) return p;
    double minx = seg[0].ax, miny = seg[0].ay, maxx = minx, maxy = miny, extent = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const Seg& s = seg[i];
        minx = dmin(minx, dmin(s.ax, s.bx));
        maxx = dmax(maxx, dmax(s.ax, s.bx));
        miny = dmin(miny, dmin(s.ay, s.by));
        maxy = dmax(maxy, dmax(s.ay, s.by));
        extent += dmax(std::fabs(double(s.bx) - s.ax), std::fabs(double(s.by) - s.ay));
    }
    // About one wall per cell, and cells no smaller than the mean wall, so that the walls'
    // entries stay O(n): a wall crosses about extent / cell + 2 cells.
    const double w = maxx - minx, h = maxy - miny;
    double cell = dmax(extent / n, std::sqrt(w * h / n));
    if (!(cell > 0)) cell = dmax(w, h) / n;
    if (!(cell > 0)) cell = 1;
    const double max_cells = 2.0 * n + 16;
    while ((std::floor(w / cell) + 1) * (std::floor(h / cell) + 1) > max_cells) cell *= 2;
    p.frame = GridFrame{minx, miny, 1.0 / cell, static_cast<uint32_t>(std::floor(w / cell) + 1),
                        static_cast<uint32_t>(std::floor(h / cell) + 1)};
    uint64_t refs = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const Seg& s = seg[i];
        walk_cells<false>(p.frame, s.ax, s.ay, s.bx, s.by, [&](uint32_t, uint32_t, double, double) {
            ++refs;
            return Walk::next;
        });
    }
    p.refs = refs;
    p.ok = refs < (uint64_t(1) << 32);
    return p;
}

size_t walls_index_bytes(const WallPlan& p) noexcept {
    const uint64_t cells = uint64_t(p.frame.cols) * p.frame.rows;
    return static_cast<size_t>((cells + 1) * sizeof(uint32_t) + p.refs * (sizeof(Seg) + sizeof(uint32_t)));
}

void walls_build(Walls& w, const Seg* seg, uint32_t n, const WallPlan& p, void* block) noexcept {
    const uint32_t cells = p.frame.cols * p.frame.rows;
    auto* start = static_cast<uint32_t*>(block);
    auto* cell_seg = reinterpret_cast<Seg*>(start + cells + 1);
    auto* cell_wall = reinterpret_cast<uint32_t*>(cell_seg + p.refs);
    std::memset(start, 0, sizeof(uint32_t) * (cells + 1));
    // Counting sort of (cell, wall), walls ascending within a cell.
    for (uint32_t i = 0; i < n; ++i)
        walk_cells<false>(p.frame, seg[i].ax, seg[i].ay, seg[i].bx, seg[i].by, [&](uint32_t col, uint32_t row, double, double) {
            ++start[row * p.frame.cols + col + 1];
            return Walk::next;
        });
    for (uint32_t c = 0; c < cells; ++c) start[c + 1] += start[c];
    for (uint32_t i = 0; i < n; ++i)
        walk_cells<false>(p.frame, seg[i].ax, seg[i].ay, seg[i].bx, seg[i].by, [&](uint32_t col, uint32_t row, double, double) {
            const uint32_t k = start[row * p.frame.cols + col]++;
            cell_seg[k] = seg[i];
            cell_wall[k] = i;
            return Walk::next;
        });
    for (uint32_t c = cells; c > 0; --c) start[c] = start[c - 1];
    start[0] = 0;
    w = Walls{seg, n, p.frame, start, cell_seg, cell_wall};
}

bool walls_blocked(const Walls& w, float ax, float ay, float bx, float by) noexcept {
    const Prepared p = prepare(ax, ay, bx, by);
    return any_wall(w, ax, ay, bx, by,
                    [&](const Seg& s) { return !clearly_apart(p, s) && first_contact(p.q, s) != Contact::none; });
}

bool walls_visible(const Walls& w, float vx, float vy, float px, float py) noexcept {
    const Prepared p = prepare(vx, vy, px, py);
    if (is_point(p.q)) return true;
    return !any_wall(w, vx, vy, px, py, [&](const Seg& s) { return !clearly_apart(p, s) && seg_blocks_open(p.q, s); });
}

bool walls_cast(const Walls& w, float ax, float ay, float bx, float by, double* t, uint32_t* wall) noexcept {
    const Prepared p = prepare(ax, ay, bx, by);
    const Seg& q = p.q;
    Best best;
    exact::Ratio r;
    bool found = false;
    walk_cells(w.frame, ax, ay, bx, by, [&](uint32_t col, uint32_t row, double entry, double column_entry) {
        const uint32_t c = row * w.frame.cols + col;
        if (found) {
            const double hi = best.a.t + best.a.err;  // no contact of the best wall lies beyond
            if (column_entry > hi) return Walk::stop;
            if (entry > hi) return Walk::next_column;
        }
        for (uint32_t k = w.start[c], end = w.start[c + 1]; k < end; ++k) {
            const Seg& s = w.cell_seg[k];
            if (clearly_apart(p, s)) continue;
            const uint32_t i = w.cell_wall[k];
            if (found && i == best.wall) continue;  // met again in another cell
            const Contact kind = first_contact(q, s);
            if (kind == Contact::none) continue;
            const Approx a = approx_contact(p, s, kind);
            if (!found || a.t + a.err < best.a.t - best.a.err) {
                best = Best{s, kind, i, a, false, {}};
                found = true;
                continue;
            }
            if (a.t - a.err > best.a.t + best.a.err) continue;
            // Too close for the doubles: exactly.
            if (!best.exact) {
                contact_ratio(q, best.s, best.kind, best.r);
                best.exact = true;
                best.a = Approx{best.r.t, 1e-15};
            }
            contact_ratio(q, s, kind, r);
            const int order = exact::compare(r, best.r);
            if (order < 0 || (order == 0 && i < best.wall)) best = Best{s, kind, i, Approx{r.t, 1e-15}, true, r};
        }
        return Walk::next;
    });
    if (!found) return false;
    double v = best.a.t;
    if (!best.exact && best.a.err > 1e-10) {
        contact_ratio(q, best.s, best.kind, r);
        v = r.t;
    }
    *t = v <= 0 ? 0.0 : (v > 1 ? 1.0 : v);  // <=: a contact at the start is +0, never -0
    *wall = best.wall;
    return true;
}

}  // namespace soageo
