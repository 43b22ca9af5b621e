// The layer's past (layer:history, layer:commit, layer:past): each committed tick keeps the
// positions of its entities in slot order, and their radii, masks and ids, in blocks the
// binding owns. A tick where no entity was added, removed or reshaped shares the previous
// tick's radii, masks and ids; a tick where nothing moved shares its positions too. No Lua here.
#pragma once

#include <cstddef>
#include <cstdint>

#include "store.hpp"

namespace soageo {

// The ticks a layer can keep at most (layer:history).
constexpr uint32_t kMaxHistory = 64;

struct FramePositions {
    float *x, *y;
};
struct FrameShapes {
    float* r;
    uint32_t* mask;
    int64_t* id;
};
// A frame holds `cap` entries per column (a multiple of kMaxWidth, at least kMaxWidth), the
// lanes past its entities zeroed (mask 0: padding no query hits), like the layer's columns.
inline uint32_t frame_cap(uint32_t n) noexcept { return n ? padded(n) : uint32_t(kMaxWidth); }
size_t frame_positions_bytes(uint32_t cap) noexcept;
size_t frame_shapes_bytes(uint32_t cap) noexcept;
FramePositions frame_positions_carve(void* block, uint32_t cap) noexcept;
FrameShapes frame_shapes_carve(void* block, uint32_t cap) noexcept;
// The query scratch of a frame (hit slots and sort keys, as Columns::hits and ::order).
size_t frame_scratch_bytes(uint32_t cap) noexcept;
void frame_scratch_carve(void* block, uint32_t cap, Columns& col) noexcept;

// Copies the store's entities into a frame of `cap` entries and zeroes the lanes after them
// (a block taken over from a dropped tick holds that tick's there).
void frame_copy_positions(const FramePositions& to, const Store& s, uint32_t cap) noexcept;
void frame_copy_shapes(const FrameShapes& to, const Store& s, uint32_t cap) noexcept;

// Where each entity of a tick stands at `alpha` in (0, 1] between that tick (x0, y0, id0: n0
// entities) and the next (x1, y1 and its id map; `same_slots` when the next tick has the same
// ids in the same slots, so no lookup is needed): for an id in both ticks the float32 rounding
// of a + alpha * (b - a) computed in double (alpha = 1: b exactly); otherwise where it stood.
void frame_interpolate(const float* x0, const float* y0, const int64_t* id0, uint32_t n0, const float* x1,
                       const float* y1, const IdMap& map1, bool same_slots, double alpha, float* x,
                       float* y) noexcept;

}  // namespace soageo
