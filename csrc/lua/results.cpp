// The result writer of results.hpp.
#include "results.hpp"

namespace soageo {
namespace lua {

void results_open(lua_State* L, Results* r) {
    r->L = L;
    r->base = lua_gettop(L);
    r->tables = 0;
}

void results_table(Results* r, int t) {
    lua_State* L = r->L;
    r->table[r->tables] = lua_absindex(L, t);
    r->n[r->tables] = 0;
    lua_Integer fast_to = 0;
    if (lua_getmetatable(L, r->table[r->tables]))
        lua_pop(L, 1);
    else
#if LUA_VERSION_NUM >= 505
        fast_to = LUA_MAXINTEGER;
#else
        fast_to = static_cast<lua_Integer>(lua_rawlen(L, r->table[r->tables]));
#endif
    r->fast_to[r->tables] = fast_to;
    ++r->tables;
}

void results_close(Results* r) {
    lua_State* L = r->L;
    for (int t = 0; t < r->tables; ++t) clear_tail(L, r->table[t], r->n[t] + 1);
    for (int t = 0; t < r->tables; ++t) lua_pushvalue(L, r->table[t]);
    lua_rotate(L, r->base + 1, r->tables);  // the tables below what was pushed since,
    lua_settop(L, r->base + r->tables);     // which is dropped
}

void clear_tail(lua_State* L, int out, lua_Integer from) {
    for (lua_Integer i = from; lua_rawgeti(L, out, i) != LUA_TNIL; ++i) {
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_rawseti(L, out, i);
    }
    lua_pop(L, 1);
}

}  // namespace lua
}  // namespace soageo
