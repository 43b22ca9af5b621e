#include "history.hpp"

#include <cstring>

#include "carve.hpp"

namespace soageo {

namespace {

FramePositions lay_positions(Carver& k, uint32_t cap) {
    return FramePositions{k.take_zeroed<float>(cap), k.take_zeroed<float>(cap)};
}
FrameShapes lay_shapes(Carver& k, uint32_t cap) {
    FrameShapes f;
    k.take_zeroed_each(cap, &f.r, &f.mask, &f.id);
    return f;
}
struct Scratch {
    uint32_t* hits;
    uint64_t* order;
};
Scratch lay_scratch(Carver& k, uint32_t cap) { return Scratch{k.take<uint32_t>(cap), k.take<uint64_t>(cap)}; }

template <class T>
void copy_zero_padded(T* to, const T* from, uint32_t n, uint32_t cap) noexcept {
    if (n) std::memcpy(to, from, size_t(n) * sizeof(T));  // an empty layer's columns may be null
    std::memset(to + n, 0, size_t(cap - n) * sizeof(T));
}

inline float lerp(float a, float b, double alpha) noexcept {
    if (alpha == 1.0) return b;
    return static_cast<float>(double(a) + alpha * (double(b) - double(a)));
}

}  // namespace

size_t frame_positions_bytes(uint32_t cap) noexcept { return layout_bytes(lay_positions, cap); }
size_t frame_shapes_bytes(uint32_t cap) noexcept { return layout_bytes(lay_shapes, cap); }
FramePositions frame_positions_carve(void* block, uint32_t cap) noexcept {
    return layout_carve(block, lay_positions, cap);
}
FrameShapes frame_shapes_carve(void* block, uint32_t cap) noexcept { return layout_carve(block, lay_shapes, cap); }
size_t frame_scratch_bytes(uint32_t cap) noexcept { return layout_bytes(lay_scratch, cap); }
void frame_scratch_carve(void* block, uint32_t cap, Columns& col) noexcept {
    const Scratch s = layout_carve(block, lay_scratch, cap);
    col.hits = s.hits;
    col.order = s.order;
}

void frame_copy_positions(const FramePositions& to, const Store& s, uint32_t cap) noexcept {
    copy_zero_padded(to.x, s.col.x, s.n, cap);
    copy_zero_padded(to.y, s.col.y, s.n, cap);
}

void frame_copy_shapes(const FrameShapes& to, const Store& s, uint32_t cap) noexcept {
    copy_zero_padded(to.r, s.col.r, s.n, cap);
    copy_zero_padded(to.mask, s.col.mask, s.n, cap);
    copy_zero_padded(to.id, s.col.id, s.n, cap);
}

void frame_interpolate(const float* x0, const float* y0, const int64_t* id0, uint32_t n0, const float* x1,
                       const float* y1, const IdMap& map1, bool same_slots, double alpha, float* x,
                       float* y) noexcept {
    if (same_slots) {
        for (uint32_t i = 0; i < n0; ++i) {
            x[i] = lerp(x0[i], x1[i], alpha);
            y[i] = lerp(y0[i], y1[i], alpha);
        }
        return;
    }
    for (uint32_t i = 0; i < n0; ++i) {
        if (i + 16 < n0) idmap_prefetch_find(map1, id0[i + 16]);
        const uint32_t j = idmap_find(map1, id0[i]);
        if (j == kNoSlot) {
            x[i] = x0[i];
            y[i] = y0[i];
        } else {
            x[i] = lerp(x0[i], x1[j], alpha);
            y[i] = lerp(y0[i], y1[j], alpha);
        }
    }
}

}  // namespace soageo
