// The loose grid under the spatial index, the AOI and the contacts' incremental path
// (doc/design.md, "The loose grid"). Cells hashed by row into a power-of-two table: a row's
// cells are consecutive buckets, so a run of cells in a row is one run of positions (two when
// it wraps), in O(entities) memory.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "invariant.hpp"
#include "store.hpp"

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

inline uint32_t row_bucket(uint32_t buckets, int64_t cx, int64_t cy) noexcept {
    const uint32_t row = static_cast<uint32_t>((static_cast<uint64_t>(cy) * 0x9E3779B97F4A7C15ull) >> 32);
    return (row + static_cast<uint32_t>(cx)) & (buckets - 1);
}

// The rule: at most kLooseMaxAdded added, kLooseDeadBase + n_built / kLooseDeadShare dead, and
// a drift within kLooseDrift of the owner's unit, the reach of its typical search (the index:
// a cell; the AOI: the median watcher's reach; contacts: the widest box).
constexpr uint32_t kLooseMaxAdded = 128;
constexpr uint32_t kLooseDeadBase = 64;
constexpr uint32_t kLooseDeadShare = 16;
constexpr double kLooseDrift = 0.25;

struct LooseGrid {
    uint32_t* start;    // buckets + 2 + the consumer's extra runs (loose_count)
    double inv_cell;    // rows, and cells within a row unless inv_cell_x says otherwise
    double inv_cell_x;  // cells within a row (the AOI's are narrower than its rows)
    double drift;       // how far an entity may be from where it was filed: 0 after a build
    double drift_limit; // kLooseDrift of the unit, set by the consumer at each build
    uint32_t buckets;   // a power of two
    // Positions [0, n_cells) in buckets, then up to n_built the owner's extra runs (the index's
    // big entities), then those added since the build up to n; `dead` of them were removed.
    uint32_t n_cells, n_built, n, dead;
};

// The smallest power of two of at least `n` buckets (and 16).
inline uint32_t loose_buckets_for(uint32_t n) noexcept {
    uint32_t b = 16;
    while (b < n) b *= 2;
    return b;
}

// Entries of `start` for `buckets` and `extra` runs past them.
inline size_t loose_start_len(uint32_t buckets, uint32_t extra) noexcept { return size_t(buckets) + extra + 2; }

// A build's count: source i goes to bucket key(i) < buckets + extra, kept in keys[i].
template <class Key>
void loose_count(LooseGrid& g, uint32_t n, uint32_t extra, uint32_t* keys, Key key) noexcept {
    uint32_t* const start = g.start;
    const uint32_t end = g.buckets + extra + 2;
    std::memset(start, 0, size_t(end) * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; ++i) ++start[(keys[i] = key(i)) + 2];
    for (uint32_t b = 2; b < end; ++b) start[b] += start[b - 1];
}

// Then its scatter: put(i, position) (start[b + 1] runs ahead, so that start[b] ends as bucket
// b's first position). The last extra run, if any, is left past n (the index's dead positions).
template <class Put>
void loose_scatter(LooseGrid& g, uint32_t n, uint32_t extra, const uint32_t* keys, Put put) noexcept {
    uint32_t* const start = g.start;
    for (uint32_t i = 0; i < n; ++i) put(i, start[keys[i] + 1]++);
    g.n_cells = start[g.buckets];
    g.n_built = g.n = extra ? start[g.buckets + extra - 1] : g.n_cells;
    g.dead = 0, g.drift = 0;
}

// The positions of the buckets [b0, b1) (b0 < buckets, b1 - b0 <= buckets): visit(first, last)
// once, twice when they wrap the table; false when visit stopped.
template <class Visit>
inline bool loose_runs(const LooseGrid& g, uint32_t b0, uint64_t b1, Visit visit) noexcept {
    const uint32_t B = g.buckets;
    if (b1 <= B) return visit(g.start[b0], g.start[b1]);
    return visit(g.start[b0], g.start[B]) && visit(0, g.start[b1 - B]);
}

// Whether the grid takes `added` more added and `removed` more dead and stays loose.
inline bool loose_takes(const LooseGrid& g, uint32_t added, uint32_t removed) noexcept {
    return uint64_t(g.n) + added - g.n_built <= kLooseMaxAdded &&
           uint64_t(g.dead) + removed <= kLooseDeadBase + g.n_built / kLooseDeadShare;
}

// Whether it stays loose with entities `drift` from where they were filed.
inline bool loose_drift_ok(const LooseGrid& g, double drift) noexcept { return drift <= g.drift_limit; }

// The grid's invariants (the checked builds: SOAGEO_CHECKS), after every build and refresh:
// the bucket table in order, the runs nested, the rebuild rule kept, and every position in
// cells within `drift` (per axis) of a cell of its bucket. at(p, x, y) gives the point filed
// at position p; false: a dead position, which holds anything. `extra` as in loose_count.
#if defined(SOAGEO_CHECKS)
template <class At>
void grid_validate(const LooseGrid& g, uint32_t extra, At at) noexcept {
    SOAGEO_ASSERT(g.buckets >= 1 && (g.buckets & (g.buckets - 1)) == 0 && g.start[0] == 0);
    for (uint32_t b = 0; b < g.buckets + extra; ++b) SOAGEO_ASSERT(g.start[b] <= g.start[b + 1]);
    SOAGEO_ASSERT(g.start[g.buckets] == g.n_cells && g.n_cells <= g.n_built && g.n_built <= g.n && g.dead <= g.n);
    SOAGEO_ASSERT(loose_takes(g, 0, 0) && g.drift >= 0 && loose_drift_ok(g, g.drift));
    // A hair more than the drift: the consumers' own measures round to nearest.
    const double d = g.drift * (1 + 0x1p-20);
    uint32_t b = 0;
    for (uint32_t p = 0; p < g.n_cells; ++p) {
        while (g.start[b + 1] <= p) ++b;  // the bucket holding position p
        float x, y;
        if (!at(p, x, y)) continue;
        const double pad = (std::fabs(double(x)) + std::fabs(double(y))) * 0x1p-40;
        bool found = false;
        for (int64_t cy = cell_of(y - d - pad, g.inv_cell); !found && cy <= cell_of(y + d + pad, g.inv_cell); ++cy)
            for (int64_t cx = cell_of(x - d - pad, g.inv_cell_x); !found && cx <= cell_of(x + d + pad, g.inv_cell_x); ++cx)
                found = row_bucket(g.buckets, cx, cy) == b;
        SOAGEO_ASSERT(found);
    }
}
#else
template <class At>
void grid_validate(const LooseGrid&, uint32_t, At) noexcept {}
#endif

}  // namespace soageo
