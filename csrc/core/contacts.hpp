// Contact events: which entity boxes began or stopped overlapping between two sweeps. Each
// update's pairs come from the sweep (sweep.hpp) as sorted rank keys; the previous update's
// keys and ids are kept, and one merge of the two sorted key lists gives the events.
#pragma once

#include <cstddef>
#include <cstdint>

#include "aoi.hpp"
#include "sweep.hpp"

namespace soageo {

// One update's pairs: keys rank_lo << 32 | rank_hi ascending, ranks into ids (ascending ids
// of the layer at that update). The pair buffer is the sweep's own: its keys are kept as they
// were ordered, so keeping an update costs no copy (two frames, used in turn).
struct ContactFrame {
    PairBuffer buf;
    int64_t* ids;
    // The layer by slot at that update: what the next update compares with to find the
    // entities that moved, changed radius or slot, or came and went.
    float *x, *y, *r;
    int64_t* id_at;
    uint64_t n;  // pairs
    uint32_t id_count, id_cap;
};

size_t contact_frame_bytes(uint64_t pair_cap, uint32_t id_cap) noexcept;
ContactFrame contact_frame_carve(void* block, uint64_t pair_cap, uint32_t id_cap) noexcept;

// Fills `now.ids` from the sweep's ranks (s.id_keys, n entities), then appends to began the
// pairs of `now` missing from `before` and to ended those of `before` missing from `now`,
// both as flat id pairs in ascending order. `remap` holds before.id_count entries of scratch.
// Events past a list's capacity are counted, not written: when began.n or ended.n ends above
// its cap, grow that list and diff again (the result does not depend on what was written).
void contacts_diff(const ContactFrame& before, ContactFrame& now, const uint64_t* id_keys, uint32_t n,
                   uint32_t* remap, EventList& began, EventList& ended) noexcept;

// Records the layer's columns in `now` (x, y, r, id by slot), for the next update.
void contacts_keep(const Store& st, ContactFrame& now) noexcept;

enum class ContactStep { full, done, need_pairs };

// The incremental path's grid: every box once, in bucket order, with its rank and whether it
// changed (top bit), packed so that a candidate costs one cache line, not six arrays.
struct ContactCell {
    float minx, maxx, miny, maxy;
    uint32_t rank_changed;
};

size_t contact_grid_bytes(uint32_t cap) noexcept;

// An update that costs what changed: when the layer holds the ids of the last update in the
// same slots, the ranks in `s` still describe them (`ranks_current`: the caller knows it, as
// no update failed after ranking since the last one committed) and at most a quarter of the entities
// changed (moved, or changed radius), only the changed ones are searched again (a grid of
// the layer's boxes, cells twice the largest radius), and the last pairs that involve none of
// them are kept as they are. Returns full when it does not apply (the caller sweeps);
// need_pairs with *need when now's buffer is too small; done with now's keys, ids and kept
// columns set and the events in began/ended (counted past their caps, as contacts_diff).
// `grid` holds contact_grid_bytes(grid_cap) bytes (kAlign-aligned); grid_cap < n: full.
ContactStep contacts_incremental(const Store& st, SweepScratch& s, bool ranks_current, const ContactFrame& before,
                                 ContactFrame& now, void* grid, uint32_t grid_cap, EventList& began, EventList& ended,
                                 uint64_t* need) noexcept;

// Who touches whom: the neighbours of the entity of rank r are nbr[off[r] .. off[r+1]), as
// ranks, ascending. Built from a frame on demand.
struct Touching {
    uint32_t* off;  // id_cap + 2
    uint32_t* nbr;  // 2 per pair
    uint32_t id_cap;
    uint64_t pair_cap;
};

size_t touching_bytes(uint32_t id_cap, uint64_t pair_cap) noexcept;
Touching touching_carve(void* block, uint32_t id_cap, uint64_t pair_cap) noexcept;
// Needs id_cap >= f.id_count and pair_cap >= f.n.
void touching_build(const ContactFrame& f, Touching& t) noexcept;

}  // namespace soageo
