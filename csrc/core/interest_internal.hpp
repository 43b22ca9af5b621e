// What interest.cpp and interest_select.cpp share inside the interest pass (interest.hpp is
// the pass's own interface): a watcher's last view, the cap's keys, the selection.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#include "interest.hpp"

namespace soageo {
namespace interest_detail {

// A capped watcher's edge when it counted no more candidates than its cap (it sees them all).
constexpr uint32_t kAllChosen = 0xffffffffu;

// What one affected watcher saw at the last update: its special list (interest.cpp's choose
// rebuilds one for a watcher that was not special).
struct OldView {
    const int64_t* target;      // null: none yet
    const uint32_t* deadline;   // its pairs' schedules (InterestLists' pair arrays)
    const uint32_t* period;
    const uint32_t* since;
    const uint32_t* pos;        // its pairs' positions then (InterestLists::pos)
    uint32_t n;
    uint32_t edge;              // the cap's boundary key then (ordered bits; 0: none)
    uint32_t pivot;             // the selection's next pivot (0: none)
    bool has(int64_t t) const noexcept {
        uint32_t lo = 0, hi = n;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (target[mid] < t) lo = mid + 1; else hi = mid;
        }
        return lo < n && target[lo] == t;
    }
};

// The order of float32 keys as unsigned integers (negative ones included).
inline uint32_t ordered_bits(float f) noexcept {
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b & 0x80000000u ? ~b : b | 0x80000000u;
}

// The cap's key of a counted candidate, as ordered bits: d2, or with a margin sqrt(d2), minus
// the margin for a target the watcher saw at the last update.
inline uint32_t cap_key(float d2, float margin, bool seen) noexcept {
    float key = d2;
    if (margin > 0) {
        key = std::sqrt(key);
        if (seen) key = key - margin;
    }
    return ordered_bits(key);
}

// Picks a capped watcher's view among its m candidates (m > opt.max): the always-seen and pinned
// ones, then the opt.max smallest keys. In the usual case (the key is the d2: no margin, no
// always-seen bits or pins) among at most kSelectLanesMost candidates, the kernels'
// interest_select counts each one's smaller d2 in lanes, unless a tie straddles the boundary.
// Else a partial selection on packed keys (pack_keys): the ties at the
// boundary key, rare, are then settled by d2 and id. The last update's pivot, a little above its
// boundary key, splits the keys first: the boundary moves little from one update to the next,
// so most often n or more keys are below it, a few more than n, and only those are selected
// from. Leaves the chosen indices first in s.order and returns their count.
uint32_t select_nearest(const InterestInput& in, InterestScratch& s, const InterestOptions& opt, int64_t w,
                        const uint32_t* list, uint32_t m, uint32_t seen, uint32_t* edge_out,
                        uint32_t* pivot_io) noexcept;

}  // namespace interest_detail
}  // namespace soageo
