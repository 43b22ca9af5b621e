// Writing results to Lua: the one way every binding function fills result tables, as lauxlib
// has one luaL_Buffer. A result table is made (held_table, hold.hpp) or checked before the
// first write; writing then runs no Lua code and no finalizer, so the caller reads its blocks
// directly while it writes. Plain data with free functions: nothing here has a destructor
// (Lua's errors longjmp).
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
    lua_Integer fast_to[2];  // keys up to this one take lua_seti (results_set)
};

void results_open(lua_State* L, Results* r);
// Adds the result table at stack index `t` (a given `out`, or one made by held_table), after
// the call's last allocation: how it is written depends on its metatable, which a finalizer
// may set.
void results_table(Results* r, int t);
// Clears what each table held after the results (the stale tail of a reused table) and leaves
// the tables on top of the stack, in the order they were added, above the stack as
// results_open found it (new tables made since are dropped from their place).
void results_close(Results* r);

// Stores the value on top of the stack as the next entry of table t, as a raw set the fastest
// way each Lua allows. lua_seti's inline fast path writes a slot that already holds a value (a
// reused `out`) without lua_rawseti's call into the table code: less per id on Lua 5.4 and 5.5,
// measured into reused tables of 1,000 to 1,000,000 ids. It is a raw set only for a table
// without a metatable (with one, an empty slot would run __newindex), and on 5.4 it is slower
// than lua_rawseti into empty slots; so results_table lets a plain table
// take lua_seti below its length on 5.4 (every slot on 5.5, faster there even into empty
// slots), anything else lua_rawseti. No Lua code runs in either.
inline void results_set(Results* r, int t) {
    lua_Integer key = ++r->n[t];
    if (key <= r->fast_to[t])
        lua_seti(r->L, r->table[t], key);
    else
        lua_rawseti(r->L, r->table[t], key);
}
inline void results_int(Results* r, lua_Integer v, int t = 0) {
    lua_pushinteger(r->L, v);
    results_set(r, t);
}
inline void results_number(Results* r, lua_Number v, int t = 0) {
    lua_pushnumber(r->L, v);
    results_set(r, t);
}

// Hits are handed to Lua as ids[slots[i]]; when they are sparse in a layer the id column is
// not in cache, and each id is a miss. Asking for the id kIdsAhead hits ahead makes a cold
// query's id writing much faster at 1% hits (bench/bench_lua.lua); for dense hits (slots
// ascending, next to each other) the hardware prefetcher does it and the hint costs a little,
// so HitIds gives it only while hits are at most a quarter of the layer.
constexpr uint32_t kIdsAhead = 16;
struct HitIds {
    const int64_t* ids;
    const uint32_t* slots;
    uint32_t k;
    bool sparse;
    HitIds(const int64_t* i, const uint32_t* s, uint32_t hits, uint32_t entities)
        : ids(i), slots(s), k(hits), sparse(uint64_t(hits) * 4 <= entities) {
        // The first kIdsAhead are asked for at once: a small query's few ids miss together.
        if (sparse)
            for (uint32_t h = 0; h < k && h < kIdsAhead; ++h) __builtin_prefetch(ids + slots[h]);
    }
    // The id of hit h, asking for the one kIdsAhead later.
    lua_Integer operator[](uint32_t h) const {
        if (sparse && h + kIdsAhead < k) __builtin_prefetch(ids + slots[h + kIdsAhead]);
        return static_cast<lua_Integer>(ids[slots[h]]);
    }
};

// Up to this many ids, push_ids writes into a given table directly (layer.cpp): safe for any
// count, faster for few; past it, results_set's lua_seti into a reused table's existing slots
// gains more than the pins and checks cost.
constexpr uint32_t kFewIds = 32;

// Clears out[from], out[from + 1], ... up to the first nil.
void clear_tail(lua_State* L, int out, lua_Integer from);

}  // namespace lua
}  // namespace soageo
