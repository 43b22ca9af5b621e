// libFuzzer: random sequences of API calls, decoded from the input, run on an embedded Lua
// state and checked against a plain C++ model of the layer after every call. Bad arguments
// are part of the game: they must raise a Lua error and change nothing. Walls and tiles are
// built from the input too, and their index checked against the walls (cells) one at a time.
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

// walls_check(coords, ray) and tiles_check(cols, rows, cell, bytes, x0, y0, ray): whether the
// object was accepted; raise when an answer disagrees with the same question asked of each
// wall (blocked cell) alone: the index may never lose a wall, nor visible a blocker.
const char* const kChecks = R"(
local function agree(o, ray, singles)
  local ok, b = pcall(o.blocked, o, ray[1], ray[2], ray[3], ray[4])
  if not ok then return end
  local t, i = o:cast(ray[1], ray[2], ray[3], ray[4])
  if (t ~= nil) ~= b then error("cast disagrees with blocked") end
  if t and not (t >= 0 and t <= 1) then error("cast t outside [0, 1]") end
  local l = core.layer()
  l:set(1, ray[3], ray[4])
  local _, m = o:visible(ray[1], ray[2], l, { 1 })
  local any, all_see = false, true
  for k, one in pairs(singles) do  -- keyed by wall number, or by cell number for tiles
    local bk = one:blocked(ray[1], ray[2], ray[3], ray[4])
    any = any or bk
    if k == i and not bk then error(("cast names %d, which does not block %g %g %g %g"):format(i, ray[1], ray[2], ray[3], ray[4])) end
    local _, mk = one:visible(ray[1], ray[2], l, { 1 })
    all_see = all_see and mk == 1
  end
  if i and not singles[i] then error("cast names a wall or cell that is not there") end
  if any ~= b then error("blocked disagrees with the walls one at a time") end
  if (m == 1) ~= all_see then error("visible disagrees with the walls one at a time") end
  if #o:blocked_many({ ray[1], ray[2], ray[3], ray[4] }) ~= 1 then error("blocked_many") end
end
function walls_check(coords, ray)
  local ok, w = pcall(core.walls, coords)
  if not ok then return false end
  local singles = {}
  for k = 1, #w do singles[k] = core.walls({ w:get(k) }) end
  agree(w, ray, singles)
  return true
end
function tiles_check(cols, rows, cell, bytes, x0, y0, ray)
  local ok, t = pcall(core.tiles, cols, rows, cell, bytes, x0, y0)
  if not ok then return false end
  local singles = {}
  for k = 1, #bytes do
    if bytes:byte(k) == 49 then
      local only = ("0"):rep(k - 1) .. "1" .. ("0"):rep(#bytes - k)
      singles[k] = core.tiles(cols, rows, cell, only, x0, y0)
    end
  end
  agree(t, ray, singles)
  return true
end
)";

void push_numbers(lua_State* L, Input& in, int n, bool* all_finite) {
    lua_createtable(L, n, 0);
    for (int i = 1; i <= n; ++i) {
        const double v = in.number();
        *all_finite = *all_finite && finite32(v);
        lua_pushnumber(L, v);
        lua_rawseti(L, -2, i);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    lua_State* L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "soageo.core", luaopen_soageo_core, 0);
    lua_setglobal(L, "core");
    if (luaL_dostring(L, "layer = core.layer(1)") != LUA_OK || luaL_dostring(L, kChecks) != LUA_OK) fail("setup");
    std::map<int64_t, Entity> model;
    Input in{data, size};
    while (in.n) {
        uint8_t op = in.byte() % 10;
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
        } else if (op == 8) {  // walls: accepted exactly when every number is finite in float32
            bool valid = true, ray_ok = true;
            lua_getglobal(L, "walls_check");
            push_numbers(L, in, 4 * (in.byte() % 6), &valid);
            push_numbers(L, in, 4, &ray_ok);
            if (lua_pcall(L, 2, 1, 0) != LUA_OK) fail(lua_tostring(L, -1));
            if (lua_toboolean(L, -1) != valid) fail("walls accepted bad input or refused good input");
        } else if (op == 9) {  // tiles: the same, with a byte string that may hold other bytes
            const int cols = in.byte() % 5, rows = in.byte() % 5;
            const double cell = in.number(), x0 = in.number(), y0 = in.number();
            char bytes[16];
            bool valid = finite32(cell) && static_cast<float>(cell) > 0 && finite32(x0) && finite32(y0);
            for (int k = 0; k < cols * rows; ++k) {
                const uint8_t b = in.byte();
                bytes[k] = b % 16 == 0 ? '2' : (b % 4 == 0 ? '1' : '0');
                valid = valid && bytes[k] != '2';
            }
            bool ray_ok = true;
            lua_getglobal(L, "tiles_check");
            lua_pushinteger(L, cols);
            lua_pushinteger(L, rows);
            lua_pushnumber(L, cell);
            lua_pushlstring(L, bytes, static_cast<size_t>(cols * rows));
            lua_pushnumber(L, x0);
            lua_pushnumber(L, y0);
            push_numbers(L, in, 4, &ray_ok);
            if (lua_pcall(L, 7, 1, 0) != LUA_OK) fail(lua_tostring(L, -1));
            if (lua_toboolean(L, -1) != valid) fail("tiles accepted bad input or refused good input");
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
