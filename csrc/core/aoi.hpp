// Area of interest: which entities each watcher sees, and what changed since last update.
// A watcher sees a target (any other entity of the layer) when the float32 squared distance
// between centres is < view^2; once seen, until it is >= (view + margin)^2 (hysteresis).
// Squares and sums are float32 operations in a fixed order, as in the kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels.hpp"
#include "store.hpp"

namespace soageo {

// Watchers, sorted by id, with their view radius and filter: a watcher sees only entities
// whose layer mask shares a bit with its own (an entity with mask 0 is seen by nobody).
struct Watchers {
    int64_t* id;
    float* view;
    uint32_t* mask;
    uint32_t n, cap;
};

size_t watchers_bytes(uint32_t cap) noexcept;
Watchers watchers_carve(void* block, uint32_t cap) noexcept;
// Position of `id` in w (or where it would go); *found says whether it is there.
uint32_t watchers_find(const Watchers& w, int64_t id, bool* found) noexcept;
void watchers_insert(Watchers& w, uint32_t at, int64_t id, float view, uint32_t mask) noexcept;  // needs n < cap
void watchers_erase(Watchers& w, uint32_t at) noexcept;
void watchers_copy(Watchers& to, const Watchers& from) noexcept;

// The visible sets after an update: for watcher k (ids ascending), target[off[k] .. off[k+1])
// holds the positions (in that update's bucket order) of what it sees, in no particular
// order. Positions, not ids: the next update maps each old position to its new one with one
// array index, and a watcher's targets sit near each other in bucket order, so that mapping
// and the marks it leads to stay in a few cache lines.
struct Visible {
    int64_t* watcher;  // the watcher ids, ascending
    uint32_t* off;     // n + 1 offsets
    uint32_t* target;  // positions
    int64_t* ids;      // the layer's ids, ascending, at that update (ids[rank])
    uint32_t* rank_at; // rank of the entity at each position
    uint32_t n, watcher_cap, id_count, id_cap;
    uint64_t target_cap;
};

size_t visible_bytes(uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap) noexcept;
Visible visible_carve(void* block, uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap) noexcept;

// Who sees whom, inverted: the watchers (indices into Visible::watcher, ascending) that see
// the entity at position p are who[off[p] .. off[p+1]). Built from a Visible on demand, so an
// update that nobody asks "who sees me" of pays nothing for it. By position, not rank: a
// watcher's targets are near each other in bucket order, so the counting sort stays in cache.
struct Observers {
    uint32_t* off;  // id_count + 2 entries (one spare for the counting sort)
    uint32_t* who;
    uint32_t* pos_of_rank;
    uint32_t id_cap;
    uint64_t pair_cap;
};

size_t observers_bytes(uint32_t id_cap, uint64_t pair_cap) noexcept;
Observers observers_carve(void* block, uint32_t id_cap, uint64_t pair_cap) noexcept;
// Needs id_cap >= v.id_count and pair_cap >= v.off[v.n].
void observers_build(const Visible& v, Observers& o) noexcept;

// Per-update scratch sized for the layer: entities grouped by grid cell, id ranks, marks.
struct AoiScratch {
    float* xs;         // positions in bucket order
    float* ys;
    uint32_t* ms;      // layer masks in bucket order
    uint32_t* keys;    // bucket of each slot
    // The radix sorts' scratch (tmp_*) is free once sort_entities has ranked and bucketed the
    // entities; the watcher loop then keeps each watcher's enters and leaves in it, under the
    // names it uses (the same memory). `use` says which: the loop asserts it.
    uint32_t* tmp_keys;
    uint32_t* tmp_vals;
    uint64_t* id_keys;  // int_key of the ids, ascending: the id of each rank
    uint64_t* tmp_id_keys;
    uint32_t* watcher_enters;  // = tmp_keys: positions, then ranks, of one watcher's enters
    int64_t* watcher_leaves;   // = tmp_id_keys: ids of one watcher's leaves
    uint32_t* rank;    // slot -> rank
    uint32_t* slot_of_rank;
    uint32_t* rank_at_pos;  // rank of the entity at each bucket-order position
    uint32_t* mark;    // per position: 2 * stamp when the watcher saw it, 2 * stamp + 1 once in reach
    uint32_t* pos_of_rank;
    uint32_t* remap;   // last update's rank -> this update's rank (kNoSlot: removed)
    uint32_t* new_pos; // last update's position -> this update's position (kNoSlot: removed)
    uint32_t* start;   // buckets + 2 entries: start[b] is the first position of bucket b
    double cell, inv_cell;  // rows: cell height
    double inv_cell_x;      // cells within a row
    uint32_t buckets;   // a power of two
    uint32_t ranked_n;  // entities that rank, slot_of_rank and id_keys describe (kNoSlot: none)
    bool zero_masks;    // some entity has mask 0: even a watcher of every bit filters
    enum class Use : uint8_t { sorting, watchers } use;  // what tmp_* hold now (see above)
    uint32_t cap;       // entities of this update and of the last one, each at most cap
};

// Grid cells are this many times the median watcher's reach (view + margin): tall rows, so
// that a watcher scans few of them (one window each, its cells being consecutive buckets),
// and narrow cells, so that a window holds little beyond the reach.
constexpr double kCellHeightPerReach = 2.0;
constexpr double kCellWidthPerReach = 0.25;

size_t aoi_scratch_bytes(uint32_t cap) noexcept;
AoiScratch aoi_scratch_carve(void* block, uint32_t cap) noexcept;

// Flat (watcher, target) id pairs.
struct EventList {
    int64_t* pair;  // 2 per event
    uint64_t n, cap;
};

size_t events_bytes(uint64_t cap) noexcept;
EventList events_carve(void* block, uint64_t cap) noexcept;

// Progress of an update, so that it can stop when a buffer is full and resume once the
// caller (the binding, which owns the memory) has grown it.
struct AoiProgress {
    uint32_t cur = 0, prev = 0;  // next watcher in the current and the previous lists
    uint32_t rank = 0;           // merge position of the current watcher among the ids
    uint32_t stamp = 0;          // one per watcher processed
    bool prepared = false;
    bool same_ranks = false;     // the layer has the ids of the last update: ranks carry over
};

enum class AoiStatus { done, need_targets, need_enter, need_leave };

struct AoiInput {
    const Store* layer;
    const Watchers* watchers;
    const Visible* before;
    float margin;
    const KernelTable* kernels;
};

// Computes `after` from the layer and `before`, appending the differences to enter/leave.
// Returns done, or which buffer needs room for at least `*need` more entries.
AoiStatus aoi_update(const AoiInput& in, AoiScratch& s, Visible& after, EventList& enter, EventList& leave,
                     AoiProgress& p, uint64_t* need) noexcept;

}  // namespace soageo
