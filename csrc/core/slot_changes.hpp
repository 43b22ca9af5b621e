// Which entities a layer gained and lost since a consumer (an aoi, a contacts) last looked at
// its ids by slot, for the incremental AOI and contact updates: a remove moves the last slot's
// entity into the hole, so a few adds and removes change the ids of a few slots, and the
// store's change feed (store.hpp) names them.
#pragma once

#include <cstdint>

#include "store.hpp"

namespace soageo {

struct SlotChanges {
    static constexpr uint32_t kMax = kMaxMembersBehind;  // slots whose id changed, per side; more: not found
    int64_t added_id[kMax];     // ascending
    uint32_t added_slot[kMax];
    uint32_t removed_slot[kMax];  // in `then`
    uint32_t from[kMax], to[kMax];  // relocated: the slot in `then`, the slot in `now`
    uint32_t n_added = 0, n_removed = 0, n_relocated = 0;
    bool any() const noexcept { return n_added || n_removed || n_relocated; }
};

// `then` holds the layer's ids by slot [0, n_then) as they were when its feed's seq was `seen`
// (the consumer's cursor). Compares, with the layer's ids now, only the slots the feed's changes
// since name: an id on both sides at other slots was relocated (a remove moved it, or it was
// removed and set again: the same id is the same entity to an incremental update, as to a full
// one). False when the feed no longer holds those changes (the consumer fell more than
// kMaxMembersBehind behind) or more than kMax slots changed on either side: the full path then.
bool feed_slot_changes(const Store& s, uint64_t seen, const int64_t* then, uint32_t n_then, SlotChanges& out) noexcept;

#if defined(SOAGEO_CHECKS)
// The same by comparing every slot, then[0, n_then) against now[0, n_now): what the checked
// builds hold the feed's answer to, and the core tests' reference (the module has no use for it).
bool find_slot_changes(const int64_t* then, uint32_t n_then, const int64_t* now, uint32_t n_now,
                       SlotChanges& out) noexcept;
#endif

}  // namespace soageo
