#include "slot_changes.hpp"

#include <algorithm>
#include <cstring>

namespace soageo {
namespace {

struct SlotId {
    int64_t id;
    uint32_t slot;
};

inline bool by_id(const SlotId& a, const SlotId& b) noexcept { return a.id < b.id; }

constexpr uint32_t kMax = SlotChanges::kMax;

}  // namespace

bool find_slot_changes(const int64_t* then, uint32_t n_then, const int64_t* now, uint32_t n_now,
                       SlotChanges& mc) noexcept {
    const uint32_t common = std::min(n_now, n_then);
    SlotId was[kMax], is[kMax];
    uint32_t n_was = 0, n_is = 0;
    // Most slots keep their entity: runs of them are compared with memcmp, at memory speed.
    constexpr uint32_t kRun = 64;
    for (uint32_t first = 0; first < common; first += kRun) {
        const uint32_t last = std::min(common, first + kRun);
        if (std::memcmp(then + first, now + first, (last - first) * sizeof(int64_t)) == 0) continue;
        for (uint32_t i = first; i < last; ++i) {
            if (then[i] == now[i]) continue;
            if (n_was == kMax) return false;
            was[n_was++] = SlotId{then[i], i};
            is[n_is++] = SlotId{now[i], i};
        }
    }
    for (uint32_t i = common; i < n_then; ++i) {
        if (n_was == kMax) return false;
        was[n_was++] = SlotId{then[i], i};
    }
    for (uint32_t i = common; i < n_now; ++i) {
        if (n_is == kMax) return false;
        is[n_is++] = SlotId{now[i], i};
    }
    std::sort(was, was + n_was, by_id);
    std::sort(is, is + n_is, by_id);
    uint32_t i = 0, j = 0;
    while (i < n_was || j < n_is) {
        if (j == n_is || (i < n_was && was[i].id < is[j].id)) {
            mc.removed_slot[mc.n_removed++] = was[i++].slot;
        } else if (i == n_was || is[j].id < was[i].id) {
            mc.added_id[mc.n_added] = is[j].id;
            mc.added_slot[mc.n_added++] = is[j++].slot;
        } else {
            mc.from[mc.n_relocated] = was[i++].slot;
            mc.to[mc.n_relocated++] = is[j++].slot;
        }
    }
    return true;
}

}  // namespace soageo
