// What the fuzz targets that drive a Lua `probe` share (load_fuzz, merge_fuzz): one embedded
// Lua 5.4 state for the whole run, holding soageo.core and the target's script (which defines
// the global function `probe`); inputs that get a valid snapshot checksum, so that the content
// checks behind it are reached; and a call of probe that is a find when it raises.
#pragma once

#include <lua.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/snapshot.hpp"

extern "C" int luaopen_soageo_core(lua_State* L);

namespace fuzz {

// The state, made on the first call with `script` (fuzz harness only: one per process).
inline lua_State* probe_state(const char* script) {
    static lua_State* L = [script] {
        lua_State* s = luaL_newstate();
        luaL_openlibs(s);
        luaL_requiref(s, "soageo.core", luaopen_soageo_core, 0);
        lua_pop(s, 1);
        if (luaL_dostring(s, script) != LUA_OK) {
            std::fprintf(stderr, "%s\n", lua_tostring(s, -1));
            std::abort();
        }
        return s;
    }();
    return L;
}

// Makes the checksum of `bytes`, read as a snapshot, valid (when it is long enough to have one).
inline void reseal(std::string& bytes) {
    if (bytes.size() < soageo::kSnapshotHeader + soageo::kSnapshotTrailer) return;
    const size_t body = bytes.size() - soageo::kSnapshotTrailer;
    uint64_t h = soageo::snapshot_checksum(reinterpret_cast<const unsigned char*>(bytes.data()), body);
    std::memcpy(&bytes[body], &h, 8);
}

// Calls probe (pushed, then its `nargs` arguments): an error means a layer misbehaved, a find.
inline void run_probe(lua_State* L, int nargs) {
    if (lua_pcall(L, nargs, 0, 0) != LUA_OK) {
        std::fprintf(stderr, "%s\n", lua_tostring(L, -1));
        std::abort();
    }
    lua_settop(L, 0);
    lua_gc(L, LUA_GCCOLLECT);
}

}  // namespace fuzz
