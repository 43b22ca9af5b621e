#include "slot_changes.hpp"

#include <algorithm>

#include "invariant.hpp"

namespace soageo {
namespace {

struct SlotId {
    int64_t id;
    uint32_t slot;
};

inline bool by_id(const SlotId& a, const SlotId& b) noexcept { return a.id < b.id; }

constexpr uint32_t kMax = SlotChanges::kMax;

// The ids that left slots (was) and came to slots (is) between then[0, n_then) and now[0, n_now),
// matched by id: on one side only, removed or added; on both, relocated.
struct Differ {
    const int64_t* then;
    uint32_t n_then;
    const int64_t* now;
    uint32_t n_now;
    SlotId was[kMax], is[kMax];  // left uninitialised: only [0, n_was) and [0, n_is) are read
    uint32_t n_was = 0, n_is = 0;
    Differ(const int64_t* t, uint32_t nt, const int64_t* w, uint32_t nw) noexcept : then(t), n_then(nt), now(w), n_now(nw) {}

    // Records slot t, unless it kept its id; false past kMax a side.
    bool add(uint32_t t) noexcept {
        const bool in_then = t < n_then, in_now = t < n_now;
        if (in_then && in_now && then[t] == now[t]) return true;
        if (in_then) {
            if (n_was == kMax) return false;
            was[n_was++] = SlotId{then[t], t};
        }
        if (in_now) {
            if (n_is == kMax) return false;
            is[n_is++] = SlotId{now[t], t};
        }
        return true;
    }

    void match(SlotChanges& mc) noexcept {
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
    }
};

#if defined(SOAGEO_CHECKS)
bool same_changes(const SlotChanges& a, const SlotChanges& b) noexcept {
    return a.n_added == b.n_added && a.n_removed == b.n_removed && a.n_relocated == b.n_relocated &&
           std::equal(a.added_id, a.added_id + a.n_added, b.added_id) &&
           std::equal(a.added_slot, a.added_slot + a.n_added, b.added_slot) &&
           std::equal(a.removed_slot, a.removed_slot + a.n_removed, b.removed_slot) &&
           std::equal(a.from, a.from + a.n_relocated, b.from) && std::equal(a.to, a.to + a.n_relocated, b.to);
}
#endif

// The slots a feed's changes name, repeats included: at most two a change while the consumer is
// no further behind than the ring, and those between the two counts again (a clear names every
// slot it emptied, and is followed only when that is few).
constexpr uint32_t kMaxTouched = 3 * kMaxMembersBehind;

}  // namespace

bool feed_slot_changes(const Store& s, uint64_t seen, const int64_t* then, uint32_t n_then,
                       SlotChanges& mc) noexcept {
    if (!feed_holds(s.feed, seen)) return false;
    const int64_t* now = s.col.id;
    const uint32_t n_now = s.n;
    uint32_t touched[kMaxTouched];
    uint32_t k = 0;
    auto name = [&](uint32_t first, uint32_t end) {
        if (end - first > kMaxTouched - k) return false;
        for (uint32_t t = first; t < end; ++t) touched[k++] = t;
        return true;
    };
    for (uint64_t c = seen; c < s.feed.seq; ++c) {
        const MemberOp op = feed_at(s.feed, c);
        const bool named = op.slot == kMembersCleared ? name(0, op.last)
                           : op.last == kMemberAdded  ? name(op.slot, op.slot + 1)
                                                      : name(op.slot, op.slot + 1) && name(op.last, op.last + 1);
        if (!named) return false;
    }
    // Slots past either count changed: the feed names them too, and this holds the answer to
    // the full comparison's even for a cursor that did not describe `then` exactly.
    if (!name(std::min(n_then, n_now), std::max(n_then, n_now))) return false;
    std::sort(touched, touched + k);
    k = static_cast<uint32_t>(std::unique(touched, touched + k) - touched);
    Differ d(then, n_then, now, n_now);
    for (uint32_t q = 0; q < k; ++q)
        if (!d.add(touched[q])) return false;
    d.match(mc);
#if defined(SOAGEO_CHECKS)
    SlotChanges every;
    SOAGEO_ASSERT(find_slot_changes(then, n_then, now, n_now, every) && same_changes(mc, every));
#endif
    return true;
}

#if defined(SOAGEO_CHECKS)
bool find_slot_changes(const int64_t* then, uint32_t n_then, const int64_t* now, uint32_t n_now,
                       SlotChanges& mc) noexcept {
    Differ d(then, n_then, now, n_now);
    for (uint32_t t = 0; t < std::max(n_then, n_now); ++t)
        if (!d.add(t)) return false;
    d.match(mc);
    return true;
}
#endif

}  // namespace soageo
