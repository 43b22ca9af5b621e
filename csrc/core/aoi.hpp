// Area of interest: which entities each watcher sees, and what changed since last update.
// A watcher sees a target (any other entity of the layer) when the float32 squared distance
// between centres (the kernels' order of operations) is < view^2; once seen, until it is
// >= (view + margin)^2 (hysteresis).
#pragma once

#include <cstddef>
#include <cstdint>

#include "invariant.hpp"
#include "kernels.hpp"
#include "loose_grid.hpp"
#include "store.hpp"

namespace soageo {

// Watchers, sorted by id, with their view radius and filter: a watcher sees only entities
// whose layer mask shares a bit with its own (an entity with mask 0 is seen by nobody). A capped
// watcher needs only its nearest: its list reaches `reach` (<= view), and with fewer than `floor`
// there a full update scans it again out to its view, an incremental one gives way to a full one
// (interest.cpp sets both; reach == view and floor 0 for every other watcher).
struct Watchers {
    int64_t* id;
    float* view;
    uint32_t* mask;
    float* reach;
    uint32_t* floor;
    uint32_t n, cap;
};

size_t watchers_bytes(uint32_t cap) noexcept;
Watchers watchers_carve(void* block, uint32_t cap) noexcept;
// Position of `id` in w (or where it would go); *found says whether it is there.
uint32_t watchers_find(const Watchers& w, int64_t id, bool* found) noexcept;
void watchers_insert(Watchers& w, uint32_t at, int64_t id, float view, uint32_t mask) noexcept;  // needs n < cap
void watchers_erase(Watchers& w, uint32_t at) noexcept;
void watchers_copy(Watchers& to, const Watchers& from) noexcept;

// The visible sets after an update: for watcher k (ids ascending), target[off[k] .. off[k] +
// len[k]) holds the positions (bucket order of the last full update) of what it sees, unordered,
// with room[k] >= len[k] entries reserved. Positions, not ids: the next full update maps each
// with one array index, and a watcher's targets lie near each other in bucket order (a few
// cache lines). The room lets an incremental update change a list in place.
struct Visible {
    int64_t* watcher;  // the watcher ids, ascending
    float* view;       // each watcher's view and mask at that update
    uint32_t* mask;
    uint32_t* pos;     // position of each watcher's entity (kNoSlot: none)
    uint32_t* off;
    uint32_t* len;
    uint32_t* room;
    uint32_t* target;  // positions
    int64_t* ids;      // the layer's ids, ascending, at that update (ids[rank])
    uint32_t* rank_at; // rank of the entity at each position (kNoSlot: an entity removed since
                       // the last full update, whose position stays until the next one)
    uint32_t n, watcher_cap, id_count, id_cap;
    uint32_t positions;  // entries of rank_at: id_count plus the removed ones (at most id_cap)
    uint64_t target_cap;
    uint64_t top;      // target[top ..] is unused
    uint64_t pairs;    // the sum of len
    bool narrowed;     // some list holds less than its watcher's view (Watchers::reach)
};

// Whether `now` holds the ids `before` held (both ascending), so that ranks carry over; else
// remap[r] gets the rank now of before's rank r (kNoSlot: gone). (The AOI's and the contacts'
// full updates.)
bool map_ranks(const int64_t* before, uint32_t n_before, const int64_t* now, uint32_t n, uint32_t* remap) noexcept;

// The room a list of m targets gets: enough for the few a static watcher gains in a tick.
inline uint32_t list_room(uint32_t m) noexcept { return m + m / 16 + 2; }

size_t visible_bytes(uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap) noexcept;
Visible visible_carve(void* block, uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap) noexcept;
// Copies every list and id of `from` (to's capacities must hold them).
void visible_copy(Visible& to, const Visible& from) noexcept;

// Who sees whom, inverted: the watchers (indices into Visible::watcher) that see the entity of
// rank r are who[off[r] .. off[r] + len[r]), ascending once observers_sort(o, r) has run, with
// room[r] >= len[r] reserved. Built on demand, then followed by each update's events
// (observers_apply). By rank: ranks last while the ids do, positions only until a full update.
struct Observers {
    uint32_t* off;
    uint32_t* len;
    uint32_t* room;
    uint32_t* who;
    uint8_t* unsorted;   // per rank: the list is out of order (observers_sort)
    uint64_t* sort;      // observers_apply's events by target, sort_cap at a time
    uint32_t* count;     // its counting sort (id_cap + 1)
    uint32_t id_cap, sort_cap;
    uint64_t pair_cap;
    uint64_t top;   // who[top ..] is unused
};

size_t observers_bytes(uint32_t id_cap, uint64_t pair_cap) noexcept;
Observers observers_carve(void* block, uint32_t id_cap, uint64_t pair_cap) noexcept;
// The pair_cap a build of v needs (every list with its room).
uint64_t observers_need(const Visible& v) noexcept;
// Needs id_cap >= v.id_count and pair_cap >= observers_need(v).
void observers_build(const Visible& v, Observers& o) noexcept;
// Puts the list of rank r in ascending order (it costs what is out of order).
void observers_sort(Observers& o, uint32_t r) noexcept;
// Applies an update's events, keys (watcher index << 32 | target rank) in any order, to lists
// built for the last update's visible lists, with the same `ids` (their count) and watchers as
// this update's. Returns false when a list outgrew its room and the free end is short: the
// lists are then unusable until the next observers_build.
bool observers_apply(Observers& o, uint32_t ids, const uint64_t* leave_keys, uint64_t n_leave,
                     const uint64_t* enter_keys, uint64_t n_enter) noexcept;

// How the updates ran (aoi:stats()): tests check from these that the cheap paths run.
struct AoiStats {
    uint64_t full = 0, incremental = 0;  // committed updates, by path
    uint64_t inversion_builds = 0;       // watchers_of built the inversion anew
    uint64_t inversion_follows = 0;      // an update applied its events to the inversion
    uint64_t narrowed = 0, widened = 0;  // AoiProgress's, summed
};

// Who sees me, for watchers_of: the inversion, built when asked (who_sees_me_ask), then
// followed by each commit; after kWhoSeesMeIdle commits without an ask, commits stop following
// it and the next ask builds it again. The caller carves `lists` (who_sees_me_room).
struct WhoSeesMe {
    Observers lists{};
    bool current = false;  // `lists` describe the committed visible lists
    uint32_t idle = 0;     // commits since the last ask, up to kWhoSeesMeIdle
};
constexpr uint32_t kWhoSeesMeIdle = 4;

// Whether the next commit will follow the inversion (the update then writes its events as keys).
inline bool who_sees_me_follows(const WhoSeesMe& w) noexcept { return w.current && w.idle < kWhoSeesMeIdle; }
// Before an ask: false when the lists are current or fit a build of v; else the capacities to
// carve them with.
bool who_sees_me_room(const WhoSeesMe& w, const Visible& v, uint32_t* id_cap, uint64_t* pair_cap) noexcept;
// Makes the lists describe v (the committed visible lists), building them when they do not.
void who_sees_me_ask(WhoSeesMe& w, const Visible& v, AoiStats* stats) noexcept;

// Per-update scratch sized for the layer: entities grouped by grid cell, id ranks, marks.
struct AoiScratch {
    float* xs;         // positions in bucket order
    float* ys;
    uint32_t* ms;      // layer masks in bucket order
    uint32_t* keys;    // bucket of each slot
    // The radix sorts' scratch (tmp_*), free once sort_entities has ranked and bucketed the
    // entities, then holds the watcher loop's enters and leaves under its names; `use` says which.
    uint32_t* tmp_keys;
    uint32_t* tmp_vals;
    uint64_t* id_keys;  // int_key of the ids, ascending: the id of each rank
    uint64_t* tmp_id_keys;
    uint32_t* watcher_enters;  // = tmp_keys: positions, then ranks, of one watcher's enters
    uint32_t* watcher_leaves;  // = tmp_vals: ranks (the last update's) of one watcher's leaves
    int64_t* merged_ids;       // = tmp_id_keys: the ids after an incremental update's members
    uint32_t* rank;    // slot -> rank
    uint32_t* slot_of_rank;
    uint32_t* rank_at_pos;  // rank of the entity at each bucket-order position
    uint32_t* mark;    // per position: 2 * stamp when the watcher saw it, 2 * stamp + 1 once in reach
    uint32_t* pos_of_rank;
    uint32_t* remap;   // last update's rank -> this update's rank (kNoSlot: removed), full or incremental
    uint32_t* new_pos; // last update's position -> this update's position (kNoSlot: removed)
    uint32_t* pos_of_slot;
    // The incremental update keeps the last full update's bucket order and positions, and
    // updates xs, ys and ms in place; sx, sy: where each slot's entity was bucketed (the drift).
    float* sx;
    float* sy;
    // The layer by slot as the scratch has it: the incremental update finds what changed in
    // one sequential pass over the layer and these.
    float* slot_x;
    float* slot_y;
    uint32_t* slot_mask;
    int64_t* slot_id;
    uint64_t slot_id_seen;  // the layer's feed seq when slot_id last matched its ids (slot_changes.hpp)
    // The watcher at each position as of the last update (kNoSlot: none), its squared view and
    // reach (-1 for none, and for one wider than a cell, rescanned instead) and its mask.
    uint32_t* watcher_at;
    float* view_squared;
    float* reach_squared;
    uint32_t* watcher_mask;
    uint32_t* changed;  // per position: serial of the update where it changed (moved, mask, view)
    uint32_t* moved;    // positions of the entities that changed, and where they were
    float* old_x;
    float* old_y;
    uint32_t* old_m;
    uint32_t* redo;     // watchers rescanned whole: index k, and their new lists in the log
    uint32_t* redo_at;
    uint32_t* redo_len;
    uint32_t* hits;     // the movers' scan output
    uint32_t* seen;     // per position: the mover search that last settled it (seen_stamp)
    // xs, ys, ms as of the last update, and a moved watcher's leaves: with no margin its rescan
    // recomputes what it saw from these instead of reading its last list (AoiWindow::ox).
    float* last_xs;
    float* last_ys;
    uint32_t* last_ms;
    uint32_t* gone;
    // The incremental path's names for memory free at that step (set where the block is carved):
    uint32_t* removed_pos;  // = gone: where the removed entities were (patch_members), until the rescans
    uint32_t* mover_order;  // = keys: the movers and rescanned watchers in position order
    uint32_t* changed_at;   // = hits: the positions that changed, until the movers' scan
    uint8_t* searched;      // = tmp_vals: per mover, whether its rescan searched it
    double reach_max;   // the largest reach of a watcher met by the movers' scan
    uint32_t serial;    // one per incremental update
    uint32_t mark_stamp;  // every mark is below 2 * mark_stamp + 2 (the incremental update goes on from there)
    uint32_t seen_stamp;  // every entry of seen is at most this (cleared after each full update)
    uint32_t n_redo;
    const uint32_t* lists;  // the full path's: the targets of the lists it writes (AoiInput::distances)
    bool synced;        // the above describe the committed visible lists (set by aoi_commit)
    bool fresh;         // a full update bucketed the entities: sx, sy, watcher_at.. still to be built
    bool any_wide;      // some watcher placed since is wider than a cell (rescanned when anything moves)
    // Adds, removes, watch and unwatch patched into the incremental update (aoi_members.cpp).
    struct Members {
        // Per update, added or removed (as SlotChanges), watched or unwatched; more: a full update.
        static constexpr uint32_t kMax = kMaxMembersBehind;
        int64_t added_id[kMax];        // ascending
        uint32_t added_at[kMax];       // how many of the last update's ids are below each
        uint32_t removed_rank[kMax];   // the last update's ranks, ascending
        uint32_t gone_watcher[kMax];   // watchers whose entity was removed
        uint32_t n_added, n_removed, n_gone;
        uint32_t ids_before;           // the last update's id count
        // Watch and unwatch: until the commit, a new watcher i has the index watchers_before + i
        // (past the last update's), in ascending id order; unwatched ones keep theirs.
        int64_t new_watcher[kMax];     // ascending ids
        uint32_t new_watcher_at[kMax]; // how many of the last update's watchers are below each
        uint32_t unwatched[kMax];      // the last update's indices, ascending
        uint32_t n_new_watchers, n_unwatched;
        uint32_t watchers_before;      // the last update's watcher count
        uint32_t positions_before;     // the last update's positions
        bool layer_changed;            // patch_members ran: commit_incremental ranks the ids anew
        bool watchers_changed() const noexcept { return n_new_watchers || n_unwatched; }
    } members;
    // The loose grid (loose_grid.hpp): the last full update's entities in its buckets, the
    // added after them, the removed dead (mask 0). Rows of `cell`, cells narrower (inv_cell_x).
    LooseGrid loose;
    double cell;
    uint32_t ranked_n;  // entities that rank, slot_of_rank and id_keys describe (kNoSlot: none)
    bool zero_masks;    // some entity has mask 0: even a watcher of every bit filters
    enum class Use : uint8_t { sorting, watchers } use;  // what tmp_* hold now (see above)
    uint32_t cap;       // entities of this update and of the last one, each at most cap
};

// The largest stamp whose marks (2 * stamp, 2 * stamp + 1) fit in 32 bits: past it the marks
// are cleared and the stamps start again.
constexpr uint32_t kMaxMarkStamp = 0x7fffffffu;

// Grid cells are this many times the median watcher's reach: tall rows, so that a watcher
// scans few windows (a row's cells are consecutive buckets), narrow cells, so that a window
// holds little beyond the reach.
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

inline void push_event(EventList& e, int64_t watcher, int64_t target) noexcept {
    SOAGEO_ASSERT(e.n < e.cap);
    e.pair[2 * e.n] = watcher;
    e.pair[2 * e.n + 1] = target;
    ++e.n;
}

// Progress of an update, so that it can stop when a buffer is full and resume once the
// caller (who owns the memory) has grown it.
struct AoiProgress {
    bool tried_incremental = false;
    bool incremental = false;    // the update took the incremental path: aoi_commit applies it
    uint64_t* enter_keys = nullptr;  // (watcher index << 32 | target rank), sorted, for aoi_commit
    uint64_t* leave_keys = nullptr;
    uint64_t n_enter = 0, n_leave = 0;
    uint32_t cur = 0, prev = 0;  // next watcher in the current and the previous lists
    uint32_t rank = 0;           // merge position of the current watcher among the ids
    uint32_t stamp = 0;          // one per watcher processed
    bool prepared = false;
    bool same_ranks = false;     // the layer has the ids of the last update: ranks carry over
    bool members = false;        // the incremental path patched members in: its keys renumber
    // Asked by the caller (who keeps observers): the full path also writes its events as keys
    // (enter_keys/leave_keys, unordered) at the end of the event buffers, while the ids and
    // watchers are the last update's and the buffers hold both (else `keys` ends false).
    bool keys = false;
    // Asked by the caller when nothing follows the uncapped events ("who sees me" does not): a
    // watcher with a floor then gets none from the full path (the interest pass writes its own).
    bool quiet_floors = false;
    // Watchers scanned short of their views (Watchers::reach); those the full path scanned again
    // out to their views, having met fewer than their floor.
    uint32_t narrowed = 0, widened = 0;
};

enum class AoiStatus { done, need_targets, need_enter, need_leave };

struct AoiInput {
    const Store* layer;
    const Watchers* watchers;
    const Visible* before;
    float margin;
    const KernelTable* kernels;
    bool watchers_same = false;  // no watch or unwatch since the last committed update
    AoiStats* stats = nullptr;   // counted by aoi_commit when given
    WhoSeesMe* who = nullptr;    // followed by aoi_commit when given (who_sees_me_follows)
    bool narrowing = false;      // some watcher's reach is short of its view (Watchers::reach)
    // When given (at least after.target_cap entries): the full path writes each list's d2 at the
    // list's own indices (Visible::off), for the interest pass; the incremental path does not.
    float* distances = nullptr;
};

// Computes what the watchers see now from the layer and `before`, appending the differences
// to enter/leave. Returns done, or which buffer needs room for at least `*need` more entries.
// Two paths, with the same events: the full one writes the new lists into `after`; when little
// changed (and the scratch still describes the last update), the incremental one visits only
// what changed and their neighbours, for aoi_commit to change `before` in place (`after`: its
// log). Nothing the caller sees as committed changes until aoi_commit.
AoiStatus aoi_update(const AoiInput& in, AoiScratch& s, Visible& after, EventList& enter, EventList& leave,
                     AoiProgress& p, uint64_t* need) noexcept;

// Once the events are delivered: makes the update current. Returns the index (0 or 1) of the
// current visible lists in `visible`, given the index `current` they had.
int aoi_commit(const AoiInput& in, AoiScratch& s, Visible* visible, int current, const AoiProgress& p) noexcept;

}  // namespace soageo
