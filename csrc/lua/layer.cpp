// The layer class (liolib.c's pattern): a named metatable, methods as __index, one idempotent
// close serving __gc and __close.
#include <cstring>

#include "binding.hpp"

namespace soageo {
namespace lua {

Layer* check_layer(lua_State* L, int idx) {
    auto* layer = static_cast<Layer*>(luaL_checkudata(L, idx, kLayerClass));
    luaL_argcheck(L, !layer->closed, idx, "layer is closed");
    return layer;
}

void push_ids(lua_State* L, int layer_idx, int out, const int64_t* ids, const uint32_t* slots, uint32_t k) {
    Results r;
    results_open(L, &r);
    results_pin(&r, layer_idx, kColumnsValue);
    results_table(&r, out, k);
    for (uint32_t i = 0; i < k; ++i) results_int(&r, static_cast<lua_Integer>(ids[slots[i]]));
    results_close(&r);
}

void reserve(lua_State* L, int idx, Layer* layer, uint64_t need) {
    Store& s = layer->s;
    if (need <= s.col.cap) return;
    if (need > kMaxEntities) luaL_error(L, "layer is full (at most %d entities)", static_cast<int>(kMaxEntities));
    uint64_t cap = s.col.cap ? s.col.cap : kMaxWidth;
    while (cap < need) cap *= 2;
    if (cap > kMaxEntities) cap = kMaxEntities;
    idx = lua_absindex(L, idx);
    // Both blocks are allocated before the layer changes: either allocation may raise.
    void* col_block = lua_newuserdatauv(L, columns_bytes(static_cast<uint32_t>(cap)), 0);
    uint32_t map_cap = idmap_cap_for(static_cast<uint32_t>(cap));
    void* map_block = lua_newuserdatauv(L, idmap_bytes(map_cap), 0);
    store_rehome(s, columns_carve(col_block, static_cast<uint32_t>(cap)), idmap_init(map_block, map_cap));
    lua_setiuservalue(L, idx, kMapValue);
    lua_setiuservalue(L, idx, kColumnsValue);
}

namespace {

int l_new(lua_State* L) {
    lua_Integer cap = luaL_optinteger(L, 1, 0);
    luaL_argcheck(L, cap >= 0 && cap <= kMaxEntities, 1, "capacity must be in [0, 2^28]");
    auto* layer = static_cast<Layer*>(lua_newuserdatauv(L, sizeof(Layer), kLayerValues));
    std::memset(layer, 0, sizeof *layer);
    luaL_setmetatable(L, kLayerClass);
    reserve(L, -1, layer, cap ? static_cast<uint64_t>(cap) : kMaxWidth);
    return 1;
}

int l_set(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    int64_t id = check_id(L, 2);
    float x = check_float(L, 3, "x");
    float y = check_float(L, 4, "y");
    float r = lua_isnoneornil(L, 5) ? 0.0f : check_radius(L, 5, "r");
    uint32_t mask = lua_isnoneornil(L, 6) ? 1u : check_mask(L, 6);
    if (idmap_find(layer->s.map, id) == kNoSlot) reserve(L, 1, layer, uint64_t(layer->s.n) + 1);
    store_set(layer->s, id, x, y, r, mask);
    return 0;
}

int l_move(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    int64_t id = check_id(L, 2);
    float x = check_float(L, 3, "x");
    float y = check_float(L, 4, "y");
    uint32_t slot = idmap_find(layer->s.map, id);
    if (slot == kNoSlot) return luaL_argerror(L, 2, "no entity with this id");
    layer->s.col.x[slot] = x;
    layer->s.col.y[slot] = y;
    layer->s.stale |= kStaleMoved;
    return 0;
}

int l_remove(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    lua_pushboolean(L, store_remove(layer->s, check_id(L, 2)));
    return 1;
}

int push_entity(lua_State* L, const Store& s, uint32_t slot) {
    lua_pushnumber(L, s.col.x[slot]);
    lua_pushnumber(L, s.col.y[slot]);
    lua_pushnumber(L, s.col.r[slot]);
    lua_pushinteger(L, s.col.mask[slot]);
    return 4;
}

int l_get(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    uint32_t slot = idmap_find(layer->s.map, check_id(L, 2));
    if (slot == kNoSlot) {
        lua_pushnil(L);
        return 1;
    }
    return push_entity(L, layer->s, slot);
}

int l_has(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    lua_pushboolean(L, idmap_find(layer->s.map, check_id(L, 2)) != kNoSlot);
    return 1;
}

int l_len(lua_State* L) {
    lua_pushinteger(L, check_layer(L, 1)->s.n);
    return 1;
}

int l_clear(lua_State* L) {
    store_clear(check_layer(L, 1)->s);
    return 0;
}

// The generic-for step: the control value is the previous id; nil starts at slot 0.
int l_next(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    const Store& s = layer->s;
    uint32_t slot = 0;
    if (!lua_isnoneornil(L, 2)) {
        uint32_t prev = idmap_find(s.map, check_id(L, 2));
        if (prev == kNoSlot) return luaL_error(L, "layer changed during iteration (id %I removed)", lua_tointeger(L, 2));
        slot = prev + 1;
    }
    if (slot >= s.n) return 0;
    lua_pushinteger(L, static_cast<lua_Integer>(s.col.id[slot]));
    return 1 + push_entity(L, s, slot);
}

int l_each(lua_State* L) {
    check_layer(L, 1);
    lua_pushvalue(L, lua_upvalueindex(2));  // l_next, registered with the context
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

// All arrays are read and checked before the layer changes, so a bad element anywhere (NaN,
// a float id, a missing value) leaves the layer as it was.
int l_set_many(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    int n = check_array(L, 2, "ids");
    const char* names[] = {"ids", "xs", "ys", "rs", "masks"};
    for (int a = 3; a <= 6; ++a) {
        if (a >= 5 && lua_isnoneornil(L, a)) continue;
        if (check_array(L, a, names[a - 2]) != n)
            luaL_argerror(L, a, lua_pushfstring(L, "%s must have as many elements as ids", names[a - 2]));
    }
    bool has_r = !lua_isnoneornil(L, 5), has_mask = !lua_isnoneornil(L, 6);
    uint64_t fresh = 0;
    for (int i = 1; i <= n; ++i) {
        lua_rawgeti(L, 2, i);
        if (!lua_isinteger(L, -1)) luaL_argerror(L, 2, lua_pushfstring(L, "ids[%d] must be an integer", i));
        if (idmap_find(layer->s.map, lua_tointeger(L, -1)) == kNoSlot) ++fresh;
        lua_pop(L, 1);
        for (int a = 3; a <= 6; ++a) {
            if ((a == 5 && !has_r) || (a == 6 && !has_mask)) continue;
            lua_rawgeti(L, a, i);
            bool ok;
            if (a == 6) {
                uint32_t m;
                ok = to_mask(L, -1, &m);
            } else {
                lua_Number v = lua_tonumber(L, -1);
                ok = lua_type(L, -1) == LUA_TNUMBER && (a == 5 ? valid_radius(v) : finite32(v));
            }
            lua_pop(L, 1);
            if (!ok) {
                const char* rule = a == 6 ? "an integer in [0, 0xffffffff]" : a == 5 ? "finite and >= 0" : "finite";
                luaL_argerror(L, a, lua_pushfstring(L, "%s[%d] must be %s", names[a - 2], i, rule));
            }
        }
    }
    reserve(L, 1, layer, uint64_t(layer->s.n) + fresh);
    for (int i = 1; i <= n; ++i) {
        lua_rawgeti(L, 2, i);
        lua_rawgeti(L, 3, i);
        lua_rawgeti(L, 4, i);
        int64_t id = lua_tointeger(L, -3);
        float x = static_cast<float>(lua_tonumber(L, -2));
        float y = static_cast<float>(lua_tonumber(L, -1));
        lua_pop(L, 3);
        float r = 0.0f;
        uint32_t mask = 1u;
        if (has_r) {
            lua_rawgeti(L, 5, i);
            r = static_cast<float>(lua_tonumber(L, -1));
            lua_pop(L, 1);
        }
        if (has_mask) {
            lua_rawgeti(L, 6, i);
            mask = static_cast<uint32_t>(lua_tointeger(L, -1));
            lua_pop(L, 1);
        }
        store_set(layer->s, id, x, y, r, mask);
    }
    return 0;
}

int l_capacity(lua_State* L) {
    lua_pushinteger(L, check_layer(L, 1)->s.col.cap);
    return 1;
}

// Idempotent: serves close(), __close and __gc. The column blocks are dropped with the user
// values and collected by Lua.
int l_close(lua_State* L) {
    auto* layer = static_cast<Layer*>(luaL_checkudata(L, 1, kLayerClass));
    if (!layer->closed) {
        std::memset(&layer->s, 0, sizeof layer->s);
        std::memset(&layer->grid, 0, sizeof layer->grid);
        layer->closed = true;
        ++layer->sweeps;  // a pairs() writing from this layer's scratch starts over (and raises)
        lua_pushnil(L);
        lua_setiuservalue(L, 1, kColumnsValue);
        for (int v = kMapValue; v <= kLayerValues; ++v) {
            lua_pushnil(L);
            lua_setiuservalue(L, 1, v);
        }
    }
    return 0;
}

int l_tostring(lua_State* L) {
    auto* layer = static_cast<Layer*>(luaL_checkudata(L, 1, kLayerClass));
    if (layer->closed)
        lua_pushfstring(L, "soageo.layer (closed): %p", static_cast<void*>(layer));
    else
        lua_pushfstring(L, "soageo.layer (%d entities): %p", static_cast<int>(layer->s.n), static_cast<void*>(layer));
    return 1;
}

const luaL_Reg methods[] = {
    {"set", l_set},
    {"move", l_move},
    {"remove", l_remove},
    {"get", l_get},
    {"has", l_has},
    {"clear", l_clear},
    {"set_many", l_set_many},
    {"capacity", l_capacity},
    {"close", l_close},
    {nullptr, nullptr},
};

const luaL_Reg metamethods[] = {
    {"__len", l_len},
    {"__gc", l_close},
    {"__close", l_close},
    {"__tostring", l_tostring},
    {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {
    {"layer", l_new},
    {nullptr, nullptr},
};

}  // namespace

void open_layer(lua_State* L, const Tables& t) {
    add_functions(L, t, t.methods, methods);
    add_functions(L, t, t.metatable, metamethods);
    add_functions(L, t, t.module, module_functions);
    // each() hands out l_next, which it keeps as its second upvalue.
    lua_pushvalue(L, t.context);
    lua_pushvalue(L, t.context);
    lua_pushcclosure(L, l_next, 1);
    lua_pushcclosure(L, l_each, 2);
    lua_setfield(L, t.methods, "each");
}

}  // namespace lua
}  // namespace soageo
