// The cells of a uniform grid that a segment crosses, in the order the segment reaches them:
// the walk under walls (their index) and tiles (the map itself). It is conservative, never
// exact: it works in doubles on a strip padded by far more than its rounding, so it may name a
// cell the segment only passes near, never miss one it touches; the exact tests decide.
#pragma once

#include <cmath>
#include <cstdint>
#include <utility>

namespace soageo {

struct GridFrame {
    double ox, oy;  // the corner of cell (0, 0)
    double inv;     // 1 / cell size
    uint32_t cols, rows;
};

// What a visitor tells the walk after a cell.
enum class Walk { next, next_column, stop };

inline double dmin(double a, double b) { return a < b ? a : b; }  // std::fmin is a libm call here
inline double dmax(double a, double b) { return a > b ? a : b; }

// The walk by columns: span(col, r0, r1, tlo) for each column, rows r0 <= r1 (clamped to the
// grid), in the segment's x direction; `tlo` is where the segment enters the padded column.
// Returns false once span does. `rows_of` receives what walk_cells needs to order the rows.
struct RowFrame {
    double va, idv, pad;
    bool up;  // rows in ascending order along the segment
    double ua, du, idu, dv;  // the segment in cell units, for a visitor's own tests
};

template <class Span>
void walk_columns(const GridFrame& g, double ax, double ay, double bx, double by, RowFrame* rows_of, Span&& span) noexcept {
    if (g.cols == 0 || g.rows == 0) return;
    const double ua = (ax - g.ox) * g.inv, va = (ay - g.oy) * g.inv;
    const double ub = (bx - g.ox) * g.inv, vb = (by - g.oy) * g.inv;
    const double du = ub - ua, dv = vb - va;
    const double idu = du != 0 ? 1 / du : 0, idv = dv != 0 ? 1 / dv : 0;  // multiplies in the loops
    // Far more than the rounding of u, v and their interpolation, in cell units.
    const double mag = std::fabs(ua) + std::fabs(ub) + std::fabs(va) + std::fabs(vb) +
                       (std::fabs(ax) + std::fabs(bx) + std::fabs(ay) + std::fabs(by) + std::fabs(g.ox) + std::fabs(g.oy)) * g.inv;
    const double pad = 1e-7 + 1e-12 * mag;
    if (rows_of) *rows_of = RowFrame{va, idv, pad, dv >= 0, ua, du, idu, dv};
    const double cols = g.cols, rows = g.rows;
    const double ulo = dmin(ua, ub) - pad, uhi = dmax(ua, ub) + pad;
    const double vlo0 = dmin(va, vb) - pad, vhi0 = dmax(va, vb) + pad;
    if (!(uhi >= 0 && ulo <= cols && vhi0 >= 0 && vlo0 <= rows)) return;
    // floor, clamped to [0, n - 1]: clamped first, a truncation is the floor (std::floor is a
    // dozen instructions without SSE4.1, twice per column).
    auto clamp_cell = [](double v, double n) {
        return v <= 0 ? int64_t(0) : (v >= n - 1 ? static_cast<int64_t>(n - 1) : static_cast<int64_t>(v));
    };
    const int64_t c0 = clamp_cell(ulo, cols), c1 = clamp_cell(uhi, cols);
    if (du == 0) {  // one column range, the whole segment in each
        const double vlo = vlo0, vhi = vhi0;
        for (int64_t c = c0; c <= c1; ++c)
            if (!span(uint32_t(c), uint32_t(clamp_cell(vlo, rows)), uint32_t(clamp_cell(vhi, rows)), 0.0)) return;
        return;
    }
    // Along x: the padded column [c - pad, c + 1 + pad] holds the segment for t in
    // [(c - pad - ua) / du, (c + 1 + pad - ua) / du] (swapped when du < 0), clipped to [0, 1].
    const int64_t cstep = du > 0 ? 1 : -1;
    const double near_off = du > 0 ? -pad : 1 + pad, far_off = du > 0 ? 1 + pad : -pad;
    for (int64_t c = du > 0 ? c0 : c1;; c += cstep) {
        const double t1 = (double(c) + near_off - ua) * idu, t2 = (double(c) + far_off - ua) * idu;
        const double tlo = t1 > 0 ? t1 : 0, thi = t2 < 1 ? t2 : 1;
        if (tlo <= thi) {
            const double v1 = va + dv * tlo, v2 = va + dv * thi;
            const double vlo = (v1 < v2 ? v1 : v2) - pad, vhi = (v1 < v2 ? v2 : v1) + pad;
            if (vhi >= 0 && vlo <= rows && !span(uint32_t(c), uint32_t(clamp_cell(vlo, rows)), uint32_t(clamp_cell(vhi, rows)), tlo))
                return;
        }
        if (c == (du > 0 ? c1 : c0)) break;
    }
}

// Calls visit(col, row, entry, column_entry) for every cell that the padded segment from a to
// b crosses. Columns come in the segment's x direction and, in each, rows in its y direction,
// so `column_entry` (where the segment enters the padded column) only grows, and `entry` (where
// it enters the padded cell, a lower bound of every contact there) only grows within a column:
// a visitor that has found a contact at t may skip the rest of a column once entry > t and
// stop once column_entry > t. Ordered = false: entries are not needed and are passed as 0.
template <bool Ordered = true, class Visit>
void walk_cells(const GridFrame& g, double ax, double ay, double bx, double by, Visit&& visit) noexcept {
    RowFrame f;
    walk_columns(g, ax, ay, bx, by, &f, [&](uint32_t c, uint32_t r0, uint32_t r1, double tlo) {
        const int64_t step = f.up ? 1 : -1;
        for (int64_t r = f.up ? r0 : r1;; r += step) {
            double entry = tlo;
            if (Ordered && f.idv != 0) {
                const double s1 = (double(r) - f.pad - f.va) * f.idv, s2 = (double(r) + 1 + f.pad - f.va) * f.idv;
                const double s = s1 < s2 ? s1 : s2;
                if (s > entry) entry = s;
            }
            const Walk w = visit(c, static_cast<uint32_t>(r), entry, tlo);
            if (w == Walk::stop) return false;
            if (w == Walk::next_column || r == (f.up ? int64_t(r1) : int64_t(r0))) break;
        }
        return true;
    });
}

}  // namespace soageo
