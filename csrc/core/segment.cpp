#include "segment.hpp"

#include <algorithm>

namespace soageo {

void order_segment_hits(const Columns& col, const Segment& s, uint32_t k) noexcept {
    uint64_t* keys = col.order;
    for (uint32_t i = 0; i < k; ++i) {
        uint32_t slot = col.hits[i];
        // t is never negative (and never -0: it starts at +0 and only grows), so its IEEE bits
        // sort as unsigned integers in the same order as the values.
        keys[i] = (uint64_t(float_bits(segment_entry(s, col.x[slot], col.y[slot], col.r[slot]))) << 32) | slot;
    }
    std::sort(keys, keys + k);
    // Equal t: order by id instead of by slot.
    const int64_t* ids = col.id;
    for (uint32_t i = 0; i < k;) {
        uint32_t j = i + 1;
        while (j < k && (keys[j] >> 32) == (keys[i] >> 32)) ++j;
        if (j - i > 1)
            std::sort(keys + i, keys + j, [ids](uint64_t a, uint64_t b) { return ids[key_slot(a)] < ids[key_slot(b)]; });
        i = j;
    }
}

bool first_segment_hit(const Columns& col, const Segment& s, const uint32_t* slots, uint32_t k, uint32_t* slot,
                       float* t) noexcept {
    if (k == 0) return false;
    uint32_t best = slots[0];
    float best_t = segment_entry(s, col.x[best], col.y[best], col.r[best]);
    for (uint32_t i = 1; i < k; ++i) {
        uint32_t at = slots[i];
        float ti = segment_entry(s, col.x[at], col.y[at], col.r[at]);
        if (ti < best_t || (ti == best_t && col.id[at] < col.id[best])) {
            best = at;
            best_t = ti;
        }
    }
    *slot = best;
    *t = best_t;
    return true;
}

}  // namespace soageo
