// The layer's spatial index (doc/design.md, "Spatial index"): its entities copied in the cell
// order of a loose grid (loose_grid.hpp), so that a query runs the same kernels over the few
// runs its shape can reach; entities wider than a cell sit in one more run every query visits.
// No Lua here: the binding owns the block (a Lua userdata) and decides when to build.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels.hpp"
#include "loose_grid.hpp"
#include "store.hpp"

namespace soageo {

struct Grid {
    // Positions by bucket, then the run every query visits: the big entities (up to n_built) and
    // those added since the build. A removed entity's position keeps slot kDeadSlot. Plans widen
    // by its drift.
    LooseGrid loose;
    float *x, *y, *r;  // cell order: x, y, r, mask, slot by position
    uint32_t *mask, *slot;
    // The other half of a rebuild (swapped with the above after each build).
    float *x2, *y2, *r2;
    uint32_t *mask2, *slot2;
    float* xy;             // build scratch: x and y interleaved by slot (the rebuild after moves)
    uint32_t* key;         // build scratch: bucket of each source position
    uint32_t* hits;        // query scratch: room + kHitSlack entries
    uint32_t* bitmap;      // scratch, one bit per slot: ordering many hits; the slots a refresh renumbers
    float cell;
    float reach;           // largest radius among the entities in cells (<= cell)
    uint32_t cap;          // entities the block holds (the layer's column capacity)
    uint32_t room;         // positions it holds: cap + kGridSpare
    bool built;
};

// Keyed past the buckets (loose_count): the big entities' run, then the dead positions a
// rebuild from the cell order drops.
constexpr uint32_t kGridRuns = 2;

// With the dead positions of removed ones, the positions in use may pass the layer's capacity
// by the loose grid's added run and by one refresh's adds.
constexpr uint32_t kGridSpare = kLooseMaxAdded + kMaxMembersBehind;

// The slot of a cell-order position whose entity was removed after the last build: a refresh
// leaves its columns in place (the buckets stay as they are), queries skip it, builds drop it.
constexpr uint32_t kDeadSlot = 0xffffffffu;

// Room past the candidates for kernels that store whole blocks, per run.
constexpr uint32_t kMaxRuns = 96;
constexpr uint32_t kHitSlack = (kMaxRuns + 2) * kMaxWidth;

size_t grid_bytes(uint32_t cap) noexcept;
Grid grid_carve(void* block, uint32_t cap) noexcept;  // empty, not built
// A grid with the sizes grid_carve gives `cap` (room, buckets) and no arrays: for a build into
// arrays the caller lays out (a shared index, shared.cpp, sets x2 .. slot2, key and start: a
// full grid_build reads no other array and leaves the cell order in x .. slot).
Grid grid_sized(uint32_t cap) noexcept;
// Entries of each cell-order array (x, y, r, mask, slot) of a grid of `room` positions.
inline size_t grid_column_len(uint32_t room) noexcept { return size_t(padded(room)) + kMaxWidth; }
// A query's scratch (hits and bitmap) apart from the grid's block: a shared index (shared.hpp)
// is read by many views at once, each with scratch of its own.
size_t grid_scratch_bytes(uint32_t room) noexcept;
void grid_scratch_carve(void* block, Grid& g) noexcept;  // sets g.hits and g.bitmap for g.room

// Brings the grid up to date with the store (s.n <= g.cap). `moves_only`: the caller knows that
// only positions changed since the last build (same entities in the same slots, same radii and
// masks: the grid cannot tell), and the last cell order is the starting point: entities that
// kept their cell are written in place, in order.
void grid_build(Grid& g, const Store& s, bool moves_only) noexcept;
// The counting sort of grid_build, from the store's slots or (`gathered`) from the grid's own
// cell order, whose positions are already current; drops dead positions.
void grid_fill(Grid& g, const Store& s, bool gathered) noexcept;

// After the changes the store flagged since the grid last caught up (s.stale, s.feed; a grid
// built before, no kStaleAll): the new positions, adds and removes into the cell order, keeping
// the buckets while the loose grid's rule allows (doc/design.md, "Spatial index"), else a
// rebuild from that order: a tick of small moves costs a pass, not a counting sort. Returns
// true when it stayed loose.
bool grid_refresh(Grid& g, const Store& s) noexcept;

// The runs of cell-order positions a query visits: the cells an area covers (rows and, within
// a row, columns), the big entities, merged so that no position appears twice.
struct Run {
    uint32_t begin, end;
};
struct Plan {
    Run run[kMaxRuns + 2];
    uint32_t n;
    uint64_t candidates;  // positions in all runs
    bool ok;              // false: too many runs to list, the caller scans
};

// An area to search, in double, padded for float32 rounding and (disk tests) by g.reach:
// the box [minx, maxx] x [miny, maxy], narrowed row by row to the points within `sreach` of
// the segment (sx0, sy0)-(sx1, sy1) when `narrow` (capsules and casts, often long and
// diagonal, would otherwise search their whole bounding box).
struct Area {
    double minx, miny, maxx, maxy;
    bool narrow;
    double sx0, sy0, sx1, sy1, sreach;
};
// A box area (new shapes: their bounding box, then grid_plan).
Area box_area(double minx, double miny, double maxx, double maxy, double reach) noexcept;

// Plans no area this wide or wider (p.ok false: the caller scans): see grid_plan.
constexpr double kHugeArea = 0x1p62;
void grid_plan(const Grid& g, const Area& a, Plan& p) noexcept;

// Work of a query in "entities tested by the scan" units, to compare plans.
double plan_cost(const Plan& p) noexcept;

// Sorts slots ascending and drops duplicates; `bitmap` holds one bit per slot below `n`.
uint32_t sort_slots(uint32_t* slots, uint32_t k, uint32_t n, uint32_t* bitmap) noexcept;

// Asks for the cache lines of the plan's runs at once: a small query in a large layer reads
// a few short runs that are rarely in cache, and one miss after another is most of its time.
void grid_prefetch(const Grid& g, const Plan& p) noexcept;

// Runs `test(points, out) -> hits` (a shape kernel bound to its shape and filter: kernels of
// any shape fit, they test the same columns) over the plan's runs; writes the slots hit,
// ascending, to g.hits; returns how many. With `ids` (the store's id column), the ids of the
// first hits are asked for as soon as their slots are known: in a large layer they miss the
// cache, and the sort and the result table's setup then hide part of the wait.
template <class Test>
uint32_t grid_collect(const Grid& g, const Plan& p, Test test, const int64_t* ids = nullptr) noexcept {
    constexpr uint32_t kIdsEarly = 16;
    grid_prefetch(g, p);
    uint32_t* out = g.hits;
    uint32_t k = 0;
    for (uint32_t i = 0; i < p.n; ++i) {
        const uint32_t begin = p.run[i].begin, end = p.run[i].end;
        // Kernels need aligned columns: start at the block holding `begin`, drop what precedes it.
        const uint32_t a0 = begin & ~uint32_t(kMaxWidth - 1);
        Points pts{g.x + a0, g.y + a0, g.r + a0, g.mask + a0, end - a0};
        uint32_t m = test(pts, out + k);
        uint32_t w = k;
        for (uint32_t j = 0; j < m; ++j) {
            uint32_t pos = a0 + out[k + j];
            if (pos >= begin) {
                const uint32_t slot = g.slot[pos];
                if (slot == kDeadSlot) continue;
                if (ids && w < kIdsEarly) __builtin_prefetch(ids + slot);
                out[w++] = slot;
            }
        }
        k = w;
    }
    return sort_slots(out, k, g.loose.n, g.bitmap);
}

// Padded query areas of the shapes (entity centres; add g.reach for disk tests).
Area area_of(const Circle& c, double reach) noexcept;
Area area_of(const Box& b, double reach) noexcept;
Area area_of(const Sector& s, double reach) noexcept;
Area area_of(const Capsule& c, double reach) noexcept;   // narrowed row by row
Area area_of(const Triangle& t, double reach) noexcept;
Area area_of(const Segment& s, double reach) noexcept;   // narrowed row by row
Area area_of(const Rect& r, double reach) noexcept;
Area area_of(const Ring& r, double reach) noexcept;
Area area_of(const Polygon& p, double reach) noexcept;

// The k entities nearest to (cx, cy) by float32 d2 = dx*dx + dy*dy, then by id; only d2 <
// max_r * max_r (float32) when has_max. Writes slots, nearest first, to `out` (g.hits when
// indexed); returns how many. The scan form needs `out` with room for s.n + kHitSlack. The
// grid form scans when its circle would reach everything (`*scanned` then says so).
uint32_t grid_nearest(const Grid& g, const Store& s, const KernelTable& kt, float cx, float cy, uint32_t k,
                      bool has_max, float max_r, Filter f, bool* scanned = nullptr) noexcept;
uint32_t scan_nearest(const Store& s, float cx, float cy, uint32_t k, bool has_max, float max_r, Filter f,
                      uint32_t* out) noexcept;

// The first hit of a segment cast (smallest entry t, then smallest id) through the grid:
// walks the segment in pieces of growing length and stops once a hit lies before the end of
// the pieces searched. False when nothing is hit. A piece too long to plan makes it scan
// (`*scanned` then says so).
bool grid_cast_first(const Grid& g, const Store& s, const KernelTable& kt, const Segment& seg, Filter f,
                     uint32_t* slot, float* t, bool* scanned = nullptr) noexcept;

}  // namespace soageo
