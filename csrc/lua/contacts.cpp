// soageo.contacts(layer): contact events, the boxes (centre +- r) that began or stopped
// overlapping since the last update, as a diff of two successive layer:pairs(). An update
// where few entities changed searches only around those (contacts_incremental); else it
// sweeps the layer and merges the sorted pairs with the last ones. The class
// follows liolib's pattern and the aoi's rules: all memory in user values (Lua-allocated),
// every allocation before anything changes, finalizers that use the object during one of its
// calls make that call raise instead of working on stale state.
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
    EventHead head;          // epoch: bumped when an update starts and when it commits
    SweepScratch scratch;
    ContactFrame frame[2];  // frame[current]: the pairs of the last update
    int current;
    EventList began, ended;
    Touching touching;       // frame[current] as neighbour lists, for touching(); built on demand
    ContactState state;      // what the incremental path keeps between updates (contacts_incremental)
    BandScratch bands;       // the full path's y bands, as layer:pairs sweeps a large layer (bands.hpp)
    uint64_t began_recent, ended_recent;  // decaying peaks of the event counts (shrinking)
    uint32_t touching_of;    // the epoch `touching` describes (0: none)
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

// A new block for user value `uv` of the object at 1 (event_block).
void* new_block(lua_State* L, const Contacts* c, uint32_t epoch, int uv, size_t bytes) {
    return event_block(L, kContacts, &c->head, epoch, uv, bytes);
}

// Event buffers and frames are refilled from scratch by each update: growing copies nothing.
void renew_events(lua_State* L, Contacts* c, uint32_t epoch, EventList& e, int uv, uint64_t cap) {
    events_renew(L, kContacts, &c->head, epoch, e, uv, cap, 0);
}

// As the aoi's, with no room beyond the peak: a diff that finds more grows the list and runs again.
void shrink_events(lua_State* L, Contacts* c, uint32_t epoch, EventList& e, int uv, uint64_t recent) {
    events_shrink(L, kContacts, &c->head, epoch, e, uv, recent, 0);
}

Layer* layer_of(lua_State* L, int idx) { return event_layer(L, idx, kContacts); }

// soageo.contacts(layer)
int l_new(lua_State* L) {
    check_layer(L, 1);
    auto* c = static_cast<Contacts*>(event_new(L, kContacts));
    c->scratch = sweep_scratch_carve(event_first_block(L, kScratchBlock, sweep_scratch_bytes(64)), 64);
    c->frame[0] = contact_frame_carve(event_first_block(L, kFrameA, contact_frame_bytes(1024, 64)), 1024, 64);
    c->frame[1] = contact_frame_carve(event_first_block(L, kFrameB, contact_frame_bytes(1024, 64)), 1024, 64);
    c->began = events_carve(event_first_block(L, kBeganBlock, events_bytes(kEventsFloor)), kEventsFloor);
    c->ended = events_carve(event_first_block(L, kEndedBlock, events_bytes(kEventsFloor)), kEventsFloor);
    c->head.epoch = 1;
    c->head.closed = false;
    lua_settop(L, 1);
    return 1;
}

// contacts:update([began [, ended]]) -> began, ended, n_began, n_ended
int l_update(lua_State* L) {
    Contacts* c = check_contacts(L, 1);
    event_tables(L, kContacts);
    layer_of(L, 1);
    const uint32_t epoch = ++c->head.epoch;
    shrink_events(L, c, epoch, c->began, kBeganBlock, c->began_recent);
    shrink_events(L, c, epoch, c->ended, kEndedBlock, c->ended_recent);
    const KernelTable* k = context(L)->kernels;
    const int after = 1 - c->current;
    uint64_t need = 0;  // pairs of this update, once a sweep has counted them
    uint64_t band_entries = 0;  // band scratch this update's plan needs, once planned
    uint32_t band_count = 0;
    bool incremental = false;
    for (;;) {
        lua_settop(L, 3);
        Layer* layer = layer_of(L, 1);
        const uint32_t n = layer->s.n;
        const ContactFrame& before = c->frame[c->current];
        // The scratch serves this update's ranks and, as the remap, the last update's ids.
        const uint32_t ranks = std::max(n, before.id_count);
        if (c->scratch.cap < ranks) {
            const uint32_t cap = ranks + ranks / 2;
            c->scratch = sweep_scratch_carve(new_block(L, c, epoch, kScratchBlock, sweep_scratch_bytes(cap)), cap);
            c->ranks_current = false;
            lua_pop(L, 1);
        }
        ContactFrame& now = c->frame[after];
        if (now.buf.cap < need || now.id_cap < n) {
            const uint64_t pair_cap = std::max<uint64_t>(std::max(need + need / 2, now.buf.cap), 1024);
            if (pair_cap > (uint64_t(1) << 40) / 24) return luaL_error(L, "too many pairs");
            const uint32_t id_cap = std::max(n + n / 2, now.id_cap);
            now = contact_frame_carve(new_block(L, c, epoch, after == 0 ? kFrameA : kFrameB,
                                                contact_frame_bytes(pair_cap, id_cap)),
                                      pair_cap, id_cap);
            lua_pop(L, 1);
        }
        if (c->state.cap < n) {
            const uint32_t cap = n + n / 2;
            const uint64_t builds = c->state.builds;
            c->state = contact_state_carve(new_block(L, c, epoch, kGridBlock, contact_state_bytes(cap)), cap);
            c->state.builds = builds;
            lua_pop(L, 1);
        }
        if (band_entries > c->bands.entries || band_count > c->bands.bands) {
            const uint64_t entries = band_entries + band_entries / 4;
            const uint32_t bands = band_count + band_count / 4;
            c->bands = band_scratch_carve(new_block(L, c, epoch, kBandBlock, band_scratch_bytes(entries, bands)), entries, bands);
            lua_pop(L, 1);
        }
        // A finalizer run by those allocations may have changed the layer: size again.
        layer = layer_of(L, 1);
        if (layer->s.n != n) continue;
        lua_getiuservalue(L, 1, kLayerOf);
        lua_getiuservalue(L, -1, kColumnsValue);  // pinned: nothing allocates from here to the commit
        const Store st = layer->s;
        // What changed since the last update, when little did: its searches only.
        uint64_t want = 0;
        c->began.n = c->ended.n = 0;
        const ContactStep step = contacts_incremental(st, c->scratch, c->ranks_current, before, now, c->state, *k,
                                                      c->began, c->ended, &want);
        if (step == ContactStep::need_pairs) {
            need = want;
            continue;
        }
        if (step == ContactStep::done) {
            incremental = true;
            if (c->began.n <= c->began.cap && c->ended.n <= c->ended.cap) break;
            // Growing may run a finalizer that changes the layer: start over from the layer.
            if (c->began.n > c->began.cap) renew_events(L, c, epoch, c->began, kBeganBlock, c->began.n + c->began.n / 2);
            if (c->ended.n > c->ended.cap) renew_events(L, c, epoch, c->ended, kEndedBlock, c->ended.n + c->ended.n / 2);
            continue;
        }
        incremental = false;
        c->ranks_current = false;  // until this update commits: it may fail after the ranking
        sweep_prepare(st, c->scratch, true);
        // A large layer is swept in y bands, as layer:pairs does: the same pairs, the same keys.
        const BandPlan plan = band_plan(c->scratch.boxes);
        if (plan.bands && (plan.entries > c->bands.entries || plan.bands > c->bands.bands)) {
            band_entries = plan.entries;
            band_count = plan.bands;
            continue;
        }
        contacts_keep(st, now);  // the columns the sweep saw, before anything can change them
        const uint64_t pairs = pairs_ordered(plan, c->scratch, c->bands, k->sweep_complete, now.buf);
        if (pairs > now.buf.cap) {
            need = pairs;
            continue;
        }
        now.n = pairs;
        // tmp_vals is free once the pairs are ordered: the remap of the last update's ranks.
        // Event lists are sized by what a tick brings, not by the worst case (every pair): a
        // diff that finds more grows them and runs again. A finalizer run by that growth and
        // using this object makes new_block raise, so the frames and scratch are still ours.
        for (;;) {
            c->began.n = c->ended.n = 0;
            contacts_diff(before, now, c->scratch.id_keys, n, c->scratch.tmp_vals, c->began, c->ended);
            if (c->began.n <= c->began.cap && c->ended.n <= c->ended.cap) break;
            if (c->began.n > c->began.cap) renew_events(L, c, epoch, c->began, kBeganBlock, c->began.n + c->began.n / 2);
            if (c->ended.n > c->ended.cap) renew_events(L, c, epoch, c->ended, kEndedBlock, c->ended.n + c->ended.n / 2);
        }
        break;
    }
    // The events go into the tables before the update is committed: growing a table may run
    // out of memory, and the object must then still be at the last update, whose events the
    // caller has. They are pushed from copies of the lists, their blocks pinned while the
    // tables grow. A finalizer that updates this object meanwhile refills those blocks: the
    // tables would then mix two updates, so that raises (the object is as the nested call
    // left it, consistent).
    lua_settop(L, 3);
    const EventList began = c->began, ended = c->ended;
    Results r;
    events_write(&r, L, began, ended, kBeganBlock, kEndedBlock);
    event_unchanged(L, kContacts, &c->head, epoch);
    c->current = after;
    contacts_commit(c->state, c->frame[after], incremental);
    c->ranks_current = true;  // ranked by this update's sweep, or kept by its incremental path
    ++c->head.epoch;  // lists built for touching() during this call described the last frame
    ++(incremental ? c->incremental_updates : c->full_updates);
    c->began_recent = decayed_peak(c->began_recent, began.n);
    c->ended_recent = decayed_peak(c->ended_recent, ended.n);
    return events_close(&r, began.n, ended.n);
}

// contacts:touching(id [, out]) -> out, n: the ids whose boxes overlapped id's at the last
// update, ascending. The first call after an update builds every entity's list (a counting
// sort of the pairs); each call then costs a binary search plus what it returns.
int l_touching(lua_State* L) {
    Contacts* c = check_contacts(L, 1);
    int64_t id = check_id(L, 2);
    event_out(L);
    for (;;) {
        event_alive(L, kContacts, &c->head);
        const uint32_t epoch = c->head.epoch;
        const ContactFrame& f = c->frame[c->current];
        if (c->touching_of != epoch) {
            if (!c->touching.off || c->touching.id_cap < f.id_count || c->touching.pair_cap < f.n) {
                const uint32_t id_cap = f.id_count + f.id_count / 2 + 16;
                const uint64_t pair_cap = f.n + f.n / 2 + 64;
                void* block = event_view_block(L, &c->head, &c->head.epoch, epoch, kTouchingBlock,
                                               touching_bytes(id_cap, pair_cap), 3);
                if (!block) continue;
                c->touching = touching_carve(block, id_cap, pair_cap);
            }
            touching_build(f, c->touching);
            c->touching_of = epoch;
        }
        const ContactFrame frame = f;
        const Touching t = c->touching;
        Results r;
        event_list_open(&r, L, kTouchingBlock, c->current == 0 ? kFrameA : kFrameB, &c->head.epoch);
        const int64_t* found = std::lower_bound(frame.ids, frame.ids + frame.id_count, id);
        if (found != frame.ids + frame.id_count && *found == id) {
            const uint32_t at = static_cast<uint32_t>(found - frame.ids);
            for (uint32_t i = t.off[at]; i < t.off[at + 1]; ++i) results_int(&r, static_cast<lua_Integer>(frame.ids[t.nbr[i]]));
        }
        if (event_rewrite(&r, &c->head)) continue;
        return event_list_close(&r);
    }
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
    if (lua_isnoneornil(L, 2)) {
        lua_settop(L, 1);
        lua_createtable(L, 0, 2);
    } else {
        luaL_checktype(L, 2, LUA_TTABLE);
        lua_settop(L, 2);
    }
    return event_stats(L, 2, counters, sizeof counters / sizeof counters[0]);
}

int l_close(lua_State* L) { return event_close(L, kContacts); }

int l_tostring(lua_State* L) { return event_tostring(L, kContacts); }

const luaL_Reg methods[] = {
    {"update", l_update},
    {"touching", l_touching},
    {"stats", l_stats},
    {"close", l_close},
    {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {
    {"contacts", l_new},
    {nullptr, nullptr},
};

}  // namespace

void open_contacts(lua_State* L, const Tables& t) {
    open_event_class(L, t, kContacts, l_close, l_tostring, methods, module_functions);
}

}  // namespace lua
}  // namespace soageo
