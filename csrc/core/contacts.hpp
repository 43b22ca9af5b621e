// Contact events: which entity boxes began or stopped overlapping between two updates, from
// one merge of the two updates' sorted rank keys (sweep.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "aoi.hpp"
#include "loose_grid.hpp"
#include "slot_changes.hpp"
#include "sweep.hpp"

namespace soageo {

// One update's pairs: keys rank_lo << 32 | rank_hi ascending, ranks into ids (ascending ids
// of the layer at that update). The pair buffer is the sweep's own: its keys are kept as they
// were ordered, so keeping an update costs no copy (two frames, used in turn).
struct ContactFrame {
    PairBuffer buf;
    int64_t* ids;
    // The layer by slot as a sweep saw it (contacts_keep), for ContactState once it commits.
    float *x, *y, *r;
    int64_t* id_at;
    uint64_t n;  // pairs
    uint64_t seq;  // the layer's feed seq then (store.hpp)
    uint32_t id_count, id_cap;
};

size_t contact_frame_bytes(uint64_t pair_cap, uint32_t id_cap) noexcept;
ContactFrame contact_frame_carve(void* block, uint64_t pair_cap, uint32_t id_cap) noexcept;

// Fills `now.ids` from the sweep's ranks (id_keys, n entities), then appends to began the pairs
// of `now` missing from `before` and to ended those of `before` missing from `now`, as id pairs
// ascending (`remap`: before.id_count entries of scratch). Past a list's cap, events are only
// counted: grow it and diff again.
void contacts_diff(const ContactFrame& before, ContactFrame& now, const uint64_t* id_keys, uint32_t n,
                   uint32_t* remap, EventList& began, EventList& ended) noexcept;

// Records the layer's columns in `now` (x, y, r, id by slot), for contacts_commit.
void contacts_keep(const Store& st, ContactFrame& now) noexcept;

enum class ContactStep { full, done, need_pairs };

// What the incremental path keeps (one block, cap entities), so that an update costs what
// moved (at 100,000 uniform entities, a grid of every box each update was over a quarter of
// it): the layer by slot as last committed, which change detection compares with, and a loose
// grid of the boxes filed by their min corner, as the search kernel's columns (ContactSearch).
struct ContactState {
    LooseGrid loose;
    float *x, *y, *r;
    int64_t* id_at;
    float *minx, *neg_maxx, *miny, *neg_maxy;  // by position, kMaxWidth entries of padding
    uint32_t* rank_changed;  // by position: the rank, top bit set while the box is a changed one
    uint32_t* hits;        // scratch: the search kernel's overlaps (cap + kMaxWidth)
    float* filed;          // by slot: the min corner (x, y) its box was filed under
    uint32_t* pos_of_slot;
    uint32_t* bucket_of_slot;  // = pos_of_slot: a build's bucket of each slot, until its scatter
    uint64_t* pos_bits;    // scratch: the movers' positions, one bit each
    uint64_t* rank_moved;  // scratch: the movers' ranks, one bit each
    uint32_t* mover;       // the slots the last update found changed (cap / 4 + 1)
    float *mx, *my, *mr;   // and their columns then, written to x, y, r by the commit
    // widest: at least the widest side of any box in the grid (exact when it was built, then
    // raised by the boxes written since), so that change detection need not measure every box.
    double side, widest;   // side: the cells'
    uint64_t builds;       // grids built (contacts:stats)
    uint64_t id_seen;      // the layer's feed seq when id_at last matched its ids (slot_changes.hpp)
    uint32_t movers, cap;
    bool kept;   // x, y, r, id_at hold the layer of the last committed update
    bool built;  // the grid holds the boxes of x, y, r, except at the slots mover[0, movers)
    // An uncommitted update patched adds and removes into x, y, r, id_at and the ranks: the
    // next update goes on from there while the layer has the same ids by slot, else it sweeps.
    bool renumbered;
    uint32_t renumbered_n;      // the layer's count then
    uint32_t n_added;           // the slots added then, to search as changed
    uint32_t added[SlotChanges::kMax];
};

size_t contact_state_bytes(uint32_t cap) noexcept;
// kept and built false: the next update sweeps.
ContactState contact_state_carve(void* block, uint32_t cap) noexcept;

// An update that costs what changed: when the ranks in `s` describe the last update's ids
// (`ranks_current`), with at least 2,048 entities of which at most a quarter changed (moved,
// changed radius or were added; at most kMaxMembersBehind adds and removes), only the changed
// ones are searched again. Returns full when it does not apply (the caller sweeps); need_pairs
// with *need when now's buffer is too small; done with now's keys and ids set and the events in
// began/ended (as contacts_diff). Then, once the update is committed, contacts_commit.
ContactStep contacts_incremental(const Store& st, SweepScratch& s, bool ranks_current, const ContactFrame& before,
                                 ContactFrame& now, ContactState& cs, const KernelTable& kernels, EventList& began,
                                 EventList& ended, uint64_t* need) noexcept;

// Brings `cs` to the update just committed: `incremental` (contacts_incremental gave done) or
// a sweep, whose columns contacts_keep recorded in `now`.
void contacts_commit(ContactState& cs, const ContactFrame& now, bool incremental) noexcept;

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
