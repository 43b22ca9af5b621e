// Walls: an immutable set of closed float32 segments with a static uniform grid over them, and
// the three questions a server asks of them (is this segment blocked, where does this ray first
// touch a wall, can this viewer see that point). Every decision is exact on the stored values.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ray_walk.hpp"

namespace soageo {

// A segment as stored: ends (ax, ay) and (bx, by); equal ends make a point.
struct Seg {
    float ax, ay, bx, by;
};

// The walls and their index, all in caller-owned memory (Lua blocks in the binding). The grid
// is CSR: cell k holds entries start[k] .. start[k + 1], one per wall whose padded segment
// crosses the cell, ascending by wall. Each entry is a copy of its wall (cell_seg) and its
// number (cell_wall): a query reads a cell's walls as one run of memory rather than one
// scattered line per wall, and tests a wall again in each cell it shares with the ray rather
// than marking what it tested (the marks cost a cache miss per wall on a large map; a repeat
// is cheaper, and gives the same answer).
struct Walls {
    const Seg* seg;
    uint32_t n;
    GridFrame frame;
    const uint32_t* start;  // cols * rows + 1
    const Seg* cell_seg;
    const uint32_t* cell_wall;
};

// A coords table holds at most 2^28 numbers (the binding's arrays): 2^26 walls, whose index
// stays below 2^32 entries (about 5 per wall at most, walls_plan).
constexpr uint32_t kMaxWalls = 1u << 26;

// What walls_build needs, from a first pass over the walls: the grid's frame and its size.
struct WallPlan {
    GridFrame frame;
    uint64_t refs;  // entries of items
    bool ok;        // false: the index would pass 2^32 entries (walls_build refuses)
};

WallPlan walls_plan(const Seg* seg, uint32_t n) noexcept;
size_t walls_index_bytes(const WallPlan& p) noexcept;
// Lays the index out in `block` (walls_index_bytes of it, 4-byte aligned) and fills it.
// Queries only read it: one Walls may serve any number of queries at once.
void walls_build(Walls& w, const Seg* seg, uint32_t n, const WallPlan& p, void* block) noexcept;

// The closed segment a-b (a point when a == b) meets a wall.
bool walls_blocked(const Walls& w, float ax, float ay, float bx, float by) noexcept;
// The first contact along a-b: t in [0, 1] (within 1e-9 of the exact value) and the 0-based
// wall, the lowest of those touching at that exact t. False when nothing is touched.
bool walls_cast(const Walls& w, float ax, float ay, float bx, float by, double* t, uint32_t* wall) noexcept;
// No wall meets the segment v-p except at v alone or at p alone (open at both ends).
bool walls_visible(const Walls& w, float vx, float vy, float px, float py) noexcept;

// The same three tests against one wall, for the references in the tests.
bool seg_meets(const Seg& q, const Seg& s) noexcept;
bool seg_blocks_open(const Seg& q, const Seg& s) noexcept;

}  // namespace soageo
