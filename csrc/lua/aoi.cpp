// soageo.aoi(layer [, {margin = m}]): watchers, and enter/leave events on every update.
// The class follows liolib's pattern; all memory lives in user values (Lua-allocated).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "../core/aoi.hpp"
#include "../core/interest.hpp"
#include "binding.hpp"
#include "event_object.hpp"

namespace soageo {
namespace lua {
namespace {

// User values of an aoi object.
enum : int {
    kLayerOf = kEventLayer, kWatchersBlock, kVisibleA, kVisibleB, kScratchBlock, kEnterBlock, kLeaveBlock, kObserversBlock,
    // Interest management (interest_reserve, pin): blocks made on first use.
    kSpecialsBlock, kPinsBlock, kInterestA, kInterestB, kInterestScratchBlock, kFinalEnterBlock, kFinalLeaveBlock,
    kDistancesBlock, kAoiValues = kDistancesBlock
};

struct Aoi {
    EventHead head;
    Watchers watchers;
    Visible visible[2];  // visible[current]: what watchers saw after the last update
    int current;
    AoiScratch scratch;
    EventList enter, leave;
    WhoSeesMe who;           // visible[current] inverted, for watchers_of; built on demand
    uint64_t enter_recent, leave_recent;  // decaying peaks of the event counts (shrinking)
    float margin;
    bool watchers_touched;   // watch or unwatch called, or a reach changed, since the last committed update
    AoiStats stats;          // aoi:stats()
    // Interest management: watchers with options, pins, and the special watchers' views and
    // schedules (interest[interest_current]: as of the last update, tick `tick`).
    Specials specials;
    Pins pins;
    InterestLists interest[2];
    int interest_current;
    InterestScratch interest_scratch;
    EventList final_enter, final_leave;  // the events once the special watchers' are rewritten
    uint64_t tick;
    uint64_t interest_chosen, interest_kept;  // aoi:stats(): special watchers' views by path
    bool narrowing;  // some watcher's reach is short of its view (interest_narrow)
    float* distances;  // AoiInput::distances, as long as the lists' targets when in use
    uint64_t distances_cap;
};
static_assert(std::is_standard_layout<Aoi>::value && offsetof(Aoi, head) == 0, "event_object.hpp reaches the head");

const EventClass kAoi = {"soageo.aoi", "aoi", "the aoi's layer is closed", "leave must be another table than enter",
                         sizeof(Aoi), kAoiValues};

Aoi* check_aoi(lua_State* L, int idx) { return static_cast<Aoi*>(event_check(L, idx, kAoi)); }

void close_aoi(lua_State* L, int idx) { event_close_at(L, idx, kAoi); }

void hold_aoi(Held* h, lua_State* L, Aoi* a) { event_hold(h, L, &a->head, close_aoi); }

void grow_watchers(lua_State* L, Held* h, Aoi* a, uint32_t cap) {
    Watchers w = watchers_carve(event_block(L, h, kWatchersBlock, watchers_bytes(cap)), cap);
    watchers_copy(w, a->watchers);
    a->watchers = w;
    lua_pop(L, 1);
}

void grow_visible(lua_State* L, Held* h, Aoi* a, int which, uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap,
                  bool keep) {
    void* block = event_block(L, h, which == 0 ? kVisibleA : kVisibleB, visible_bytes(watcher_cap, target_cap, id_cap));
    Visible& old = a->visible[which];
    Visible v = visible_carve(block, watcher_cap, target_cap, id_cap);
    if (keep) visible_copy(v, old);
    old = v;
    lua_pop(L, 1);
}

// The lists' d2 the full path hands the interest pass (AoiInput::distances), keeping the first
// `keep`: as long as the targets they lie beside.
void grow_distances(lua_State* L, Held* h, Aoi* a, uint64_t cap, uint64_t keep) {
    auto* d = static_cast<float*>(event_block(L, h, kDistancesBlock, cap * sizeof(float)));
    if (keep) std::memcpy(d, a->distances, keep * sizeof(float));
    a->distances = d, a->distances_cap = cap;
    lua_pop(L, 1);
}

// Whether this update's scans hand their d2 on: when at least one watcher in kHandDistancesOneIn
// is special. Every scan then pays a compress and a store a block of candidates, a few
// instructions, and each special watcher saves a couple of hundred (computing them again from
// the positions): below that share the other watchers would pay more than the special ones
// save. The mixed scenes of bench/bench_interest_lua.lua (1 in 100) stay below it.
constexpr uint64_t kHandDistancesOneIn = 8;
bool hand_distances(const Aoi* a) {
    return a->specials.n && kHandDistancesOneIn * a->specials.n >= a->watchers.n;
}

Layer* layer_of(lua_State* L, int aoi_idx) { return event_layer(L, aoi_idx, kAoi); }

// soageo.aoi(layer [, {margin = m}])
int l_new(lua_State* L) {
    check_writable_layer(L, 1);
    float margin = 0.0f;
    static const char* const options[] = {"margin", nullptr};
    if (check_options(L, 2, options)) {
        lua_getfield(L, 2, "margin");
        if (!lua_isnil(L, -1)) {
            const double m = table_number(L, -1);
            if (!valid_radius(m)) luaL_argerror(L, 2, "margin must be finite and >= 0");
            margin = static_cast<float>(m);
        }
        lua_pop(L, 1);
    }
    auto* a = static_cast<Aoi*>(event_new(L, kAoi));
    a->margin = margin;
    a->tick = kFirstUpdate - 1;  // interest_apply numbers each update before it runs
    a->watchers = watchers_carve(event_first_block(L, kWatchersBlock, watchers_bytes(16)), 16);
    a->visible[0] = visible_carve(event_first_block(L, kVisibleA, visible_bytes(16, 1024, 64)), 16, 1024, 64);
    a->visible[1] = visible_carve(event_first_block(L, kVisibleB, visible_bytes(16, 1024, 64)), 16, 1024, 64);
    a->scratch = aoi_scratch_carve(event_first_block(L, kScratchBlock, aoi_scratch_bytes(64)), 64);
    a->enter = events_carve(event_first_block(L, kEnterBlock, events_bytes(1024)), 1024);
    a->leave = events_carve(event_first_block(L, kLeaveBlock, events_bytes(1024)), 1024);
    a->head.closed = false;
    lua_settop(L, 1);
    pace_collector(L);
    return 1;
}

// An integer option in [1, 0xffffffff] (a whole float counts, as in luaL_checkinteger).
uint32_t option_count(lua_State* L, int arg, const char* message) {
    int isnum = 0;
    const lua_Integer v = lua_type(L, -1) == LUA_TNUMBER ? lua_tointegerx(L, -1, &isnum) : 0;
    if (!isnum || v < 1 || v > lua_Integer(0xffffffff)) luaL_argerror(L, arg, message);
    return static_cast<uint32_t>(v);
}

// watch's options (a table at `arg`, or nil) into *o. Returns whether they make the watcher
// special: a cap, a band or a budget (`always` and `max_period` alone change nothing).
bool check_interest_options(lua_State* L, int arg, InterestOptions* o) {
    *o = InterestOptions{0, 0, 8, 0, 0.0};
    if (lua_isnoneornil(L, arg)) return false;
    luaL_checktype(L, arg, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, arg)) {
        const char* key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : nullptr;
        if (key && std::strcmp(key, "max") == 0) {
            o->max = option_count(L, arg, "max must be an integer in [1, 0xffffffff]");
        } else if (key && std::strcmp(key, "budget") == 0) {
            o->budget = option_count(L, arg, "budget must be an integer in [1, 0xffffffff]");
        } else if (key && std::strcmp(key, "max_period") == 0) {
            o->max_period = option_count(L, arg, "max_period must be an integer in [1, 0xffffffff]");
        } else if (key && std::strcmp(key, "always") == 0) {
            if (!to_mask(L, -1, &o->always)) luaL_argerror(L, arg, "always must be an integer in [0, 0xffffffff]");
        } else if (key && std::strcmp(key, "band") == 0) {
            const double b = table_number(L, -1);
            if (!(b > 0) || !std::isfinite(b)) luaL_argerror(L, arg, "band must be finite and > 0");
            o->band = b;
        } else {
            luaL_argerror(L, arg,
                          key ? lua_pushfstring(L, "unknown option '%s'", key) : "option names must be strings");
        }
        lua_pop(L, 1);
    }
    return o->max || o->band > 0 || o->budget;
}

// aoi:watch(id, view_radius [, mask [, options]]): starts or updates a watcher.
int l_watch(lua_State* L) {
    Aoi* a = check_aoi(L, 1);
    int64_t id = check_id(L, 2);
    float view = check_radius(L, 3, "view_radius");
    uint32_t mask = lua_isnoneornil(L, 4) ? 0xffffffffu : check_mask(L, 4);
    InterestOptions opt;
    const bool special = check_interest_options(L, 5, &opt);
    bool found, special_found;
    const uint32_t at = watchers_find(a->watchers, id, &found);
    const uint32_t special_at = specials_find(a->specials, id, &special_found);
    const bool grow_specials = special && !special_found && a->specials.n == a->specials.cap;
    const bool grow = !found && a->watchers.n == a->watchers.cap;
    if (grow && a->watchers.cap >= kMaxEntities) return luaL_error(L, "too many watchers");
    Held h;
    hold_aoi(&h, L, a);
    if (grow_specials) {
        const uint32_t cap = a->specials.cap ? a->specials.cap * 2 : 16;
        Specials sp = specials_carve(event_block(L, &h, kSpecialsBlock, specials_bytes(cap)), cap);
        specials_copy(sp, a->specials);
        a->specials = sp;
        lua_pop(L, 1);
    }
    if (grow) grow_watchers(L, &h, a, a->watchers.cap * 2);
    // Every allocation is done: the options change with the watcher.
    a->watchers_touched = true;
    if (special && special_found) a->specials.opt[special_at] = opt, a->specials.dirty[special_at] = 1;
    else if (special) specials_insert(a->specials, special_at, id, opt);
    else if (special_found) specials_erase(a->specials, special_at);
    if (found) {
        a->watchers.view[at] = view;
        a->watchers.mask[at] = mask;
        a->watchers.reach[at] = view;  // its whole view, until an update chooses with these options
        a->watchers.floor[at] = 0;
    } else {
        watchers_insert(a->watchers, at, id, view, mask);
    }
    held_end(&h);
    return 0;
}

// aoi:unwatch(id) -> true if it was a watcher; its pairs leave at the next update, its options
// and pins go now.
int l_unwatch(lua_State* L) {
    Aoi* a = check_aoi(L, 1);
    const int64_t id = check_id(L, 2);
    bool found;
    uint32_t at = watchers_find(a->watchers, id, &found);
    a->watchers_touched = true;
    if (found) watchers_erase(a->watchers, at);
    bool special;
    const uint32_t special_at = specials_find(a->specials, id, &special);
    if (special) specials_erase(a->specials, special_at);
    pins_drop_watcher(a->pins, id);
    lua_pushboolean(L, found);
    return 1;
}

// Sizes every block interest_apply writes, before the update commits: an allocation that fails
// raises with the aoi at its last update.
void interest_reserve(lua_State* L, Held* h, Aoi* a, int before, uint32_t n) {
    // The pass marks by position: the AOI scratch holds every position of this update.
    const InterestNeed need = interest_need(a->visible[before], a->enter, a->leave, a->specials, a->pins,
                                            a->interest[a->interest_current], std::max(n, a->scratch.cap));
    const int other = 1 - a->interest_current;
    InterestLists& l = a->interest[other];
    if (!l.watcher || l.watcher_cap < need.watchers || l.pair_cap < need.pairs) {
        const uint32_t wcap = need.watchers + need.watchers / 2 + 16;
        const uint64_t pcap = need.pairs + need.pairs / 2 + 64;
        l = interest_lists_carve(event_block(L, h, other == 0 ? kInterestA : kInterestB, interest_lists_bytes(wcap, pcap)),
                                 wcap, pcap);
        lua_pop(L, 1);
    }
    if (!a->interest_scratch.d2 || a->interest_scratch.cap < need.scratch) {
        const uint32_t cap = need.scratch + need.scratch / 2;
        a->interest_scratch =
            interest_scratch_carve(event_block(L, h, kInterestScratchBlock, interest_scratch_bytes(cap)), cap);
        lua_pop(L, 1);
    }
    const int uv[2] = {kFinalEnterBlock, kFinalLeaveBlock};
    EventList* e[2] = {&a->final_enter, &a->final_leave};
    const uint64_t want[2] = {need.enter, need.leave};
    for (int i = 0; i < 2; ++i) {
        if (e[i]->pair && e[i]->cap >= want[i]) continue;
        const uint64_t cap = want[i] + want[i] / 2 + kEventsFloor;
        *e[i] = events_carve(event_block(L, h, uv[i], events_bytes(cap)), cap);
        lua_pop(L, 1);
    }
}

// After the commit: the special watchers' views, schedules and events (interest.hpp).
void interest_apply(Aoi* a, const AoiProgress& p, const KernelTable* kernels, const float* distances) {
    const int other = 1 - a->interest_current;
    // A full update maps the last update's positions to its own (new_pos); an incremental one
    // keeps them.
    InterestInput in{&a->visible[a->current], a->scratch.xs, a->scratch.ys, a->scratch.ms, &a->enter, &a->leave,
                     &a->specials, &a->pins, &a->interest[a->interest_current], a->margin, ++a->tick,
                     p.incremental ? a->scratch.changed : nullptr, a->scratch.serial,
                     p.incremental ? nullptr : a->scratch.new_pos, kernels};
    in.distances = p.incremental ? nullptr : distances;
    const uint32_t kept = interest_update(in, a->interest_scratch, a->interest[other], a->final_enter, a->final_leave);
    a->interest_kept += kept;
    a->interest_chosen += a->interest[other].n - kept;
    a->interest_current = other;
    if (a->specials.n) std::memset(a->specials.dirty, 0, a->specials.n);
}


// aoi:update([enter [, leave]]) -> enter, leave, n_enter, n_leave
int l_update(lua_State* L) {
    Aoi* a = check_aoi(L, 1);
    Held h;
    hold_aoi(&h, L, a);
    event_tables_check(L, kAoi);
    Layer* layer = layer_of(L, 1);  // at 4
    held_add(&h, 4, &layer->hold, close_layer);
    event_tables_make(L, &h);
    const uint32_t n = layer->s.n;
    const int before = a->current, after = 1 - a->current;
    // Everything that can be sized up front is, before the update starts.
    // The scratch indexes this update's ranks and the last update's: it holds the larger count.
    const uint32_t ranks = n > a->visible[before].positions ? n : a->visible[before].positions;
    if (a->scratch.cap < ranks) {
        uint32_t cap = ranks + ranks / 2;
        a->scratch = aoi_scratch_carve(event_block(L, &h, kScratchBlock, aoi_scratch_bytes(cap)), cap);
        lua_pop(L, 1);
    }
    // The room the core asks for beyond the recent peak: one watcher may add n entities.
    events_shrink(L, &h, a->enter, kEnterBlock, a->enter_recent, n);
    events_shrink(L, &h, a->leave, kLeaveBlock, a->leave_recent, n);
    // Once asked "who sees me", the inversion follows the events while the caller keeps asking
    // (a few updates without a call end it: a later call builds it again). A full update then
    // writes its events' keys behind the pairs: buffers that hold both for a usual tick.
    const bool follow = who_sees_me_follows(a->who);
    if (follow) {
        if (a->enter.cap < 2 * a->enter_recent + n + kEventsFloor)
            events_renew(L, &h, a->enter, kEnterBlock, 2 * a->enter_recent + n + kEventsFloor, a->enter.n);
        if (a->leave.cap < 2 * a->leave_recent + n + kEventsFloor)
            events_renew(L, &h, a->leave, kLeaveBlock, 2 * a->leave_recent + n + kEventsFloor, a->leave.n);
    }
    if (a->visible[after].watcher_cap < a->watchers.n || a->visible[after].target_cap < a->visible[before].target_cap ||
        a->visible[after].id_cap < n)
        grow_visible(L, &h, a, after, a->watchers.cap, a->visible[before].target_cap, n + n / 2, false);
    a->enter.n = a->leave.n = 0;
    const bool hand = hand_distances(a);
    if (hand && a->distances_cap < a->visible[after].target_cap) grow_distances(L, &h, a, a->visible[after].target_cap, 0);
    AoiInput in{&layer->s, &a->watchers, &a->visible[before], a->margin, context(L)->kernels, !a->watchers_touched,
                &a->stats, &a->who, a->narrowing};
    in.distances = hand ? a->distances : nullptr;
    AoiProgress progress;
    progress.keys = follow;
    progress.quiet_floors = !follow;
    // The core goes as far as its blocks let it, and says what it needs to go on.
    uint64_t need = 0;
    AoiStatus st;
    while ((st = aoi_update(in, a->scratch, a->visible[after], a->enter, a->leave, progress, &need)) != AoiStatus::done) {
        if (st == AoiStatus::need_targets) {
            uint64_t cap = a->visible[after].target_cap * 2 + need;
            if (cap > 0xffffffffu) return luaL_error(L, "too many visible pairs");
            grow_visible(L, &h, a, after, a->visible[after].watcher_cap, cap, a->visible[after].id_cap, true);
            if (hand) {
                grow_distances(L, &h, a, cap, a->visible[after].top);
                in.distances = a->distances;
            }
        } else if (st == AoiStatus::need_enter) {
            events_renew(L, &h, a->enter, kEnterBlock, a->enter.cap * 2 + need, a->enter.n);
        } else {
            events_renew(L, &h, a->leave, kLeaveBlock, a->leave.cap * 2 + need, a->leave.n);
        }
        need = 0;
    }
    // The events go into the tables before the update is committed: growing a table may run
    // out of memory, and the aoi must then still be at the last update, whose events the
    // caller has (else this update's would be lost). Special watchers' views are computed from
    // the committed lists, so with them the commit comes first and the events after it.
    const bool interest = a->specials.n || a->interest[a->interest_current].n;
    if (interest) interest_reserve(L, &h, a, before, n);
    Results r;
    bool touched = false;
    if (!interest) {
        events_write(&r, L, a->enter, a->leave);
        a->current = aoi_commit(in, a->scratch, a->visible, a->current, progress);
    } else {
        a->current = aoi_commit(in, a->scratch, a->visible, a->current, progress);
        interest_apply(a, progress, in.kernels, in.distances);
        const Narrowed narrowed = interest_narrow(a->interest[a->interest_current], a->watchers);
        a->narrowing = narrowed.any;
        // A reach changed, or a list was scanned again out to its view: the next update compares
        // every watcher's reach with its list's (set before the events, whose writing may raise).
        touched = narrowed.changed || progress.widened;
        if (touched) a->watchers_touched = true;
        events_write(&r, L, a->final_enter, a->final_leave);
    }
    a->watchers_touched = touched;
    a->enter_recent = decayed_peak(a->enter_recent, a->enter.n);
    a->leave_recent = decayed_peak(a->leave_recent, a->leave.n);
    const int results = events_close(&r, interest ? a->final_enter.n : a->enter.n, interest ? a->final_leave.n : a->leave.n);
    held_end(&h);
    return results;
}

// The aoi at 1 held, and r open on the result table: the one at `out_arg`, or a new one.
void open_results(lua_State* L, Held* h, Results* r, Aoi* a, int out_arg) {
    int out = opt_out(L, out_arg);
    hold_aoi(h, L, a);
    out = held_out(h, out);
    results_open(L, r);
    results_table(r, out);
}

// The targets of the watcher at list k, by id (each after `watcher` when given: due's pairs).
// Stored as positions in no order; sorted in place by rank, they come out by id (the order of a
// list is free to change).
void write_targets(Results* r, const Visible& v, uint32_t k, const int64_t* watcher) {
    const uint32_t* rank_at = v.rank_at;
    std::sort(v.target + v.off[k], v.target + v.off[k] + v.len[k],
              [rank_at](uint32_t x, uint32_t y) { return rank_at[x] < rank_at[y]; });
    for (uint32_t i = v.off[k]; i < v.off[k] + v.len[k]; ++i) {
        if (watcher) results_int(r, static_cast<lua_Integer>(*watcher));
        results_int(r, static_cast<lua_Integer>(v.ids[rank_at[v.target[i]]]));
    }
}

// aoi:visible(id [, out]) -> out, n: the targets watcher `id` saw at the last update.
int l_visible(lua_State* L) {
    Aoi* a = check_aoi(L, 1);
    int64_t id = check_id(L, 2);
    Held h;
    Results r;
    open_results(L, &h, &r, a, 3);
    uint32_t n_special;
    const Visible v = a->visible[a->current];
    uint32_t lo = 0, hi = v.n;
    if (const int64_t* p = interest_find(a->interest[a->interest_current], id, &n_special)) {
        for (uint32_t i = 0; i < n_special; ++i) results_int(&r, static_cast<lua_Integer>(p[i]));
        lo = hi = v.n;  // a special watcher's own list is its view
    }
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (v.watcher[mid] < id) lo = mid + 1; else hi = mid;
    }
    if (lo < v.n && v.watcher[lo] == id) {
        write_targets(&r, v, lo, nullptr);
    }
    results_close(&r);
    lua_pushinteger(L, r.n[0]);
    held_end(&h);
    return 2;
}

// aoi:watchers_of(id [, out]) -> out, n: the watchers that saw `id` at the last update,
// ascending. The first call inverts the visible lists (a counting sort, O(pairs)); updates
// then apply their events to the inversion while calls keep coming; every call costs what it
// returns plus a binary search.
int l_watchers_of(lua_State* L) {
    Aoi* a = check_aoi(L, 1);
    int64_t id = check_id(L, 2);
    Held h;
    hold_aoi(&h, L, a);
    event_out(L, &h);
    const Visible& v = a->visible[a->current];
    uint32_t id_cap;
    uint64_t pair_cap;
    if (who_sees_me_room(a->who, v, &id_cap, &pair_cap))
        a->who.lists = observers_carve(event_view_block(L, &h, kObserversBlock, observers_bytes(id_cap, pair_cap)),
                                       id_cap, pair_cap);
    who_sees_me_ask(a->who, v, &a->stats);
    const int64_t* found = std::lower_bound(v.ids, v.ids + v.id_count, id);
    const bool seen = found != v.ids + v.id_count && *found == id;
    const uint32_t rank = static_cast<uint32_t>(found - v.ids);
    if (seen) observers_sort(a->who.lists, rank);
    const Observers& o = a->who.lists;
    Results r;
    event_list_open(&r, L);
    // The inversion is of the uncapped lists: a special watcher's own list has the last say.
    const InterestLists il = a->interest[a->interest_current];
    if (seen) {
        for (uint32_t i = o.off[rank]; i < o.off[rank] + o.len[rank]; ++i) {
            const int64_t w = v.watcher[o.who[i]];
            if (il.n && !interest_sees(il, w, id)) continue;
            results_int(&r, static_cast<lua_Integer>(w));
        }
    }
    const int results = event_list_close(&r);
    held_end(&h);
    return results;
}

// aoi:due([out]) -> out, n: the flat (watcher, target) pairs due a state update at the last
// update, sorted by watcher, then target; n pairs. A watcher without options has every visible
// pair due.
int l_due(lua_State* L) {
    Aoi* a = check_aoi(L, 1);
    Held h;
    Results r;
    open_results(L, &h, &r, a, 2);
    const Visible v = a->visible[a->current];
    const InterestLists il = a->interest[a->interest_current];
    uint32_t j = 0;
    for (uint32_t k = 0; k < v.n; ++k) {
        const int64_t w = v.watcher[k];
        while (j < il.n && il.watcher[j] < w) ++j;
        if (j < il.n && il.watcher[j] == w) {
            const int64_t* due = il.due + il.off[j];
            for (uint32_t i = 0; i < il.due_len[j]; ++i) {
                results_int(&r, static_cast<lua_Integer>(w));
                results_int(&r, static_cast<lua_Integer>(due[i]));
            }
            continue;
        }
        write_targets(&r, v, k, &w);
    }
    const lua_Integer pairs = r.n[0] / 2;
    results_close(&r);
    lua_pushinteger(L, pairs);
    held_end(&h);
    return 2;
}

// A pin of watcher w changed: its view is chosen anew at the next update, from its whole view
// (a pinned target is seen wherever it is in view).
void touch_special(Aoi* a, int64_t w) {
    bool found;
    const uint32_t at = specials_find(a->specials, w, &found);
    if (found) a->specials.dirty[at] = 1;
    const uint32_t k = watchers_find(a->watchers, w, &found);
    if (!found || a->watchers.reach[k] == a->watchers.view[k]) return;
    a->watchers.reach[k] = a->watchers.view[k];
    a->watchers.floor[k] = 0;
    a->watchers_touched = true;  // the next update compares the reach with its list's
}

// aoi:pin(watcher, target): the watcher sees the target beyond its cap while it is in view.
int l_pin(lua_State* L) {
    Aoi* a = check_aoi(L, 1);
    const int64_t w = check_id(L, 2), t = check_id(L, 3);
    bool found;
    const uint32_t at = pins_find(a->pins, w, t, &found);
    if (found) return 0;
    if (a->pins.n == a->pins.cap) {
        if (a->pins.cap >= kMaxEntities) return luaL_error(L, "too many pins");
        const uint32_t cap = a->pins.cap ? a->pins.cap * 2 : 16;
        Held h;
        hold_aoi(&h, L, a);
        Pins p = pins_carve(event_block(L, &h, kPinsBlock, pins_bytes(cap)), cap);
        pins_copy(p, a->pins);
        a->pins = p;
        lua_pop(L, 1);
        pins_insert(a->pins, at, w, t);
        touch_special(a, w);
        held_end(&h);
        return 0;
    }
    pins_insert(a->pins, at, w, t);
    touch_special(a, w);
    return 0;
}

// aoi:unpin(watcher, target) -> true if it was pinned.
int l_unpin(lua_State* L) {
    Aoi* a = check_aoi(L, 1);
    const int64_t w = check_id(L, 2), t = check_id(L, 3);
    bool found;
    const uint32_t at = pins_find(a->pins, w, t, &found);
    if (found) pins_erase(a->pins, at);
    if (found) touch_special(a, w);
    lua_pushboolean(L, found);
    return 1;
}

// aoi:stats([t]) -> t: how the updates ran so far (counters; see AoiStats).
int l_stats(lua_State* L) {
    const Aoi* a = check_aoi(L, 1);
    const AoiStats st = a->stats;
    const uint64_t chosen = a->interest_chosen, kept = a->interest_kept;
    int t = opt_out(L, 2);
    if (t == 0) {
        lua_settop(L, 1);
        lua_createtable(L, 0, 8);
        t = 2;
    }
    const Counter counters[] = {
        {"full", st.full},
        {"incremental", st.incremental},
        {"inversion_builds", st.inversion_builds},
        {"inversion_follows", st.inversion_follows},
        {"interest_chosen", chosen},
        {"interest_kept", kept},
        {"interest_narrowed", st.narrowed},
        {"interest_widened", st.widened},
    };
    return event_stats(L, t, counters, sizeof counters / sizeof counters[0]);
}

int l_watchers(lua_State* L) {
    lua_pushinteger(L, check_aoi(L, 1)->watchers.n);
    return 1;
}

int l_close(lua_State* L) { return event_close(L, kAoi); }

int l_tostring(lua_State* L) { return event_tostring(L, kAoi); }

const luaL_Reg methods[] = {
    {"watch", l_watch}, {"unwatch", l_unwatch}, {"update", l_update}, {"visible", l_visible},
    {"watchers_of", l_watchers_of}, {"watchers", l_watchers}, {"due", l_due}, {"pin", l_pin},
    {"unpin", l_unpin}, {"stats", l_stats}, {"close", l_close}, {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {{"aoi", l_new}, {nullptr, nullptr}};

}  // namespace

void open_aoi(lua_State* L, const Tables& t) {
    open_event_class(L, t, kAoi, l_close, l_tostring, methods, module_functions);
}

}  // namespace lua
}  // namespace soageo
