// soageo.contacts(layer): contact events, the boxes (centre +- r) that began or stopped
// overlapping since the last update, as a diff of two successive layer:pairs(). An update
// where few entities changed searches only around those (contacts_incremental); else it
// sweeps the layer and merges the sorted pairs with the last ones. The class
// follows liolib's pattern and the aoi's rules: all memory in user values (Lua-allocated),
// every allocation before anything changes, finalizers that use the object during one of its
// calls make that call raise instead of working on stale state.
#include <algorithm>
#include <cstring>

#include "../core/contacts.hpp"
#include "binding.hpp"
#include "check.hpp"
#include "results.hpp"

namespace soageo {
namespace lua {
namespace {

constexpr const char* kContactsClass = "soageo.contacts";

enum : int {
    kLayerOf = 1, kScratchBlock, kFrameA, kFrameB, kBeganBlock, kEndedBlock, kTouchingBlock, kGridBlock,
    kContactsValues = kGridBlock
};

constexpr uint64_t kEventsFloor = 1024;

struct Contacts {
    SweepScratch scratch;
    ContactFrame frame[2];  // frame[current]: the pairs of the last update
    int current;
    EventList began, ended;
    Touching touching;       // frame[current] as neighbour lists, for touching(); built on demand
    void* grid;              // the incremental path's grid (contacts_incremental), grid_cap boxes
    uint32_t grid_cap;
    uint64_t began_recent, ended_recent;  // decaying peaks of the event counts (shrinking)
    uint32_t epoch;          // bumped when an update starts and when it commits
    uint32_t touching_of;    // the epoch `touching` describes (0: none)
    bool closed;
};

Contacts* check_contacts(lua_State* L, int idx) {
    auto* c = static_cast<Contacts*>(luaL_checkudata(L, idx, kContactsClass));
    luaL_argcheck(L, !c->closed, idx, "contacts is closed");
    return c;
}

// A new block for user value `uv` of the object at 1, installed only if no finalizer run by
// the allocation used or closed the object (else a clear error, and the old block stays).
// The old block stays pinned on the stack; the caller pops it.
void* new_block(lua_State* L, const Contacts* c, uint32_t epoch, int uv, size_t bytes) {
    void* b = lua_newuserdatauv(L, bytes, 0);
    if (c->closed || c->epoch != epoch) luaL_error(L, "contacts changed by a finalizer during this call");
    lua_getiuservalue(L, 1, uv);
    lua_insert(L, -2);
    lua_setiuservalue(L, 1, uv);
    return b;
}

void* first_block(lua_State* L, int uv, size_t bytes) {
    void* b = lua_newuserdatauv(L, bytes, 0);
    lua_setiuservalue(L, 1, uv);
    return b;
}

// Event buffers and frames are refilled from scratch by each update: growing copies nothing.
void renew_events(lua_State* L, Contacts* c, uint32_t epoch, EventList& e, int uv, uint64_t cap) {
    e = events_carve(new_block(L, c, epoch, uv, events_bytes(cap)), cap);
    lua_pop(L, 1);
}

uint64_t decayed_peak(uint64_t peak, uint64_t n) {
    peak -= peak / 8;
    return n > peak ? n : peak;
}

// As the aoi's: a buffer more than four times twice its recent peak is given back.
void shrink_events(lua_State* L, Contacts* c, uint32_t epoch, EventList& e, int uv, uint64_t recent) {
    const uint64_t keep = 2 * recent + kEventsFloor;
    if (e.cap > 4 * keep) renew_events(L, c, epoch, e, uv, keep);
}

Layer* layer_of(lua_State* L, int idx) {
    lua_getiuservalue(L, idx, kLayerOf);
    Layer* layer = static_cast<Layer*>(luaL_testudata(L, -1, kLayerClass));
    if (!layer || layer->closed) luaL_error(L, "the contacts' layer is closed");
    lua_pop(L, 1);  // the object keeps it alive
    return layer;
}

// soageo.contacts(layer)
int l_new(lua_State* L) {
    check_layer(L, 1);
    lua_settop(L, 1);
    auto* c = static_cast<Contacts*>(lua_newuserdatauv(L, sizeof(Contacts), kContactsValues));
    std::memset(c, 0, sizeof *c);
    c->closed = true;  // until every block exists: a failed allocation leaves a dead object
    luaL_setmetatable(L, kContactsClass);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, 2, kLayerOf);
    lua_insert(L, 1);  // the object at 1
    c->scratch = sweep_scratch_carve(first_block(L, kScratchBlock, sweep_scratch_bytes(64)), 64);
    c->frame[0] = contact_frame_carve(first_block(L, kFrameA, contact_frame_bytes(1024, 64)), 1024, 64);
    c->frame[1] = contact_frame_carve(first_block(L, kFrameB, contact_frame_bytes(1024, 64)), 1024, 64);
    c->began = events_carve(first_block(L, kBeganBlock, events_bytes(kEventsFloor)), kEventsFloor);
    c->ended = events_carve(first_block(L, kEndedBlock, events_bytes(kEventsFloor)), kEventsFloor);
    c->epoch = 1;
    c->closed = false;
    lua_settop(L, 1);
    return 1;
}

// By value, blocks pinned by the caller: see l_update.
void push_events(Results* r, const EventList e, int t) {
    for (uint64_t i = 0; i < 2 * e.n; ++i) results_int(r, static_cast<lua_Integer>(e.pair[i]), t);
}

// contacts:update([began [, ended]]) -> began, ended, n_began, n_ended
int l_update(lua_State* L) {
    Contacts* c = check_contacts(L, 1);
    int began_out = opt_out(L, 2);
    int ended_out = opt_out(L, 3);
    luaL_argcheck(L, began_out == 0 || ended_out == 0 || !lua_rawequal(L, began_out, ended_out), 3,
                  "ended must be another table than began");
    lua_settop(L, 3);
    if (began_out == 0) {
        lua_newtable(L);
        lua_replace(L, 2);
    }
    if (ended_out == 0) {
        lua_newtable(L);
        lua_replace(L, 3);
    }
    layer_of(L, 1);
    const uint32_t epoch = ++c->epoch;
    shrink_events(L, c, epoch, c->began, kBeganBlock, c->began_recent);
    shrink_events(L, c, epoch, c->ended, kEndedBlock, c->ended_recent);
    const KernelTable* k = context(L)->kernels;
    const int after = 1 - c->current;
    uint64_t need = 0;  // pairs of this update, once a sweep has counted them
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
        if (c->grid_cap < n) {
            const uint32_t cap = n + n / 2;
            c->grid = new_block(L, c, epoch, kGridBlock, contact_grid_bytes(cap));
            c->grid_cap = cap;
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
        const ContactStep step = contacts_incremental(st, c->scratch, before, now, c->grid, c->grid_cap, c->began, c->ended, &want);
        if (step == ContactStep::need_pairs) {
            need = want;
            continue;
        }
        if (step == ContactStep::done) {
            if (c->began.n <= c->began.cap && c->ended.n <= c->ended.cap) break;
            // Growing may run a finalizer that changes the layer: start over from the layer.
            if (c->began.n > c->began.cap) renew_events(L, c, epoch, c->began, kBeganBlock, c->began.n + c->began.n / 2);
            if (c->ended.n > c->ended.cap) renew_events(L, c, epoch, c->ended, kEndedBlock, c->ended.n + c->ended.n / 2);
            continue;
        }
        sweep_prepare(st, c->scratch, true);
        contacts_keep(st, now);  // the columns the sweep saw, before anything can change them
        const uint64_t pairs = k->sweep_complete(c->scratch.boxes, now.buf.a, now.buf.b, now.buf.cap);
        if (pairs > now.buf.cap) {
            need = pairs;
            continue;
        }
        order_pairs(now.buf, pairs, c->scratch, c->scratch, true);
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
    results_open(L, &r);
    results_pin(&r, 1, kBeganBlock);
    results_pin(&r, 1, kEndedBlock);
    results_table(&r, 2, 0);
    results_table(&r, 3, 0);
    push_events(&r, began, 0);
    push_events(&r, ended, 1);
    if (c->closed || c->epoch != epoch) return luaL_error(L, "contacts changed by a finalizer during this call");
    c->current = after;
    ++c->epoch;  // lists built for touching() during this call described the last frame
    c->began_recent = decayed_peak(c->began_recent, began.n);
    c->ended_recent = decayed_peak(c->ended_recent, ended.n);
    results_close(&r);  // began and ended on top
    lua_pushinteger(L, static_cast<lua_Integer>(began.n));
    lua_pushinteger(L, static_cast<lua_Integer>(ended.n));
    return 4;
}

// contacts:touching(id [, out]) -> out, n: the ids whose boxes overlapped id's at the last
// update, ascending. The first call after an update builds every entity's list (a counting
// sort of the pairs); each call then costs a binary search plus what it returns.
int l_touching(lua_State* L) {
    Contacts* c = check_contacts(L, 1);
    int64_t id = check_id(L, 2);
    opt_out(L, 3);
    lua_settop(L, 3);
    if (lua_isnil(L, 3)) {
        lua_newtable(L);
        lua_replace(L, 3);
    }
    for (;;) {
        if (c->closed) return luaL_error(L, "contacts closed by a finalizer during this call");
        const uint32_t epoch = c->epoch;
        const ContactFrame& f = c->frame[c->current];
        if (c->touching_of != epoch) {
            if (!c->touching.off || c->touching.id_cap < f.id_count || c->touching.pair_cap < f.n) {
                const uint32_t id_cap = f.id_count + f.id_count / 2 + 16;
                const uint64_t pair_cap = f.n + f.n / 2 + 64;
                void* block = lua_newuserdatauv(L, touching_bytes(id_cap, pair_cap), 0);
                if (c->closed || c->epoch != epoch) {
                    lua_settop(L, 3);
                    continue;
                }
                lua_setiuservalue(L, 1, kTouchingBlock);
                c->touching = touching_carve(block, id_cap, pair_cap);
            }
            touching_build(f, c->touching);
            c->touching_of = epoch;
        }
        const ContactFrame frame = f;
        const Touching t = c->touching;
        Results r;
        results_open(L, &r);
        results_pin(&r, 1, kTouchingBlock);  // pinned while `out` grows
        results_pin(&r, 1, c->current == 0 ? kFrameA : kFrameB);
        results_watch(&r, &c->epoch);
        results_table(&r, 3, 0);
        const int64_t* found = std::lower_bound(frame.ids, frame.ids + frame.id_count, id);
        if (found != frame.ids + frame.id_count && *found == id) {
            const uint32_t at = static_cast<uint32_t>(found - frame.ids);
            for (uint32_t i = t.off[at]; i < t.off[at + 1]; ++i) results_int(&r, static_cast<lua_Integer>(frame.ids[t.nbr[i]]));
        }
        if (c->closed || results_stale(&r)) {
            lua_settop(L, 3);
            continue;
        }
        lua_Integer k = r.n[0];
        results_close(&r);
        lua_pushinteger(L, k);
        return 2;
    }
}

int l_close(lua_State* L) {
    auto* c = static_cast<Contacts*>(luaL_checkudata(L, 1, kContactsClass));
    if (!c->closed) {
        std::memset(c, 0, sizeof *c);
        c->closed = true;
        for (int v = 1; v <= kContactsValues; ++v) {
            lua_pushnil(L);
            lua_setiuservalue(L, 1, v);
        }
    }
    return 0;
}

int l_tostring(lua_State* L) {
    auto* c = static_cast<Contacts*>(luaL_checkudata(L, 1, kContactsClass));
    lua_pushfstring(L, c->closed ? "soageo.contacts (closed): %p" : "soageo.contacts: %p", static_cast<void*>(c));
    return 1;
}

const luaL_Reg methods[] = {
    {"update", l_update},
    {"touching", l_touching},
    {"close", l_close},
    {nullptr, nullptr},
};

const luaL_Reg metamethods[] = {
    {"__gc", l_close},
    {"__close", l_close},
    {"__tostring", l_tostring},
    {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {
    {"contacts", l_new},
    {nullptr, nullptr},
};

}  // namespace

void open_contacts(lua_State* L, const Tables& t) {
    luaL_newmetatable(L, kContactsClass);
    int mt = lua_gettop(L);
    add_functions(L, t, mt, metamethods);
    lua_newtable(L);
    add_functions(L, t, lua_gettop(L), methods);
    lua_setfield(L, mt, "__index");
    lua_pop(L, 1);
    add_functions(L, t, t.module, module_functions);
}

}  // namespace lua
}  // namespace soageo
