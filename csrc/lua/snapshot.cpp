// layer:dump() and soageo.load(s): layer snapshots as strings (see core/snapshot.hpp).
#include <cstring>

#include "../core/snapshot.hpp"
#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

// Written into a scratch userdata, then copied into the string. Not a luaL_Buffer: Lua 5.4's
// lauxlib registers the metatable of its buffer boxes in two steps, and an out-of-memory error
// between them (the OOM host hit it) leaves every later luaL_Buffer box unclosable.
int l_dump(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    size_t size = snapshot_bytes(layer->s.n);
    auto* out = static_cast<unsigned char*>(lua_newuserdatauv(L, size, 0));
    snapshot_write(layer->s, out);
    lua_pushlstring(L, reinterpret_cast<const char*>(out), size);
    return 1;
}

// The new layer is built on the stack and returned only when every check passed; a rejected
// snapshot leaves nothing behind but garbage for the collector.
int l_load(lua_State* L) {
    size_t size = 0;
    const auto* data = reinterpret_cast<const unsigned char*>(luaL_checklstring(L, 1, &size));
    uint32_t n = 0;
    if (const char* why = snapshot_check(data, size, &n)) return luaL_argerror(L, 1, why);
    auto* layer = static_cast<Layer*>(lua_newuserdatauv(L, sizeof(Layer), kLayerValues));
    std::memset(layer, 0, sizeof *layer);
    luaL_setmetatable(L, kLayerClass);
    reserve(L, -1, layer, n ? n : kMaxWidth);
    if (const char* why = snapshot_read(data, n, layer->s)) {
        std::memset(&layer->s, 0, sizeof layer->s);
        layer->closed = true;
        return luaL_argerror(L, 1, why);
    }
    return 1;
}

const luaL_Reg methods[] = {
    {"dump", l_dump},
    {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {
    {"load", l_load},
    {nullptr, nullptr},
};

}  // namespace

void open_snapshot(lua_State* L, const Tables& t) {
    add_functions(L, t, t.methods, methods);
    add_functions(L, t, t.module, module_functions);
}

}  // namespace lua
}  // namespace soageo
