// The methods of the read-only views of a layer (past ticks: history.cpp; shared layers:
// share.cpp), made from the layer's own methods table once every file has filled it: a view
// calls the layer's binding function for every query, so no query code exists twice and a
// view answers as the layer does by construction.
#include <cstring>

#include "binding.hpp"

namespace soageo {
namespace lua {

namespace {

// The layer's methods that only read it: names starting with these or listed.
const char* const kQueryPrefixes[] = {"in_", "touch_", "cast_"};
const char* const kReaders[] = {"get", "has", "nearest", "pairs", "pair_count", "dump", "index_mode", "reindex", "stats"};
// The methods that would change it.
const char* const kWriters[] = {"set", "move", "remove", "clear", "set_many", "move_many", "merge", "remove_many", "history", "commit", "past"};

bool listed(const char* name, const char* const* list, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (std::strcmp(name, list[i]) == 0) return true;
    return false;
}

bool listed(const char* name, const char* const* list) {
    for (; list && *list; ++list)
        if (std::strcmp(name, *list) == 0) return true;
    return false;
}

bool reads(const char* name) {
    for (const char* p : kQueryPrefixes)
        if (std::strncmp(name, p, std::strlen(p)) == 0) return true;
    return listed(name, kReaders, sizeof kReaders / sizeof kReaders[0]);
}

}  // namespace

void view_methods(lua_State* L, const Tables& t, int methods, ViewWrap wrap, lua_CFunction read_only,
                  const char* const* more_writers) {
    methods = lua_absindex(L, methods);
    lua_pushnil(L);
    while (lua_next(L, t.methods) != 0) {
        const char* name = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : nullptr;
        if (name && lua_tocfunction(L, -1) && reads(name) && !listed(name, more_writers)) {
            wrap(L, t, name);
            lua_setfield(L, methods, name);
        } else {
            lua_pop(L, 1);
        }
    }
    for (const char* w : kWriters) {
        lua_pushvalue(L, t.context);
        lua_pushcclosure(L, read_only, 1);
        lua_setfield(L, methods, w);
    }
    for (const char* const* w = more_writers; w && *w; ++w) {
        lua_pushvalue(L, t.context);
        lua_pushcclosure(L, read_only, 1);
        lua_setfield(L, methods, *w);
    }
}

}  // namespace lua
}  // namespace soageo
