// libFuzzer: soageo.load on arbitrary bytes, through the Lua binding in an embedded Lua 5.4.
// A string is either rejected with a Lua error or gives a layer that then behaves (iterate,
// query, dump again: the dump must load back equal). Half the inputs are mutated real
// snapshots with a fixed checksum, so the content checks behind the checksum get exercised.
#include <lua.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/snapshot.hpp"

extern "C" int luaopen_soageo_core(lua_State* L);

namespace {

lua_State* state() {
    static lua_State* L = [] {  // fuzz harness only: one state for the whole run
        lua_State* s = luaL_newstate();
        luaL_openlibs(s);
        luaL_requiref(s, "soageo.core", luaopen_soageo_core, 0);
        lua_pop(s, 1);
        if (luaL_dostring(s, "core = require 'soageo.core'\n"
                             "function probe(bytes)\n"
                             "  local ok, l = pcall(core.load, bytes)\n"
                             "  if not ok then return end\n"
                             "  local n = 0\n"
                             "  for id in l:each() do n = n + 1; assert(l:get(id)) end\n"
                             "  assert(n == #l)\n"
                             "  local _, k = l:in_circle(0, 0, 1e30)\n"
                             "  local d = l:dump()\n"
                             "  assert(core.load(d):dump() == d)\n"
                             "  l:pairs()\n"
                             "end") != LUA_OK)
            std::abort();
        return s;
    }();
    return L;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    lua_State* L = state();
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (size > 1 && (data[0] & 1) && size >= soageo::kSnapshotHeader + soageo::kSnapshotTrailer) {
        // Reseal: make the checksum valid so that the content checks are reached.
        size_t body = size - soageo::kSnapshotTrailer;
        uint64_t h = soageo::snapshot_checksum(reinterpret_cast<const unsigned char*>(bytes.data()), body);
        std::memcpy(&bytes[body], &h, 8);
    }
    lua_getglobal(L, "probe");
    lua_pushlstring(L, bytes.data(), bytes.size());
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
        std::fprintf(stderr, "%s\n", lua_tostring(L, -1));
        std::abort();  // probe itself failed: a loaded layer misbehaved
    }
    lua_settop(L, 0);
    lua_gc(L, LUA_GCCOLLECT);
    return 0;
}
