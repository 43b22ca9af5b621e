// soageo.aoi(layer [, {margin = m}]): watchers, and enter/leave events on every update.
// The class follows liolib's pattern; all memory lives in user values (Lua-allocated).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "../core/aoi.hpp"
#include "binding.hpp"
#include "event_object.hpp"

namespace soageo {
namespace lua {
namespace {

// User values of an aoi object.
enum : int {
    kLayerOf = kEventLayer, kWatchersBlock, kVisibleA, kVisibleB, kScratchBlock, kEnterBlock, kLeaveBlock, kObserversBlock,
    kAoiValues = kObserversBlock
};

struct Aoi {
    EventHead head;
    Watchers watchers;
    Visible visible[2];  // visible[current]: what watchers saw after the last update
    int current;
    AoiScratch scratch;
    EventList enter, leave;
    Observers observers;     // visible[current] inverted, for watchers_of; built on demand
    uint64_t enter_recent, leave_recent;  // decaying peaks of the event counts (shrinking)
    float margin;
    uint32_t generation;     // bumped by every update: which visible lists are current
    uint32_t observers_of;   // the generation `observers` describes (0: none)
    uint32_t observers_idle; // updates since the last watchers_of call
    bool watchers_touched;   // watch or unwatch called since the last committed update
    AoiStats stats;          // aoi:stats()
};
static_assert(std::is_standard_layout<Aoi>::value && offsetof(Aoi, head) == 0, "event_object.hpp reaches the head");

// Updates without a watchers_of call after which the inversion stops following the events.
constexpr uint32_t kObserversIdle = 4;

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

Layer* layer_of(lua_State* L, int aoi_idx) { return event_layer(L, aoi_idx, kAoi); }

// soageo.aoi(layer [, {margin = m}])
int l_new(lua_State* L) {
    check_layer(L, 1);
    float margin = 0.0f;
    static const char* const options[] = {"margin", nullptr};
    if (check_options(L, 2, options)) {
        lua_getfield(L, 2, "margin");
        if (!lua_isnil(L, -1)) {
            int isnum = 0;
            lua_Number m = lua_tonumberx(L, -1, &isnum);
            if (!isnum || !valid_radius(m)) luaL_argerror(L, 2, "margin must be finite and >= 0");
            margin = static_cast<float>(m);
        }
        lua_pop(L, 1);
    }
    auto* a = static_cast<Aoi*>(event_new(L, kAoi));
    a->margin = margin;
    a->watchers = watchers_carve(event_first_block(L, kWatchersBlock, watchers_bytes(16)), 16);
    a->visible[0] = visible_carve(event_first_block(L, kVisibleA, visible_bytes(16, 1024, 64)), 16, 1024, 64);
    a->visible[1] = visible_carve(event_first_block(L, kVisibleB, visible_bytes(16, 1024, 64)), 16, 1024, 64);
    a->scratch = aoi_scratch_carve(event_first_block(L, kScratchBlock, aoi_scratch_bytes(64)), 64);
    a->enter = events_carve(event_first_block(L, kEnterBlock, events_bytes(1024)), 1024);
    a->leave = events_carve(event_first_block(L, kLeaveBlock, events_bytes(1024)), 1024);
    a->generation = 1;
    a->head.closed = false;
    lua_settop(L, 1);
    pace_collector(L);
    return 1;
}

// aoi:watch(id, view_radius [, mask]): starts or updates a watcher.
int l_watch(lua_State* L) {
    Aoi* a = check_aoi(L, 1);
    int64_t id = check_id(L, 2);
    float view = check_radius(L, 3, "view_radius");
    uint32_t mask = lua_isnoneornil(L, 4) ? 0xffffffffu : check_mask(L, 4);
    bool found;
    uint32_t at = watchers_find(a->watchers, id, &found);
    a->watchers_touched = true;
    if (found) {
        a->watchers.view[at] = view;
        a->watchers.mask[at] = mask;
        return 0;
    }
    if (a->watchers.n < a->watchers.cap) {
        watchers_insert(a->watchers, at, id, view, mask);
        return 0;
    }
    if (a->watchers.cap >= kMaxEntities) return luaL_error(L, "too many watchers");
    Held h;
    hold_aoi(&h, L, a);
    grow_watchers(L, &h, a, a->watchers.cap * 2);
    watchers_insert(a->watchers, at, id, view, mask);
    held_end(&h);
    return 0;
}

// aoi:unwatch(id) -> true if it was a watcher; its pairs leave at the next update.
int l_unwatch(lua_State* L) {
    Aoi* a = check_aoi(L, 1);
    bool found;
    uint32_t at = watchers_find(a->watchers, check_id(L, 2), &found);
    a->watchers_touched = true;
    if (found) watchers_erase(a->watchers, at);
    lua_pushboolean(L, found);
    return 1;
}

// aoi:update([enter [, leave]]) -> enter, leave, n_enter, n_leave
int l_update(lua_State* L) {
    Aoi* a = check_aoi(L, 1);
    Held h;
    hold_aoi(&h, L, a);
    event_tables(L, kAoi, &h);
    Layer* layer = layer_of(L, 1);  // at 4
    held_add(&h, 4, &layer->hold, close_layer);
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
    const bool follow = a->observers_of == a->generation && a->observers_idle < kObserversIdle;
    a->observers_idle += a->observers_idle < kObserversIdle;
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
    AoiInput in{&layer->s, &a->watchers, &a->visible[before], a->margin, context(L)->kernels, !a->watchers_touched,
                &a->stats};
    AoiProgress progress;
    progress.keys = follow;
    // The core goes as far as its blocks let it, and says what it needs to go on.
    uint64_t need = 0;
    AoiStatus st;
    while ((st = aoi_update(in, a->scratch, a->visible[after], a->enter, a->leave, progress, &need)) != AoiStatus::done) {
        if (st == AoiStatus::need_targets) {
            uint64_t cap = a->visible[after].target_cap * 2 + need;
            if (cap > 0xffffffffu) return luaL_error(L, "too many visible pairs");
            grow_visible(L, &h, a, after, a->visible[after].watcher_cap, cap, a->visible[after].id_cap, true);
        } else if (st == AoiStatus::need_enter) {
            events_renew(L, &h, a->enter, kEnterBlock, a->enter.cap * 2 + need, a->enter.n);
        } else {
            events_renew(L, &h, a->leave, kLeaveBlock, a->leave.cap * 2 + need, a->leave.n);
        }
        need = 0;
    }
    // The events go into the tables before the update is committed: growing a table may run
    // out of memory, and the aoi must then still be at the last update, whose events the
    // caller has (else this update's would be lost).
    const EventList enter = a->enter, leave = a->leave;
    Results r;
    events_write(&r, L, enter, leave);
    a->current = aoi_commit(in, a->scratch, a->visible, a->current, progress);
    a->watchers_touched = false;
    ++a->generation;
    if (follow && (progress.incremental || progress.keys)) {
        // An incremental update that took adds, removes, watch or unwatch in renumbers the lists
        // as it applies its events (the commit left the maps in the scratch and the other lists).
        const AoiScratch::Members& m = a->scratch.members;
        const bool followed =
            !progress.members
                ? observers_apply(a->visible[a->current], a->observers, progress.leave_keys, progress.n_leave,
                                  progress.enter_keys, progress.n_enter)
                : observers_apply_renumbered(a->observers, m.ids_before, m.n_added, a->visible[a->current].id_count,
                                             m.layer_changed ? a->scratch.remap : nullptr,
                                             m.watchers_changed() ? a->visible[1 - a->current].mask : nullptr,
                                             progress.leave_keys, progress.n_leave, progress.enter_keys,
                                             progress.n_enter);
        if (followed) {
            a->observers_of = a->generation;
            ++a->stats.inversion_follows;
        }
    }
    a->enter_recent = decayed_peak(a->enter_recent, enter.n);
    a->leave_recent = decayed_peak(a->leave_recent, leave.n);
    const int results = events_close(&r, enter.n, leave.n);
    held_end(&h);
    return results;
}

// aoi:visible(id [, out]) -> out, n: the targets watcher `id` saw at the last update.
int l_visible(lua_State* L) {
    Aoi* a = check_aoi(L, 1);
    int64_t id = check_id(L, 2);
    int out = opt_out(L, 3);
    Held h;
    hold_aoi(&h, L, a);
    if (out == 0) {
        held_table(&h, 0);
        out = lua_gettop(L);
    }
    Results r;
    results_open(L, &r);
    results_table(&r, out);
    const Visible v = a->visible[a->current];
    uint32_t lo = 0, hi = v.n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (v.watcher[mid] < id) lo = mid + 1; else hi = mid;
    }
    if (lo < v.n && v.watcher[lo] == id) {
        // Stored as positions in no order; sorted in place by rank, they come out by id (the
        // order of a list is free to change).
        const uint32_t* rank_at = v.rank_at;
        std::sort(v.target + v.off[lo], v.target + v.off[lo] + v.len[lo],
                  [rank_at](uint32_t a, uint32_t b) { return rank_at[a] < rank_at[b]; });
        for (uint32_t i = v.off[lo]; i < v.off[lo] + v.len[lo]; ++i)
            results_int(&r, static_cast<lua_Integer>(v.ids[v.rank_at[v.target[i]]]));
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
    a->observers_idle = 0;
    if (a->observers_of != a->generation) {
        const uint64_t pairs = observers_need(v);
        if (!a->observers.off || a->observers.id_cap < v.id_count || a->observers.pair_cap < pairs) {
            const uint32_t id_cap = v.id_count + v.id_count / 2 + 16;
            const uint64_t pair_cap = pairs + pairs / 2 + 64;  // lists that outgrow their room move to the end
            a->observers = observers_carve(event_view_block(L, &h, kObserversBlock, observers_bytes(id_cap, pair_cap)),
                                           id_cap, pair_cap);
        }
        observers_build(v, a->observers);
        a->observers_of = a->generation;
        ++a->stats.inversion_builds;
    }
    const int64_t* found = std::lower_bound(v.ids, v.ids + v.id_count, id);
    const bool seen = found != v.ids + v.id_count && *found == id;
    const uint32_t rank = static_cast<uint32_t>(found - v.ids);
    if (seen) observers_sort(a->observers, rank);
    const Observers& o = a->observers;
    Results r;
    event_list_open(&r, L);
    if (seen) {
        for (uint32_t i = o.off[rank]; i < o.off[rank] + o.len[rank]; ++i)
            results_int(&r, static_cast<lua_Integer>(v.watcher[o.who[i]]));
    }
    const int results = event_list_close(&r);
    held_end(&h);
    return results;
}

// aoi:stats([t]) -> t: how the updates ran so far (counters; see AoiStats).
int l_stats(lua_State* L) {
    const Aoi* a = check_aoi(L, 1);
    const AoiStats st = a->stats;
    int t = opt_out(L, 2);
    if (t == 0) {
        lua_settop(L, 1);
        lua_createtable(L, 0, 4);
        t = 2;
    }
    const Counter counters[] = {
        {"full", st.full},
        {"incremental", st.incremental},
        {"inversion_builds", st.inversion_builds},
        {"inversion_follows", st.inversion_follows},
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
    {"watch", l_watch},
    {"unwatch", l_unwatch},
    {"update", l_update},
    {"visible", l_visible},
    {"watchers_of", l_watchers_of},
    {"watchers", l_watchers},
    {"stats", l_stats},
    {"close", l_close},
    {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {
    {"aoi", l_new},
    {nullptr, nullptr},
};

}  // namespace

void open_aoi(lua_State* L, const Tables& t) {
    open_event_class(L, t, kAoi, l_close, l_tostring, methods, module_functions);
}

}  // namespace lua
}  // namespace soageo
