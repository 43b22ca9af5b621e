// Which entities a layer gained and lost between two looks at its ids by slot, for the
// incremental AOI and contact updates: a remove moves the last slot's entity into the hole, so
// a few adds and removes change the ids of a few slots, and the others keep theirs.
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

// Compares ids by slot, then[0, n_then) against now[0, n_now). An id on both sides at other
// slots was relocated (a remove moved it, or it was removed and set again: the same id is the
// same entity to an incremental update, as to a full one). False when more than kMax slots
// changed on either side.
bool find_slot_changes(const int64_t* then, uint32_t n_then, const int64_t* now, uint32_t n_now,
                       SlotChanges& out) noexcept;

}  // namespace soageo
