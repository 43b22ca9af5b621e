// Writing results to Lua: the one way every binding function fills result tables, as lauxlib
// has one luaL_Buffer.
//
// A result table grows by allocating, an allocation may run finalizers, and a finalizer is Lua
// code that may grow, sweep, close or query the layer (or aoi) the results are read from. A
// Results keeps the rules that make this safe, so that call sites do not re-derive them:
//  - pin: every block read while writing is held on the stack (results_pin) until
//    results_close, so it stays alive even when its owner drops it (a layer that grows);
//  - copy: the caller reads through plain-data copies (Store, EventList, ...) taken before it
//    writes, never through the owner, whose fields a finalizer may change;
//  - watch: where a finalizer may reuse the memory being read rather than drop it (the sweep
//    scratch of a layer, reused by a nested pairs()), the caller watches its owner's use
//    counter (results_watch); results_stale() then says the results must be computed again:
//    the caller drops what it wrote with lua_settop(L, r.base) and starts over.
// Plain data with free functions: nothing here has a destructor (Lua's errors longjmp).
#pragma once

#include <lua.hpp>

#include <cstdint>

namespace soageo {
namespace lua {

struct Results {
    lua_State* L;
    int base;             // the stack as results_open found it
    int tables;           // result tables (cast_segment fills two in step)
    int table[2];         // their stack indices
    lua_Integer n[2];     // entries written into each
    int watches;
    const uint32_t* watched[2];
    uint32_t seen[2];
};

void results_open(lua_State* L, Results* r);
// Pins user value `uv` of the object at stack index `owner` until results_close.
void results_pin(Results* r, int owner, int uv);
// Watches a use counter: results_stale() is true once it differs from its value now.
void results_watch(Results* r, const uint32_t* counter);
// Adds a result table: `out` (a stack index from opt_out) or, when 0, a new table with room
// for `hint` entries. May run finalizers: read pointers after it, or pin first.
void results_table(Results* r, int out, lua_Integer hint);
// Clears what each table held after the results (the stale tail of a reused table), drops the
// pins and leaves the tables on top of the stack, in the order they were added.
void results_close(Results* r);

inline bool results_stale(const Results* r) {
    for (int i = 0; i < r->watches; ++i)
        if (*r->watched[i] != r->seen[i]) return true;
    return false;
}
inline void results_int(Results* r, lua_Integer v, int t = 0) {
    lua_pushinteger(r->L, v);
    lua_rawseti(r->L, r->table[t], ++r->n[t]);
}
inline void results_number(Results* r, lua_Number v, int t = 0) {
    lua_pushnumber(r->L, v);
    lua_rawseti(r->L, r->table[t], ++r->n[t]);
}

// Clears out[from], out[from + 1], ... up to the first nil.
void clear_tail(lua_State* L, int out, lua_Integer from);

}  // namespace lua
}  // namespace soageo
