// soageo.contacts(layer): contact events, the boxes (centre +- r) that began or stopped
// overlapping since the last update, as a diff of two successive layer:pairs(). An update
// where few entities changed searches only around those (contacts_incremental); else it
// sweeps the layer and merges the sorted pairs with the last ones. The class
// follows liolib's pattern and the aoi's rules: all memory in user values (Lua-allocated),
// every allocation before anything changes, in a window that holds the object and its layer.
#include <algorithm>
#include <cstddef>
#include <type_traits>

#include "../core/bands.hpp"
#include "../core/contacts.hpp"
#include "binding.hpp"
#include "check.hpp"
#include "event_object.hpp"
#include "results.hpp"

namespace soageo {
namespace lua {
namespace {

enum : int {
    kLayerOf = kEventLayer, kScratchBlock, kFrameA, kFrameB, kBeganBlock, kEndedBlock, kTouchingBlock, kGridBlock,
    kBandBlock, kContactsValues = kBandBlock
};

struct Contacts {
    EventHead head;
    SweepScratch scratch;
    ContactFrame frame[2];  // frame[current]: the pairs of the last update
    int current;
    EventList began, ended;
    Touching touching;       // frame[current] as neighbour lists, for touching(); built on demand
    ContactState state;      // what the incremental path keeps between updates (contacts_incremental)
    BandScratch bands;       // the full path's y bands, as layer:pairs sweeps a large layer (bands.hpp)
    uint64_t began_recent, ended_recent;  // decaying peaks of the event counts (shrinking)
    uint32_t generation;     // bumped by every committed update: which frame is current
    uint32_t touching_of;    // the generation `touching` describes (0: none)
    bool ranks_current;      // the scratch's id ranks are frame[current]'s (contacts_incremental)
    // Committed updates by the path they took (contacts:stats): lets the specs, and a user
    // tuning a scene, see that the incremental path ran.
    uint64_t full_updates, incremental_updates;
};
static_assert(std::is_standard_layout<Contacts>::value && offsetof(Contacts, head) == 0,
              "event_object.hpp reaches the head");

const EventClass kContacts = {"soageo.contacts", "contacts", "the contacts' layer is closed",
                              "ended must be another table than began", sizeof(Contacts), kContactsValues};

Contacts* check_contacts(lua_State* L, int idx) { return static_cast<Contacts*>(event_check(L, idx, kContacts)); }

void close_contacts(lua_State* L, int idx) { event_close_at(L, idx, kContacts); }

// Event buffers and frames are refilled from scratch by each update: growing copies nothing.
void renew_events(lua_State* L, Held* h, EventList& e, int uv, uint64_t cap) { events_renew(L, h, e, uv, cap, 0); }

Layer* layer_of(lua_State* L, int idx) { return event_layer(L, idx, kContacts); }

// soageo.contacts(layer)
int l_new(lua_State* L) {
    check_writable_layer(L, 1);
    auto* c = static_cast<Contacts*>(event_new(L, kContacts));
    c->scratch = sweep_scratch_carve(event_first_block(L, kScratchBlock, sweep_scratch_bytes(64)), 64);
    c->frame[0] = contact_frame_carve(event_first_block(L, kFrameA, contact_frame_bytes(1024, 64)), 1024, 64);
    c->frame[1] = contact_frame_carve(event_first_block(L, kFrameB, contact_frame_bytes(1024, 64)), 1024, 64);
    c->began = events_carve(event_first_block(L, kBeganBlock, events_bytes(kEventsFloor)), kEventsFloor);
    c->ended = events_carve(event_first_block(L, kEndedBlock, events_bytes(kEventsFloor)), kEventsFloor);
    c->generation = 1;
    c->head.closed = false;
    lua_settop(L, 1);
    pace_collector(L);
    return 1;
}

// The blocks an update of `n` entities needs before it starts: the scratch (this update's ranks
// and, as the remap, the last update's ids), the frame it fills (with room for `pairs`) and
// the incremental path's state.
void make_room(lua_State* L, Held* h, Contacts* c, uint32_t n, uint64_t pairs) {
    const int after = 1 - c->current;
    const uint32_t ranks = std::max(n, c->frame[c->current].id_count);
    if (c->scratch.cap < ranks) {
        const uint32_t cap = ranks + ranks / 2;
        c->scratch = sweep_scratch_carve(event_block(L, h, kScratchBlock, sweep_scratch_bytes(cap)), cap);
        c->ranks_current = false;
        lua_pop(L, 1);
    }
    ContactFrame& now = c->frame[after];
    if (now.buf.cap < pairs || now.id_cap < n) {
        const uint64_t pair_cap = std::max<uint64_t>(std::max(pairs + pairs / 2, now.buf.cap), 1024);
        if (pair_cap > (uint64_t(1) << 40) / 24) luaL_error(L, "too many pairs");
        const uint32_t id_cap = std::max(n + n / 2, now.id_cap);
        now = contact_frame_carve(event_block(L, h, after == 0 ? kFrameA : kFrameB, contact_frame_bytes(pair_cap, id_cap)),
                                  pair_cap, id_cap);
        lua_pop(L, 1);
    }
    if (c->state.cap < n) {
        const uint32_t cap = n + n / 2;
        const uint64_t builds = c->state.builds;
        c->state = contact_state_carve(event_block(L, h, kGridBlock, contact_state_bytes(cap)), cap);
        c->state.builds = builds;
        lua_pop(L, 1);
    }
}

// The event lists made large enough for what the last diff found (it stopped counting into
// them past their caps): whether they had to grow, and the diff must run again.
bool grow_events(lua_State* L, Held* h, Contacts* c) {
    const bool grow_began = c->began.n > c->began.cap, grow_ended = c->ended.n > c->ended.cap;
    if (grow_began) renew_events(L, h, c->began, kBeganBlock, c->began.n + c->began.n / 2);
    if (grow_ended) renew_events(L, h, c->ended, kEndedBlock, c->ended.n + c->ended.n / 2);
    return grow_began || grow_ended;
}

// What changed since the last update, when little did: its searches only. False when the
// full path must run instead.
bool update_incremental(lua_State* L, Held* h, Contacts* c, const Store& st) {
    const KernelTable* k = context(L)->kernels;
    const ContactFrame& before = c->frame[c->current];
    ContactFrame& now = c->frame[1 - c->current];
    auto run = [&](uint64_t* want) {
        c->began.n = c->ended.n = 0;
        return contacts_incremental(st, c->scratch, c->ranks_current, before, now, c->state, *k, c->began, c->ended, want);
    };
    uint64_t want = 0;
    ContactStep step = run(&want);
    while (step == ContactStep::need_pairs) {
        make_room(L, h, c, st.n, want);
        step = run(&want);
    }
    if (step == ContactStep::full) return false;
    while (grow_events(L, h, c)) run(&want);
    return true;
}

// The full path: the layer swept (in y bands when large, as layer:pairs does: the same pairs,
// the same keys) and its sorted pairs merged with the last ones.
void update_full(lua_State* L, Held* h, Contacts* c, const Store& st) {
    const KernelTable* k = context(L)->kernels;
    const ContactFrame& before = c->frame[c->current];
    ContactFrame& now = c->frame[1 - c->current];
    c->ranks_current = false;  // until this update commits: it may fail after the ranking
    sweep_prepare(st, c->scratch, true);
    const BandPlan plan = band_plan(c->scratch.boxes);
    if (plan.bands && (plan.entries > c->bands.entries || plan.bands > c->bands.bands)) {
        const uint64_t entries = plan.entries + plan.entries / 4;
        const uint32_t bands = plan.bands + plan.bands / 4;
        c->bands = band_scratch_carve(event_block(L, h, kBandBlock, band_scratch_bytes(entries, bands)), entries, bands);
        lua_pop(L, 1);
    }
    contacts_keep(st, now);  // the columns the sweep saw
    uint64_t pairs = pairs_ordered(plan, c->scratch, c->bands, k->sweep_complete, now.buf);
    if (pairs > now.buf.cap) {  // a frame of the size asked for, and the sweep again from the sort
        make_room(L, h, c, st.n, pairs);
        sweep_prepare(st, c->scratch, true);
        contacts_keep(st, now);
        pairs = pairs_ordered(plan, c->scratch, c->bands, k->sweep_complete, now.buf);
    }
    now.n = pairs;
    // Event lists are sized by what a tick brings, not by the worst case (every pair): a diff
    // that finds more grows them and runs again.
    do {
        c->began.n = c->ended.n = 0;
        contacts_diff(before, now, c->scratch.id_keys, st.n, c->scratch.rank_remap, c->began, c->ended);
    } while (grow_events(L, h, c));
}

// contacts:update([began [, ended]]) -> began, ended, n_began, n_ended
int l_update(lua_State* L) {
    Contacts* c = check_contacts(L, 1);
    Held h;
    event_hold(&h, L, &c->head, close_contacts);
    event_tables_check(L, kContacts);
    Layer* layer = layer_of(L, 1);  // at 4
    held_add(&h, 4, &layer->hold, close_layer);
    event_tables_make(L, &h);
    events_shrink(L, &h, c->began, kBeganBlock, c->began_recent, 0);
    events_shrink(L, &h, c->ended, kEndedBlock, c->ended_recent, 0);
    const Store& st = layer->s;
    make_room(L, &h, c, st.n, 0);
    const bool incremental = update_incremental(L, &h, c, st);
    if (!incremental) update_full(L, &h, c, st);
    // The events go into the tables before the update is committed: growing a table may run
    // out of memory, and the object must then still be at the last update, whose events the
    // caller has.
    const EventList began = c->began, ended = c->ended;
    Results r;
    events_write(&r, L, began, ended);
    c->current = 1 - c->current;
    contacts_commit(c->state, c->frame[c->current], incremental);
    c->ranks_current = true;  // ranked by this update's sweep, or kept by its incremental path
    ++c->generation;
    ++(incremental ? c->incremental_updates : c->full_updates);
    c->began_recent = decayed_peak(c->began_recent, began.n);
    c->ended_recent = decayed_peak(c->ended_recent, ended.n);
    const int results = events_close(&r, began.n, ended.n);
    held_end(&h);
    return results;
}

// contacts:touching(id [, out]) -> out, n: the ids whose boxes overlapped id's at the last
// update, ascending. The first call after an update builds every entity's list (a counting
// sort of the pairs); each call then costs a binary search plus what it returns.
int l_touching(lua_State* L) {
    Contacts* c = check_contacts(L, 1);
    int64_t id = check_id(L, 2);
    Held h;
    event_hold(&h, L, &c->head, close_contacts);
    event_out(L, &h);
    const ContactFrame& f = c->frame[c->current];
    if (c->touching_of != c->generation) {
        if (!c->touching.off || c->touching.id_cap < f.id_count || c->touching.pair_cap < f.n) {
            const uint32_t id_cap = f.id_count + f.id_count / 2 + 16;
            const uint64_t pair_cap = f.n + f.n / 2 + 64;
            c->touching = touching_carve(event_view_block(L, &h, kTouchingBlock, touching_bytes(id_cap, pair_cap)), id_cap,
                                         pair_cap);
        }
        touching_build(f, c->touching);
        c->touching_of = c->generation;
    }
    const Touching& t = c->touching;
    Results r;
    event_list_open(&r, L);
    const int64_t* found = std::lower_bound(f.ids, f.ids + f.id_count, id);
    if (found != f.ids + f.id_count && *found == id) {
        const uint32_t at = static_cast<uint32_t>(found - f.ids);
        for (uint32_t i = t.off[at]; i < t.off[at + 1]; ++i) results_int(&r, static_cast<lua_Integer>(f.ids[t.nbr[i]]));
    }
    const int results = event_list_close(&r);
    held_end(&h);
    return results;
}

// contacts:stats([t]) -> t: t.full and t.incremental, the updates that took each path; t.grids,
// the grids the incremental path built.
int l_stats(lua_State* L) {
    Contacts* c = check_contacts(L, 1);
    // Read before the table is made: a finalizer that making it runs may close the object.
    const Counter counters[] = {
        {"full", c->full_updates},
        {"incremental", c->incremental_updates},
        {"grids", c->state.builds},
    };
    if (opt_out(L, 2) == 0) {  // "table or nil expected", as the other stats say
        lua_settop(L, 1);
        lua_createtable(L, 0, 2);
    } else {
        lua_settop(L, 2);
    }
    return event_stats(L, 2, counters, sizeof counters / sizeof counters[0]);
}

int l_close(lua_State* L) { return event_close(L, kContacts); }

int l_tostring(lua_State* L) { return event_tostring(L, kContacts); }

const luaL_Reg methods[] = {
    {"update", l_update}, {"touching", l_touching}, {"stats", l_stats}, {"close", l_close}, {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {{"contacts", l_new}, {nullptr, nullptr}};

}  // namespace

void open_contacts(lua_State* L, const Tables& t) {
    open_event_class(L, t, kContacts, l_close, l_tostring, methods, module_functions);
}

}  // namespace lua
}  // namespace soageo
