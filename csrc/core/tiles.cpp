// Tiles (tiles.hpp): the walk of ray_walk.hpp over the map, each blocked cell decided exactly.
#include "tiles.hpp"

#include <cmath>
#include <utility>

#include "exact.hpp"

namespace soageo {
namespace {

// e = (o + k * cell) - a exactly: k * cell is exact in a double (k <= 2^24 + 1, a 24-bit
// cell), so three doubles summed as an expansion.
inline int edge_minus(float o, uint32_t k, float cell, float a, double* e) noexcept {
    int n = exact::grow(e, 0, double(o), e);
    n = exact::grow(e, n, double(k) * double(cell), e);
    return exact::grow(e, n, -double(a), e);
}

inline void set_ratio(exact::Ratio& r, const double* n, int nn, bool neg, const double* d, int nd) noexcept {
    for (int i = 0; i < nn; ++i) r.n[i] = neg ? -n[i] : n[i];
    for (int i = 0; i < nd; ++i) r.d[i] = d[i];
    r.nn = nn;
    r.nd = nd;
    exact::ratio_finish(r);
}

// A query prepared for tile_meets_fast: its ends in double and 1 / (b - a) per axis.
struct Ray {
    Seg q;
    double a[2], b[2], inv[2];
};

inline Ray ray_of(const Seg& q) noexcept {
    Ray r{q, {q.ax, q.ay}, {q.bx, q.by}, {0, 0}};
    for (int axis = 0; axis < 2; ++axis)
        if (r.a[axis] != r.b[axis]) r.inv[axis] = 1 / (r.b[axis] - r.a[axis]);
    return r;
}

// tile_meets in doubles, for the cells it can decide: 1 meets, -1 does not, 0 too close to
// call (the exact test decides). Edges and parameters are within a few units in the last
// place of their exact values; the margins are a thousand times that.
int tile_meets_fast(const TileMap& m, uint32_t col, uint32_t row, const Ray& r, bool open) noexcept {
    double lo = 0, hi = 1, err = 0;
    for (int axis = 0; axis < 2; ++axis) {
        const double a = r.a[axis], b = r.b[axis], o = axis ? m.y0 : m.x0;
        const double k = axis ? row : col;
        const double e0 = o + k * m.cell, e1 = o + (k + 1) * m.cell;
        const double mag = std::fabs(e0) + std::fabs(e1) + std::fabs(a) + std::fabs(b);
        if (a == b) {
            const double tol = 1e-13 * mag;
            if (a < e0 - tol || a > e1 + tol) return -1;
            if (!(a > e0 + tol && a < e1 - tol)) return 0;
            continue;
        }
        double t0 = (e0 - a) * r.inv[axis], t1 = (e1 - a) * r.inv[axis];
        if (t0 > t1) std::swap(t0, t1);
        err = dmax(err, 1e-13 * mag * std::fabs(r.inv[axis]));
        lo = dmax(lo, t0);
        hi = dmin(hi, t1);
    }
    if (lo > hi + 2 * err) return -1;
    if (!(lo < hi - 2 * err)) return 0;
    if (open && !(hi > 2 * err && lo < 1 - 2 * err)) return 0;
    return 1;
}

// The closed segment q meets the closed square of cell (col, row), blocked or not. `open`: a
// contact at q's start alone or at its end alone does not count. `enter`, when given, receives
// the first contact's parameter.
bool tile_meets(const TileMap& m, uint32_t col, uint32_t row, const Seg& q, bool open, exact::Ratio* enter) noexcept {
    // Liang-Barsky on exact values: the parameters where q enters and leaves each slab, the
    // latest entry against the earliest exit.
    exact::Ratio lo, hi, in, out;
    exact::ratio_int(lo, 0.0);
    exact::ratio_int(hi, 1.0);
    const bool point = q.ax == q.bx && q.ay == q.by;
    if (point && open) return false;
    for (int axis = 0; axis < 2; ++axis) {
        const float a = axis ? q.ay : q.ax, b = axis ? q.by : q.bx, o = axis ? m.y0 : m.x0;
        const uint32_t k = axis ? row : col;
        double e0[3], e1[3];
        const int n0 = edge_minus(o, k, m.cell, a, e0), n1 = edge_minus(o, k + 1, m.cell, a, e1);
        if (a == b) {
            // Inside the slab, edges included, or never.
            if (exact::sign(e0, n0) > 0 || exact::sign(e1, n1) < 0) return false;
            continue;
        }
        double d[2];
        const int nd = b > a ? exact::diff(b, a, d) : exact::diff(a, b, d);
        if (b > a) {
            set_ratio(in, e0, n0, false, d, nd);
            set_ratio(out, e1, n1, false, d, nd);
        } else {
            set_ratio(in, e1, n1, true, d, nd);
            set_ratio(out, e0, n0, true, d, nd);
        }
        if (exact::compare(in, lo) > 0) lo = in;
        if (exact::compare(out, hi) < 0) hi = out;
    }
    if (exact::compare(lo, hi) > 0) return false;
    if (open) {
        // Only the start (the square is left at t = 0) or only the end (entered at t = 1).
        if (exact::sign(hi.n, hi.nn) == 0) return false;
        exact::Ratio one;
        exact::ratio_int(one, 1.0);
        if (exact::compare(lo, one) == 0) return false;
    }
    if (enter) *enter = lo;
    return true;
}

bool meets(const TileMap& m, uint32_t col, uint32_t row, const Ray& r, bool open) noexcept {
    const int fast = tile_meets_fast(m, col, row, r, open);
    return fast != 0 ? fast > 0 : tile_meets(m, col, row, r.q, open, nullptr);
}

// The rows [*lo - 1, *hi] (as reals: rows r with r + 1 >= *lo and r <= *hi) whose closed
// cells in column c the segment certainly meets: the part of it inside the column shrunk by
// the walk's pad, its v range shrunk by the pad again. The pad is far more than the rounding
// of u, v and t (the walk's own argument, read the other way), so no exact test is needed.
inline void certain_rows(const RowFrame& f, uint32_t c, double* lo, double* hi) noexcept {
    const double near_edge = double(c) + f.pad, far_edge = double(c) + 1 - f.pad;
    *lo = HUGE_VAL;  // none
    *hi = -HUGE_VAL;
    double t1 = 0, t2 = 1;
    if (f.du == 0) {
        if (!(f.ua >= near_edge && f.ua <= far_edge)) return;
    } else {
        t1 = (near_edge - f.ua) * f.idu;
        t2 = (far_edge - f.ua) * f.idu;
        if (t1 > t2) std::swap(t1, t2);
        t1 = dmax(t1, 0);
        t2 = dmin(t2, 1);
        if (!(t1 <= t2)) return;
    }
    const double v1 = f.va + f.dv * t1, v2 = f.va + f.dv * t2;
    *lo = dmin(v1, v2) + f.pad;
    *hi = dmax(v1, v2) - f.pad;
}

// Whether a blocked cell among `bits` (the rows of block row br in column c, bit 8k for row
// 8 br + k) meets the segment, as `meets` says. A closed query takes a cell in the column's
// certain rows without a test, which is how most blocked rays end; the tests' ray is prepared
// only when one runs. Out of line: the walk's loop stays small, and this runs about once a ray.
__attribute__((noinline)) bool block_meets(const TileMap& m, const Seg& q, const RowFrame& f, uint32_t c, uint32_t br,
                                           uint64_t bits, bool open) noexcept {
    double certain_lo = HUGE_VAL, certain_hi = -HUGE_VAL;
    if (!open) certain_rows(f, c, &certain_lo, &certain_hi);
    bool have_ray = false;
    Ray ray;
    while (bits) {
        const uint32_t row = br * 8 + uint32_t(__builtin_ctzll(bits)) / 8;
        bits &= bits - 1;
        if (double(row) + 1 >= certain_lo && double(row) <= certain_hi) return true;
        if (!have_ray) {
            ray = ray_of(q);
            have_ray = true;
        }
        if (meets(m, c, row, ray, open)) return true;
    }
    return false;
}

// The blocked cells of column c's rows r0..r1, block row by block row: each block row br that
// has some goes to found(br, bits) (bit 8k: row 8 br + k) until it returns false. False when
// found stopped it.
template <class Found>
inline bool each_blocked_block(const uint64_t* words, uint64_t words_per_row, uint32_t c, uint32_t r0, uint32_t r1,
                               Found found) {
    const uint64_t* column = words + (c >> 3);
    const uint32_t shift = c & 7;
    // The span's rows as bit masks. Shifts, not branches, bound the first and last block: r0 and
    // r1 fall anywhere in theirs.
    const uint64_t first = ~uint64_t(0) << (8 * (r0 & 7)), last = ~uint64_t(0) >> (8 * (7 - (r1 & 7)));
    const uint32_t b0 = r0 >> 3, b1 = r1 >> 3;
    for (uint32_t br = b0; br <= b1; ++br) {
        uint64_t bits = (column[br * words_per_row] >> shift) & 0x0101010101010101ull;
        bits &= (br == b0 ? first : ~uint64_t(0)) & (br == b1 ? last : ~uint64_t(0));
        if (bits && !found(br, bits)) return false;
    }
    return true;
}

// Whether a blocked cell the segment crosses meets it (as `meets` says, `open` or not). Per
// column, the rows of the span are read a block of 8 at a time from the bit words: a run of
// free cells costs one word, not a test per cell. Order does not matter: any contact answers.
bool any_blocked(const TileMap& m, const Seg& q, bool open) noexcept {
    bool hit = false;
    const uint64_t words_per_row = (m.cols + 7) / 8;
    RowFrame f;
    const uint64_t* const words = m.bits;
    walk_columns(m.frame, q.ax, q.ay, q.bx, q.by, &f, [&, words, words_per_row](uint32_t c, uint32_t r0, uint32_t r1, double) {
        return each_blocked_block(words, words_per_row, c, r0, r1, [&](uint32_t br, uint64_t bits) {
            hit = block_meets(m, q, f, c, br, bits, open);
            return !hit;
        });
    });
    return hit;
}

}  // namespace

TileMap tiles_make(uint64_t* bits, uint32_t cols, uint32_t rows, float x0, float y0, float cell) noexcept {
    return TileMap{bits, cols, rows, x0, y0, cell, GridFrame{x0, y0, 1.0 / double(cell), cols, rows}};
}

// As any_blocked for a closed query, its common case kept lean: the walk stops at the first
// column block with a blocked cell in the span, with nothing to save around a call, and that
// block is looked at after it: most blocked rays end there, on a certain row. A block with no
// certain row (the ray passes within the pad of its cells, or only touches them) hands the
// ray to the full walk, which decides it afresh.
bool tiles_blocked(const TileMap& m, float ax, float ay, float bx, float by) noexcept {
    const Seg q{ax, ay, bx, by};
    const uint64_t words_per_row = (m.cols + 7) / 8;
    const uint64_t* const words = m.bits;
    RowFrame f;
    uint32_t hit_c = 0, hit_br = 0;
    uint64_t hit_bits = 0;
    walk_columns(m.frame, q.ax, q.ay, q.bx, q.by, &f, [&, words, words_per_row](uint32_t c, uint32_t r0, uint32_t r1, double) {
        return each_blocked_block(words, words_per_row, c, r0, r1, [&](uint32_t br, uint64_t bits) {
            hit_c = c;
            hit_br = br;
            hit_bits = bits;
            return false;
        });
    });
    if (!hit_bits) return false;
    double certain_lo, certain_hi;
    certain_rows(f, hit_c, &certain_lo, &certain_hi);
    for (uint64_t bits = hit_bits; bits; bits &= bits - 1) {
        const double row = double(hit_br * 8 + uint32_t(__builtin_ctzll(bits)) / 8);
        if (row + 1 >= certain_lo && row <= certain_hi) return true;
    }
    return any_blocked(m, q, false);
}

bool tiles_visible(const TileMap& m, float vx, float vy, float px, float py) noexcept {
    if (vx == px && vy == py) return true;
    return !any_blocked(m, Seg{vx, vy, px, py}, true);
}

bool tiles_cast(const TileMap& m, float ax, float ay, float bx, float by, double* t, uint32_t* cell) noexcept {
    const Seg q{ax, ay, bx, by};
    const Ray ray = ray_of(q);
    exact::Ratio best, r;
    uint32_t best_cell = 0;
    bool found = false;
    walk_cells(m.frame, ax, ay, bx, by, [&](uint32_t col, uint32_t row, double entry, double column_entry) {
        if (found) {
            if (column_entry > best.t) return Walk::stop;
            if (entry > best.t) return Walk::next_column;
        }
        if (!tile_blocked(m, col, row) || tile_meets_fast(m, col, row, ray, false) < 0) return Walk::next;
        if (!tile_meets(m, col, row, q, false, &r)) return Walk::next;
        const uint32_t c = row * m.cols + col;
        const int order = found ? exact::compare(r, best) : -1;
        if (order < 0 || (order == 0 && c < best_cell)) {
            best = r;
            best_cell = c;
            found = true;
        }
        return Walk::next;
    });
    if (!found) return false;
    *t = best.t < 0 ? 0.0 : (best.t > 1 ? 1.0 : best.t);
    *cell = best_cell;
    return true;
}

}  // namespace soageo
