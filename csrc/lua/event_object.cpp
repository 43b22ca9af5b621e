// The event objects' shared primitives (event_object.hpp).
#include "event_object.hpp"

#include <cstring>

namespace soageo {
namespace lua {

namespace {

// The object's head, at the start of its userdata block (the first member of a standard-layout
// struct: pointer-interconvertible with it).
EventHead* head_of(void* p) { return static_cast<EventHead*>(p); }

}  // namespace

void event_close_at(lua_State* L, int idx, const EventClass& c) {
    void* p = lua_touserdata(L, idx);
    if (head_of(p)->closed) return;
    std::memset(p, 0, c.size);
    head_of(p)->closed = true;
    for (int v = 1; v <= c.values; ++v) {
        lua_pushnil(L);
        lua_setiuservalue(L, idx, v);
    }
}

void* event_check(lua_State* L, int idx, const EventClass& c) {
    void* p = luaL_checkudata(L, idx, c.name);
    EventHead* h = head_of(p);
    if (h->closed | h->hold.busy | h->hold.close_pending) {
        if (h->hold.busy)
            luaL_argerror(L, idx, lua_pushfstring(L, "%s is busy: called from a finalizer during a call", c.noun));
        if (h->hold.close_pending) event_close_at(L, idx, c);  // closed during a call that raised since
        luaL_argerror(L, idx, lua_pushfstring(L, "%s is closed", c.noun));
    }
    // Answers about a closed layer's entities would describe entities that are gone: every
    // method but close refuses.
    if (head_of(p)->layer->closed) luaL_error(L, "%s", c.layer_closed);
    return p;
}

void* event_new(lua_State* L, const EventClass& c) {
    lua_settop(L, 1);
    void* p = lua_newuserdatauv(L, c.size, c.values);
    std::memset(p, 0, c.size);
    head_of(p)->closed = true;  // until every block exists: a failed allocation leaves a dead object
    head_of(p)->layer = static_cast<const Layer*>(lua_touserdata(L, 1));
    luaL_setmetatable(L, c.name);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, 2, kEventLayer);
    lua_insert(L, 1);  // the object at 1, the layer at 2: event_first_block works on index 1
    return p;
}

Layer* event_layer(lua_State* L, int idx, const EventClass& c) {
    lua_getiuservalue(L, idx, kEventLayer);
    auto* layer = static_cast<Layer*>(luaL_testudata(L, -1, kLayerClass));
    if (layer && layer->hold.busy) luaL_error(L, "layer is busy: called from a finalizer during a call");
    if (layer && layer->hold.close_pending) {
        layer->hold.close_pending = false;
        close_layer(L, lua_gettop(L));
    }
    if (!layer || layer->closed) luaL_error(L, "%s", c.layer_closed);
    return layer;
}

void event_hold(Held* h, lua_State* L, EventHead* head, CloseAt close) {
    held_open(h, L);
    held_add(h, 1, &head->hold, close);
}

void* event_first_block(lua_State* L, int uv, size_t bytes) {
    count_block(L, bytes);
    void* b = lua_newuserdatauv(L, bytes, 0);
    lua_setiuservalue(L, 1, uv);
    return b;
}

void* event_block(lua_State* L, Held* h, int uv, size_t bytes) {
    void* b = held_userdata(h, bytes);
    lua_getiuservalue(L, 1, uv);
    lua_insert(L, -2);
    lua_setiuservalue(L, 1, uv);
    return b;
}

void events_renew(lua_State* L, Held* h, EventList& e, int uv, uint64_t cap, uint64_t keep) {
    EventList g = events_carve(event_block(L, h, uv, events_bytes(cap)), cap);
    std::memcpy(g.pair, e.pair, keep * 2 * sizeof(int64_t));
    g.n = keep;
    e = g;
    lua_pop(L, 1);
}

uint64_t decayed_peak(uint64_t peak, uint64_t n) {
    peak -= peak / 8;
    return n > peak ? n : peak;
}

void events_shrink(lua_State* L, Held* h, EventList& e, int uv, uint64_t recent, uint64_t room) {
    const uint64_t keep = 2 * recent + room + kEventsFloor;
    if (e.cap <= 4 * keep) return;
    events_renew(L, h, e, uv, keep, 0);
}

void event_tables_check(lua_State* L, const EventClass& c) {
    int a = opt_out(L, 2);
    int b = opt_out(L, 3);
    if (a != 0 && b != 0 && lua_rawequal(L, a, b)) luaL_argerror(L, 3, c.same_tables);
    lua_settop(L, 3);
}

void event_tables_make(lua_State* L, Held* h) {
    for (int i = 2; i <= 3; ++i) {
        if (lua_isnil(L, i)) {
            held_table(h, 0);
            lua_replace(L, i);
        }
    }
}

void event_out(lua_State* L, Held* h) {
    opt_out(L, 3);
    lua_settop(L, 3);
    if (lua_isnil(L, 3)) {
        held_table(h, 0);
        lua_replace(L, 3);
    }
}

void events_write(Results* r, lua_State* L, const EventList a, const EventList b) {
    results_open(L, r);
    results_table(r, 2);
    results_table(r, 3);
    for (uint64_t i = 0; i < 2 * a.n; ++i) results_int(r, static_cast<lua_Integer>(a.pair[i]), 0);
    for (uint64_t i = 0; i < 2 * b.n; ++i) results_int(r, static_cast<lua_Integer>(b.pair[i]), 1);
}

int events_close(Results* r, uint64_t n_a, uint64_t n_b) {
    results_close(r);  // both tables on top
    lua_pushinteger(r->L, static_cast<lua_Integer>(n_a));
    lua_pushinteger(r->L, static_cast<lua_Integer>(n_b));
    return 4;
}

void* event_view_block(lua_State* L, Held* h, int uv, size_t bytes) {
    void* b = held_userdata(h, bytes);
    lua_setiuservalue(L, 1, uv);
    return b;
}

void event_list_open(Results* r, lua_State* L) {
    results_open(L, r);
    results_table(r, 3);
}

int event_list_close(Results* r) {
    lua_Integer k = r->n[0];
    results_close(r);
    lua_pushinteger(r->L, k);
    return 2;
}

int event_close(lua_State* L, const EventClass& c) {
    EventHead* h = head_of(luaL_checkudata(L, 1, c.name));
    if (h->hold.busy)
        h->hold.close_pending = true;
    else
        event_close_at(L, 1, c);
    return 0;
}

int event_stats(lua_State* L, int t, const Counter* counters, size_t n) {
    lua_settop(L, t);
    for (size_t i = 0; i < n; ++i) {
        lua_pushinteger(L, static_cast<lua_Integer>(counters[i].value));
        lua_setfield(L, t, counters[i].name);
    }
    return 1;
}

int event_tostring(lua_State* L, const EventClass& c) {
    void* p = luaL_checkudata(L, 1, c.name);
    const bool closed = head_of(p)->closed || head_of(p)->hold.close_pending;
    lua_pushfstring(L, closed ? "%s (closed): %p" : "%s: %p", c.name, p);
    return 1;
}

void open_event_class(lua_State* L, const Tables& t, const EventClass& c, lua_CFunction close, lua_CFunction tostring,
                      const luaL_Reg* methods, const luaL_Reg* module_functions) {
    const luaL_Reg metamethods[] = {
        {"__gc", close},
        {"__close", close},
        {"__tostring", tostring},
        {nullptr, nullptr},
    };
    luaL_newmetatable(L, c.name);
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
