// libFuzzer: random sequences of API calls, decoded from the input, run on an embedded Lua
// state and checked against a plain C++ model of the layer after every call. Bad arguments
// are part of the game: they must raise a Lua error and change nothing.
#include <lua.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>

extern "C" int luaopen_soageo_core(lua_State* L);

namespace {

struct Entity {
    float x, y, r;
    uint32_t mask;
};

struct Input {
    const uint8_t* p;
    size_t n;
    uint8_t byte() {
        uint8_t v = n ? *p : 0;
        if (n) ++p, --n;
        return v;
    }
    double number() {  // mostly small integers, sometimes hostile values
        uint8_t k = byte();
        switch (k % 8) {
        case 0: return NAN;
        case 1: return INFINITY;
        case 2: return -1e39;
        case 3: return (byte() - 128) / 7.0;
        default: return byte() - 128;
        }
    }
};

bool finite32(double v) { return std::isfinite(v) && std::isfinite(static_cast<float>(v)); }

void fail(const char* what) {
    std::fprintf(stderr, "api_fuzz: %s\n", what);
    std::abort();
}

// The layer must hold exactly the model: count, and every entity's stored values.
void compare(lua_State* L, const std::map<int64_t, Entity>& model) {
    lua_getglobal(L, "layer");
    lua_len(L, -1);
    if (lua_tointeger(L, -1) != static_cast<lua_Integer>(model.size())) fail("count differs");
    lua_pop(L, 1);
    for (const auto& [id, e] : model) {
        lua_getfield(L, -1, "get");
        lua_pushvalue(L, -2);
        lua_pushinteger(L, id);
        lua_call(L, 2, 4);
        if (lua_tonumber(L, -4) != e.x || lua_tonumber(L, -3) != e.y || lua_tonumber(L, -2) != e.r ||
            lua_tointeger(L, -1) != e.mask)
            fail("entity differs");
        lua_pop(L, 4);
    }
    lua_pop(L, 1);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    lua_State* L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "soageo.core", luaopen_soageo_core, 0);
    lua_setglobal(L, "core");
    if (luaL_dostring(L, "layer = core.layer(1)") != LUA_OK) fail("setup");
    std::map<int64_t, Entity> model;
    Input in{data, size};
    while (in.n) {
        uint8_t op = in.byte() % 8;
        int64_t id = static_cast<int64_t>(in.byte() % 64) - 8;
        lua_getglobal(L, "layer");
        int layer = lua_gettop(L);
        if (op <= 2) {  // set
            double x = in.number(), y = in.number(), r = in.number();
            uint32_t mask = in.byte();
            lua_getfield(L, layer, "set");
            lua_pushvalue(L, layer);
            lua_pushinteger(L, id);
            lua_pushnumber(L, x);
            lua_pushnumber(L, y);
            lua_pushnumber(L, r);
            lua_pushinteger(L, mask);
            bool ok = lua_pcall(L, 6, 0, 0) == LUA_OK;
            bool valid = finite32(x) && finite32(y) && finite32(r) && r >= 0;
            if (ok != valid) fail("set accepted bad input or refused good input");
            if (ok) model[id] = {static_cast<float>(x), static_cast<float>(y), static_cast<float>(r), mask};
        } else if (op == 3) {  // move
            double x = in.number(), y = in.number();
            lua_getfield(L, layer, "move");
            lua_pushvalue(L, layer);
            lua_pushinteger(L, id);
            lua_pushnumber(L, x);
            lua_pushnumber(L, y);
            bool ok = lua_pcall(L, 4, 0, 0) == LUA_OK;
            bool valid = finite32(x) && finite32(y) && model.count(id);
            if (ok != valid) fail("move");
            if (ok) model[id].x = static_cast<float>(x), model[id].y = static_cast<float>(y);
        } else if (op == 4) {  // remove
            lua_getfield(L, layer, "remove");
            lua_pushvalue(L, layer);
            lua_pushinteger(L, id);
            lua_call(L, 2, 1);
            if (lua_toboolean(L, -1) != (model.erase(id) == 1)) fail("remove");
        } else if (op == 5) {  // a query over everything: its count must be the model's
            if (luaL_dostring(L, "local _, n = layer:touch_circle(0, 0, 1e30); return n") != LUA_OK) fail("query");
            if (lua_tointeger(L, -1) != static_cast<lua_Integer>(model.size())) fail("query count");
        } else if (op == 6) {  // snapshot round trip replaces the layer
            if (luaL_dostring(L, "layer = core.load(layer:dump())") != LUA_OK) fail("dump/load");
        } else {  // pairs and clear, now and then
            if (luaL_dostring(L, "layer:pairs()") != LUA_OK) fail("pairs");
            if (in.byte() % 4 == 0) {
                if (luaL_dostring(L, "layer:clear()") != LUA_OK) fail("clear");
                model.clear();
            }
        }
        lua_settop(L, 0);
        compare(L, model);
    }
    lua_close(L);
    return 0;
}
