// luaopen_soageo_core: the module table, the per-state context, the SIMD target in use.
#include <cstdlib>

#include "../core/dispatch.hpp"
#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

int l_arch(lua_State* L) {
    lua_pushstring(L, context(L)->kernels->name);
    return 1;
}

int l_archs(lua_State* L) {
    const KernelTable* all[8];
    size_t n = kernels_available(all, 8);
    lua_createtable(L, static_cast<int>(n), 0);
    for (size_t i = 0; i < n; ++i) {
        lua_pushstring(L, all[i]->name);
        lua_rawseti(L, -2, static_cast<lua_Integer>(i + 1));
    }
    return 1;
}

// Switches this Lua state (only) to another target; returns the previous name. Tests use it to
// run every target in one process; services normally never call it.
int l_use_arch(lua_State* L) {
    const char* name = luaL_checkstring(L, 1);
    const KernelTable* k = kernels_named(name);
    if (!k) return luaL_argerror(L, 1, lua_pushfstring(L, "'%s' is not a target this CPU runs", name));
    Context* c = context(L);
    lua_pushstring(L, c->kernels->name);
    c->kernels = k;
    return 1;
}

const luaL_Reg module_functions[] = {
    {"arch", l_arch},
    {"archs", l_archs},
    {"use_arch", l_use_arch},
    {nullptr, nullptr},
};

}  // namespace

void add_functions(lua_State* L, const Tables& t, int table, const luaL_Reg* fns) {
    lua_pushvalue(L, table);
    lua_pushvalue(L, t.context);
    luaL_setfuncs(L, fns, 1);
    lua_pop(L, 1);
}

}  // namespace lua
}  // namespace soageo

using namespace soageo::lua;

SOAGEO_EXPORT int luaopen_soageo_core(lua_State* L) {
    // First, before any other Lua call: a module built against another Lua's headers (5.4
    // loaded by skynet HEAD's 5.5, or the reverse) disagrees with the process on the layout of
    // Lua's own structures and would crash it; this refuses at `require` with "version
    // mismatch: app. needs 504.0, Lua core provides 505.0".
    luaL_checkversion(L);
    const soageo::KernelTable* kernels = soageo::kernels_best();
    const char* forced = std::getenv("SOAGEO_ARCH");
    if (forced && *forced) {
        kernels = soageo::kernels_named(forced);
        if (!kernels) return luaL_error(L, "SOAGEO_ARCH=%s: not a target this CPU runs (see soageo.archs())", forced);
    }
    lua_newtable(L);
    int module = lua_gettop(L);
    auto* ctx = static_cast<Context*>(lua_newuserdatauv(L, sizeof(Context), 0));
    ctx->kernels = kernels;
    ctx->unpaid = 0;
    int context_idx = lua_gettop(L);
    luaL_newmetatable(L, kLayerClass);
    int metatable = lua_gettop(L);
    lua_newtable(L);
    int methods = lua_gettop(L);
    Tables t{module, metatable, methods, context_idx};

    add_functions(L, t, module, module_functions);
    open_layer(L, t);
    open_snapshot(L, t);
    open_shapes(L, t);
    open_polygon(L, t);
    open_segment(L, t);
    open_batch(L, t);
    open_pairs(L, t);
    open_aoi(L, t);
    open_contacts(L, t);
    open_index(L, t);
    open_walls(L, t);
    open_tiles(L, t);
    open_history(L, t);
    open_share(L, t);

    lua_pushvalue(L, methods);
    lua_setfield(L, metatable, "__index");
    lua_settop(L, module);
    return 1;
}
