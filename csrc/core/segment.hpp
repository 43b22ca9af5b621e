// Ordering the hits of a segment cast: by entry parameter t, then by id.
#pragma once

#include "kernels.hpp"
#include "store.hpp"

namespace soageo {

// Sorts col.hits[0..k) (slots found by cast_segment) into col.order as keys
// (bits of t) << 32 | slot, ordered by t then id. No allocation: std::sort works in place.
void order_segment_hits(const Columns& col, const Segment& s, uint32_t k) noexcept;

inline uint32_t key_slot(uint64_t key) noexcept { return static_cast<uint32_t>(key); }
inline float key_t(uint64_t key) noexcept { return bits_float(static_cast<uint32_t>(key >> 32)); }

// The nearest of the hits slots[0..k) (smallest t, then smallest id); false when k == 0.
bool first_segment_hit(const Columns& col, const Segment& s, const uint32_t* slots, uint32_t k, uint32_t* slot,
                       float* t) noexcept;

}  // namespace soageo
