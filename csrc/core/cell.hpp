// The cell of a coordinate on a uniform grid: one rule for the spatial index (grid.cpp), the
// AOI (aoi.cpp) and the contacts' incremental grid (contacts.cpp), which must agree on it with
// their own bounds (a cell range computed here is the one the points were filed under).
// Plain scalar code for the common translation units, not for the per-target kernels.
#pragma once

#include <cstdint>

namespace soageo {

// Cell coordinates are clamped, so that any finite float (and a tiny cell) maps to a cell;
// clamping is monotonic, so the far cells merely grow.
constexpr double kCellClamp = 0x1p40;

inline int64_t cell_of(double v, double inv_cell) noexcept {
    double c = v * inv_cell;
    // NaN, which no caller should pass, goes to the lowest cell too: cast to an integer it would
    // be undefined, and cell ranges computed from it could overflow.
    c = !(c >= -kCellClamp) ? -kCellClamp : c > kCellClamp ? kCellClamp : c;
    int64_t t = static_cast<int64_t>(c);  // floor without a libm call (baseline x86-64 has no roundsd)
    return t - (static_cast<double>(t) > c ? 1 : 0);
}

// Cells hashed by row into a power-of-two table of `buckets`: the cells of one row are
// consecutive buckets, so a run of cells in a row is one run of buckets (two when it wraps),
// and there is no grid spanning the world, only buckets for occupied cells.
inline uint32_t row_bucket(uint32_t buckets, int64_t cx, int64_t cy) noexcept {
    const uint32_t row = static_cast<uint32_t>((static_cast<uint64_t>(cy) * 0x9E3779B97F4A7C15ull) >> 32);
    return (row + static_cast<uint32_t>(cx)) & (buckets - 1);
}

}  // namespace soageo
