// The windows of hold.hpp.
#include "hold.hpp"

#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

struct UserdataSize {
    size_t bytes;
    int user_values;
};

int make_userdata(lua_State* L) {
    const auto* size = static_cast<const UserdataSize*>(lua_touserdata(L, 1));
    lua_newuserdatauv(L, size->bytes, size->user_values);
    return 1;
}

int make_table(lua_State* L) {
    lua_createtable(L, static_cast<int>(lua_tointeger(L, 1)), 0);
    return 1;
}

// Calls the function under its one argument with the held objects busy. lua_error gives
// Lua's own "not enough memory" object back as a memory error (LUA_ERRMEM), any other as it was.
void run(Held* h) {
    for (int i = 0; i < h->n; ++i) h->hold[i]->busy = true;
    const int status = lua_pcall(h->L, 1, 1, 0);
    for (int i = 0; i < h->n; ++i) h->hold[i]->busy = false;
    if (status != LUA_OK) lua_error(h->L);
}

}  // namespace

void* held_userdata(Held* h, size_t bytes, int user_values) {
    lua_State* L = h->L;
    count_block(L, bytes);
    if (h->n == 0) return lua_newuserdatauv(L, bytes, user_values);  // nothing to keep a finalizer from
    luaL_checkstack(L, 2, nullptr);
    UserdataSize size{bytes, user_values};
    lua_pushcfunction(L, make_userdata);  // a light C function: allocates nothing
    lua_pushlightuserdata(L, &size);
    run(h);
    return lua_touserdata(L, -1);
}

void held_table(Held* h, lua_Integer narr) {
    lua_State* L = h->L;
    if (!(narr > 0 && narr <= 0x3fffffff)) narr = 0;
    if (h->n == 0) {
        lua_createtable(L, static_cast<int>(narr), 0);
        return;
    }
    luaL_checkstack(L, 2, nullptr);
    lua_pushcfunction(L, make_table);
    lua_pushinteger(L, narr);
    run(h);
}

void held_end(Held* h) {
    for (int i = 0; i < h->n; ++i) {
        if (h->hold[i]->close_pending) {
            h->hold[i]->close_pending = false;
            h->close[i](h->L, h->idx[i]);
        }
    }
    pace_collector(h->L);
}

void count_block(lua_State* L, size_t bytes) {
#if LUA_VERSION_NUM >= 505
    context(L)->unpaid += bytes;
#else
    (void)L;
    (void)bytes;
#endif
}

void pace_collector(lua_State* L) {
#if LUA_VERSION_NUM >= 505
    Context* c = context(L);
    if (c->unpaid < kPaceBytes) return;
    const size_t steps = c->unpaid / kPaceBytes;
    c->unpaid %= kPaceBytes;
    // A collector the program stopped stays stopped (LUA_GCSTEP would run it).
    if (!lua_gc(L, LUA_GCISRUNNING)) return;
    for (size_t i = 0; i < steps; ++i) lua_gc(L, LUA_GCSTEP, 0);
#else
    (void)L;
#endif
}

}  // namespace lua
}  // namespace soageo
