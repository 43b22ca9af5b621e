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

void* event_check(lua_State* L, int idx, const EventClass& c) {
    void* p = luaL_checkudata(L, idx, c.name);
    if (head_of(p)->closed) luaL_argerror(L, idx, lua_pushfstring(L, "%s is closed", c.noun));
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
    // Every call checked the object open on entry: closed now (its layer value gone with the
    // rest) means that a finalizer run by an allocation of this call closed it.
    event_alive(L, c, head_of(lua_touserdata(L, idx)));
    lua_getiuservalue(L, idx, kEventLayer);
    Layer* layer = static_cast<Layer*>(luaL_testudata(L, -1, kLayerClass));
    if (!layer || layer->closed) luaL_error(L, "%s", c.layer_closed);
    lua_pop(L, 1);  // the object keeps it alive
    return layer;
}

void event_unchanged(lua_State* L, const EventClass& c, const EventHead* h, uint32_t epoch) {
    if (h->closed || h->epoch != epoch) luaL_error(L, "%s changed by a finalizer during this call", c.noun);
}

void event_alive(lua_State* L, const EventClass& c, const EventHead* h) {
    if (h->closed) luaL_error(L, "%s closed by a finalizer during this call", c.noun);
}

void* event_first_block(lua_State* L, int uv, size_t bytes) {
    void* b = lua_newuserdatauv(L, bytes, 0);
    lua_setiuservalue(L, 1, uv);
    return b;
}

void* event_block(lua_State* L, const EventClass& c, const EventHead* h, uint32_t epoch, int uv, size_t bytes) {
    void* b = lua_newuserdatauv(L, bytes, 0);
    event_unchanged(L, c, h, epoch);
    lua_getiuservalue(L, 1, uv);
    lua_insert(L, -2);
    lua_setiuservalue(L, 1, uv);
    return b;
}

void events_renew(lua_State* L, const EventClass& c, const EventHead* h, uint32_t epoch, EventList& e, int uv,
                  uint64_t cap, uint64_t keep) {
    EventList g = events_carve(event_block(L, c, h, epoch, uv, events_bytes(cap)), cap);
    std::memcpy(g.pair, e.pair, keep * 2 * sizeof(int64_t));
    g.n = keep;
    e = g;
    lua_pop(L, 1);
}

uint64_t decayed_peak(uint64_t peak, uint64_t n) {
    peak -= peak / 8;
    return n > peak ? n : peak;
}

void events_shrink(lua_State* L, const EventClass& c, const EventHead* h, uint32_t epoch, EventList& e, int uv,
                   uint64_t recent, uint64_t room) {
    const uint64_t keep = 2 * recent + room + kEventsFloor;
    if (e.cap <= 4 * keep) return;
    events_renew(L, c, h, epoch, e, uv, keep, 0);
}

void event_tables(lua_State* L, const EventClass& c) {
    int a = opt_out(L, 2);
    int b = opt_out(L, 3);
    if (a != 0 && b != 0 && lua_rawequal(L, a, b)) luaL_argerror(L, 3, c.same_tables);
    lua_settop(L, 3);
    for (int i = 2; i <= 3; ++i) {
        if (lua_isnil(L, i)) {
            lua_newtable(L);
            lua_replace(L, i);
        }
    }
}

void event_out(lua_State* L) {
    opt_out(L, 3);
    lua_settop(L, 3);
    if (lua_isnil(L, 3)) {
        lua_newtable(L);
        lua_replace(L, 3);
    }
}

void events_write(Results* r, lua_State* L, const EventList a, const EventList b, int uv_a, int uv_b) {
    results_open(L, r);
    results_pin(r, 1, uv_a);
    results_pin(r, 1, uv_b);
    results_table(r, 2, 0);
    results_table(r, 3, 0);
    for (uint64_t i = 0; i < 2 * a.n; ++i) results_int(r, static_cast<lua_Integer>(a.pair[i]), 0);
    for (uint64_t i = 0; i < 2 * b.n; ++i) results_int(r, static_cast<lua_Integer>(b.pair[i]), 1);
}

int events_close(Results* r, uint64_t n_a, uint64_t n_b) {
    results_close(r);  // both tables on top
    lua_pushinteger(r->L, static_cast<lua_Integer>(n_a));
    lua_pushinteger(r->L, static_cast<lua_Integer>(n_b));
    return 4;
}

void* event_view_block(lua_State* L, const EventHead* h, const uint32_t* counter, uint32_t seen, int uv, size_t bytes,
                       int top) {
    void* b = lua_newuserdatauv(L, bytes, 0);
    if (h->closed || *counter != seen) {
        lua_settop(L, top);
        return nullptr;
    }
    lua_setiuservalue(L, 1, uv);
    return b;
}

void event_list_open(Results* r, lua_State* L, int uv_view, int uv_frame, const uint32_t* counter) {
    results_open(L, r);
    results_pin(r, 1, uv_view);
    results_pin(r, 1, uv_frame);
    results_watch(r, counter);
    results_table(r, 3, 0);
}

bool event_rewrite(Results* r, const EventHead* h) {
    if (!h->closed && !results_stale(r)) return false;
    lua_settop(r->L, r->base);
    return true;
}

int event_list_close(Results* r) {
    lua_Integer k = r->n[0];
    results_close(r);
    lua_pushinteger(r->L, k);
    return 2;
}

int event_close(lua_State* L, const EventClass& c) {
    void* p = luaL_checkudata(L, 1, c.name);
    if (!head_of(p)->closed) {
        std::memset(p, 0, c.size);
        head_of(p)->closed = true;
        for (int v = 1; v <= c.values; ++v) {
            lua_pushnil(L);
            lua_setiuservalue(L, 1, v);
        }
    }
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
    lua_pushfstring(L, head_of(p)->closed ? "%s (closed): %p" : "%s: %p", c.name, p);
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
