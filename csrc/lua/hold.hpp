// How a call keeps finalizers away from the objects it reads (doc/design.md, "Finalizers").
//
// A finalizer is Lua code that runs inside an allocation (the collection step that follows it),
// so it may run inside a soageo call that makes a block or a result table after it has read
// an object's state. Such a call holds the objects it reads (the layer, an aoi and its layer,
// both layers of pairs_between) and makes each of those allocations through a window:
// the objects are busy only while the allocation runs, inside a lua_pcall of its own, so no
// error, the allocation's "not enough memory" included, can leave one busy. A method called on
// a busy object (only a finalizer can call one) raises "<noun> is busy: called from a finalizer
// during a call"; close() on it is recorded and done when the call ends (held_end), or at the
// object's next use when the call raised. So what a call read is what it uses: no call starts
// over, no block needs pinning, no generation counter is watched.
//
// Everything outside a window allocates nothing that runs a collection step: numbers and
// values are pushed, tables grow (on Lua 5.4 and 5.5 a growing table may at most trigger an
// emergency collection, which runs no finalizers). Plain data: nothing here has a destructor.
#pragma once

#include <lua.hpp>

#include <cstddef>

namespace soageo {
namespace lua {

struct Hold {
    bool busy;           // inside one of a call's windows
    bool close_pending;  // close() called while busy: done when that call ends
};

using CloseAt = void (*)(lua_State* L, int idx);

struct Held {
    static constexpr int kMost = 2;
    lua_State* L;
    int n;
    int idx[kMost];        // absolute stack indices of the held objects
    Hold* hold[kMost];
    CloseAt close[kMost];  // what close() does to each (given its stack index)
};

inline void held_open(Held* h, lua_State* L) {
    h->L = L;
    h->n = 0;
}
// Adds the object at stack index `idx`, whose hold is `hold`.
inline void held_add(Held* h, int idx, Hold* hold, CloseAt close) {
    h->idx[h->n] = lua_absindex(h->L, idx);
    h->hold[h->n] = hold;
    h->close[h->n] = close;
    ++h->n;
}

// Pushes a new userdata of `bytes` (and `user_values`) made in a window; returns its block.
void* held_userdata(Held* h, size_t bytes, int user_values = 0);
// Pushes a new table with room for `narr` array entries made in a window.
void held_table(Held* h, lua_Integer narr);
// The table a result goes into: `out` (the index of the caller's table) or, when it is 0, a new
// table made as held_table makes it.
inline int held_out(Held* h, int out) {
    if (out != 0) return out;
    held_table(h, 0);
    return lua_gettop(h->L);
}
// The call is done with its objects: a close() recorded meanwhile takes effect, and the
// collector is paid for the blocks made (pace_collector).
void held_end(Held* h);

// Lua 5.5's collector takes one step of fixed work per allocation it checks, whatever the
// allocation's size (5.4 sizes the step by the bytes), so a program that makes and drops
// layers, each a few large blocks, outruns it: 1,000 dropped layers of 10,000 entities peaked
// at 2.4 GB in incremental mode and 86 MB in generational mode (test/reclaim_spec.lua's
// workload). So on 5.5 every block counts its bytes (count_block), and a call that is done
// with its objects takes one more step per kPaceBytes of them (pace_collector): the same
// workload then stays well within that spec's 64 MB in both modes. Hot paths make no blocks,
// so they take no extra steps.
constexpr size_t kPaceBytes = size_t(256) << 10;
void count_block(lua_State* L, size_t bytes);
void pace_collector(lua_State* L);

}  // namespace lua
}  // namespace soageo
