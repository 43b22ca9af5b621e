// Shared by the C++ test hosts: a Lua 5.4 state with soageo linked in (its objects, registered
// with luaL_requiref as "soageo.core"), package.path set to the repository's Lua files.
#pragma once

#include <lua.hpp>

#include <string>

extern "C" int luaopen_soageo_core(lua_State* L);

namespace host {

// Opens the standard libraries and soageo in L; the workload is loaded as global `W`.
inline bool prepare(lua_State* L, std::string* error) {
    luaL_openlibs(L);
    luaL_requiref(L, "soageo.core", luaopen_soageo_core, 0);
    lua_pop(L, 1);
    int rc = luaL_dostring(L,
                           "package.path = 'lualib/?.lua;test/hosts/?.lua;test/?.lua;' .. package.path\n"
                           "W = require 'workload'");
    if (rc != LUA_OK) {
        *error = lua_tostring(L, -1);
        lua_pop(L, 1);
        return false;
    }
    return true;
}

// Calls W.run(size, seed) under pcall; returns the status and leaves the digest or the error
// message in *result.
inline int run(lua_State* L, int size, int seed, std::string* result) {
    lua_getglobal(L, "W");
    lua_getfield(L, -1, "run");
    lua_remove(L, -2);
    lua_pushinteger(L, size);
    lua_pushinteger(L, seed);
    int rc = lua_pcall(L, 2, 1, 0);
    const char* s = lua_tostring(L, -1);
    *result = s ? s : "(not a string)";
    lua_pop(L, 1);
    return rc;
}

inline int check(lua_State* L, std::string* error) {
    lua_getglobal(L, "W");
    lua_getfield(L, -1, "check");
    lua_remove(L, -2);
    int rc = lua_pcall(L, 0, 0, 0);
    if (rc != LUA_OK) {
        const char* s = lua_tostring(L, -1);
        *error = s ? s : "(not a string)";
        lua_pop(L, 1);
    }
    return rc;
}

}  // namespace host
