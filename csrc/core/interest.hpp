// Interest management on top of the AOI: views capped to the nearest targets (with targets that
// are always seen and pinned ones), and a schedule of which visible pairs are due an update.
// The AOI computes every watcher's uncapped view; the watchers given options ("special"
// watchers) then go through interest_update, a pass over their candidates only: an aoi
// without them pays nothing for it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "aoi.hpp"
#include "kernels.hpp"
#include "store.hpp"

namespace soageo {

struct InterestOptions {
    uint32_t max;         // 0: uncapped
    uint32_t always;      // layer-mask bits seen beyond the cap
    uint32_t max_period;  // >= 1
    uint32_t budget;      // 0: none
    double band;          // 0: no band (every pair has period 1)
};

// Watchers with options, ids ascending.
struct Specials {
    int64_t* id;
    InterestOptions* opt;
    uint8_t* dirty;  // options or pins changed since the last update
    uint32_t n, cap;
};

size_t specials_bytes(uint32_t cap) noexcept;
Specials specials_carve(void* block, uint32_t cap) noexcept;
void specials_copy(Specials& to, const Specials& from) noexcept;
uint32_t specials_find(const Specials& s, int64_t id, bool* found) noexcept;
void specials_insert(Specials& s, uint32_t at, int64_t id, const InterestOptions& o) noexcept;  // needs n < cap
void specials_erase(Specials& s, uint32_t at) noexcept;

// Pinned (watcher, target) pairs, ascending.
struct Pin {
    int64_t watcher, target;
    bool operator<(const Pin& o) const noexcept {
        return watcher != o.watcher ? watcher < o.watcher : target < o.target;
    }
};
struct Pins {
    Pin* pin;
    uint32_t n, cap;
};

size_t pins_bytes(uint32_t cap) noexcept;
Pins pins_carve(void* block, uint32_t cap) noexcept;
void pins_copy(Pins& to, const Pins& from) noexcept;
uint32_t pins_find(const Pins& p, int64_t w, int64_t t, bool* found) noexcept;
bool pins_has_watcher(const Pins& p, int64_t w) noexcept;
void pins_insert(Pins& p, uint32_t at, int64_t w, int64_t t) noexcept;  // needs n < cap
void pins_erase(Pins& p, uint32_t at) noexcept;
// Removes every pin of watcher w; returns how many.
uint32_t pins_drop_watcher(Pins& p, int64_t w) noexcept;

// A special watcher's visible pairs are kept in arrays of their own (InterestLists): each pair's
// target, its schedule and its target's position. A deadline is the update it is due at (or
// after, with a budget), as the low 32 bits of the update's number: deadlines lie within 2^31
// of the update (periods are at most kMaxPeriod, and a budget's wait is bounded by the view), so
// they are compared by their int32 difference. `since` is the deadline minus the update that last
// listed the pair (0: never listed).
constexpr uint32_t kMaxPeriod = 1u << 30;   // longer periods count as this one
inline bool deadline_due(uint32_t deadline, uint32_t tick) noexcept { return int32_t(deadline - tick) <= 0; }

// The special watchers' views after an update: watcher k's pairs are [off[k], off[k] + len[k]),
// targets ascending. The pair arrays hold pair_cap + kMaxWidth entries: the kernels'
// interest_schedule reads and writes whole blocks past a list's end.
struct InterestLists {
    int64_t* watcher;  // ascending
    uint32_t* off;
    uint32_t* len;
    uint32_t* edge;    // a capped watcher's boundary key (interest.cpp)
    uint32_t* pivot;   // and its next selection's pivot
    uint32_t* due_len; // watcher k's due targets are due[off[k] .. + due_len[k]), ascending
    float* reach;      // how far its list need reach at the next update (0: its whole view): interest_narrow
    int64_t* target;
    uint32_t* deadline;
    uint32_t* period;  // at most kMaxPeriod
    uint32_t* since;
    uint32_t* pos;     // each pair's target's position (Visible::target) at the update that
                       // wrote it: the next update maps it to its own (InterestInput::new_pos)
    int64_t* due;
    uint32_t n, watcher_cap;
    uint64_t pairs, pair_cap;
};

size_t interest_lists_bytes(uint32_t watcher_cap, uint64_t pair_cap) noexcept;
InterestLists interest_lists_carve(void* block, uint32_t watcher_cap, uint64_t pair_cap) noexcept;
// The targets of watcher `id`'s pairs (null when it has none), *n their count.
const int64_t* interest_find(const InterestLists& l, int64_t id, uint32_t* n) noexcept;

// Whether special watcher w's list (if it has one) holds target t; true when w has none.
bool interest_sees(const InterestLists& l, int64_t w, int64_t t) noexcept;

// Per-update working memory, for one watcher's candidates at a time.
struct InterestScratch {
    float* d2;
    // The candidates' d2 of the watcher being chosen: s.d2, or where the AOI handed them on
    // (InterestInput::distances); either is readable kMaxWidth past the count.
    const float* candidate_d2;
    uint32_t* order;
    uint32_t* count;   // the schedule's counts by offset
    uint64_t* packed;  // the selection's keys
    uint64_t* sel;     // the chosen, by id: rank << 32 | candidate (a last uncapped view's
                       // targets: rank << 32 | position)
    uint32_t* rank;    // try_keep: each mover's pair
    float* pair_d2;    // d2 of each pair of the watcher's new list (its period; a budget's order)
    uint32_t* due_at;  // the kernels' interest_schedule: the due pairs' indices, and the first listings'
    uint32_t* first_at;
    // A watcher's view at the last update, when it was not special then (pairs new to the
    // schedule, so that choose keeps each pair one way): as InterestLists' pair arrays.
    int64_t* old_target;
    uint32_t* old_deadline;
    uint32_t* old_period;
    uint32_t* old_since;
    // By position (the AOI's bucket order, where a watcher's targets lie near each other):
    // tag[q] >> 32 is `stamp` when the watcher's last view held q, and its low half the index of
    // q's pair in the last view (tag_mark, tag_index: one load where two arrays took two cache
    // lines); old_pos: the position now of each pair of the last view (kNoSlot: its entity is
    // gone).
    uint64_t* tag;
    uint32_t* old_pos;
    float* old_d2;     // each pair of the last view: its d2 now once chosen again, else -1 (no d2
                       // is negative), so that the merge reads its pairs in order, not their tags
    uint32_t stamp;    // a watcher's mark (it advances by 2); every mark is at most stamp
    uint32_t cap;      // candidates (and old pairs, and positions) it holds; the arrays other
                       // than tag hold kMaxWidth more (the kernels' blocks)
};

inline uint64_t make_tag(uint32_t mark, uint32_t index) noexcept { return uint64_t(mark) << 32 | index; }
inline uint32_t tag_mark(uint64_t tag) noexcept { return uint32_t(tag >> 32); }
inline uint32_t tag_index(uint64_t tag) noexcept { return uint32_t(tag); }

size_t interest_scratch_bytes(uint32_t cap) noexcept;
InterestScratch interest_scratch_carve(void* block, uint32_t cap) noexcept;

// The number of an aoi's first update. The schedule keeps deadlines as an update's low 32 bits,
// compared by their int32 difference; starting 16 updates short of 2^32 (as Linux starts its
// jiffies short of their wrap) puts the wrap into the first updates of every aoi, so that every
// spec, fuzz run and example that ticks one 16 times or more crosses it.
constexpr uint64_t kFirstUpdate = 0x100000000ull - 16;

struct InterestInput {
    const Visible* visible;     // committed: this update's uncapped lists
    const float* xs;            // the AOI scratch's positions and masks by list position
    const float* ys;
    const uint32_t* ms;
    const EventList* enter;     // the AOI's events of this update (uncapped)
    const EventList* leave;
    const Specials* specials;
    const Pins* pins;
    const InterestLists* before;
    float margin;
    uint64_t tick;              // this update's number (the schedule's u), from kFirstUpdate
    // After an incremental update: the AOI scratch's marks of what changed (changed[pos] ==
    // serial); null after a full one.
    const uint32_t* changed;
    uint32_t serial;
    // After a full update: each position of the last update -> its position now (kNoSlot: the
    // entity is gone). Null after an incremental update, which keeps the positions.
    const uint32_t* new_pos;
    const KernelTable* kernels;
    // After a full update that was given AoiInput::distances: the d2 of every list's targets,
    // by list index, as the AOI's scans computed them; null otherwise (the pass computes them).
    const float* distances = nullptr;
};

// Bounds the caller sizes the outputs with before the AOI commits: the special watchers'
// pairs after the update (at most their uncapped lists) and the events it may write.
struct InterestNeed {
    uint32_t watchers;
    uint64_t pairs;
    uint64_t enter, leave;
    uint32_t scratch;
};
// `v_before` and the events are the uncommitted update's: the bound of each special watcher's
// new list is its last list plus its enters, or its cap. `positions`: at least the layer's entities and
// this update's positions (the marks are by position).
InterestNeed interest_need(const Visible& v_before, const EventList& enter, const EventList& leave,
                           const Specials& sp, const Pins& pins, const InterestLists& before,
                           uint32_t positions) noexcept;

// Rewrites the AOI's events for the special watchers (and those special at the last update)
// into enter_out / leave_out, sorted like them, and writes their views and schedules to `after`.
// The outputs have the room interest_need asked for.
// Returns how many special watchers kept their view as it was (the rest chose it anew).
uint32_t interest_update(const InterestInput& in, InterestScratch& s, InterestLists& after, EventList& enter_out,
                         EventList& leave_out) noexcept;

// A pair's period: min(max_period, 1 + k), k the largest integer with (k * band)^2 <= d2.
uint32_t interest_period(const InterestOptions& o, float d2) noexcept;

// The first index q in [from, n) where below(q) is false (n if none), below being true then
// false along the range: from `from` by doubling steps, then by halves. Most often the answer is
// `from` or just past it (a merge of two sorted lists, most ids in both), where a binary search
// over the whole range would cost its log each time, and a linear walk the whole range when few
// are.
template <class Index, class Below>
inline Index gallop(Index from, Index n, Below below) noexcept {
    if (from >= n || !below(from)) return from;
    Index lo = from, step = 1;  // below(lo) holds
    while (step < n - lo && below(lo + step)) {
        lo += step;
        step = step > (n - lo) / 2 ? n - lo : 2 * step;  // no overflow: at most what is left
    }
    Index hi = step < n - lo ? lo + step : n;  // !below(hi), or hi == n
    while (hi - lo > 1) {
        const Index mid = lo + (hi - lo) / 2;
        if (below(mid)) lo = mid; else hi = mid;
    }
    return hi;
}

// After an update: the reach and floor (aoi.hpp, Watchers) of every watcher, for the next
// update. A capped watcher in an aoi without a margin, with neither always-seen bits nor pins,
// needs kReachOverNearest times the distance of its farthest chosen target, when that is at most
// kNarrowBelow of its view: its reach is set kReachHeadroom above that (one already set stays
// while within kReachSlack of it); its floor is its cap. Every other watcher reaches its view.
struct Narrowed {
    bool changed;  // some reach changed (the next update compares every watcher's)
    bool any;      // some reach is short of its view (AoiInput::narrowing)
};
Narrowed interest_narrow(const InterestLists& l, Watchers& w) noexcept;
// The nearest a capped watcher needs move a little between updates: the reach leaves them room.
// Narrowing pays in the uniform scene of bench/bench_interest_lua.lua too (a cap of half the
// view); kReachOverNearest 1.05 with kReachHeadroom 1.03 sent more watchers to a second scan
// and incremental updates to the full path: slower in the crowded and tenth-moving scenes.
// The first update that narrows a list writes a leave for everything past its reach.
constexpr double kReachOverNearest = 1.12;
constexpr double kNarrowBelow = 0.95;
constexpr double kReachSlack = 1.25;  // a narrowed reach stays while within this of the one needed
constexpr double kReachHeadroom = 1.05;  // and is set this far above it, so that it may shrink or grow
// A reach past the view would put targets beyond it in the list.
static_assert(kNarrowBelow * kReachHeadroom < 1.0, "a narrowed reach stays inside the view");

}  // namespace soageo
