// layer:in_sector and layer:touch_sector.
#include <cmath>

#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

using SectorKernel = uint32_t (*)(const Points&, const Sector&, Filter, uint32_t*) noexcept;

// (self, x, y, dx, dy, radius, half_angle [, out [, mask]])
int query_sector(lua_State* L, SectorKernel KernelTable::*which) {
    Layer* layer = check_layer(L, 1);
    lua_Number x = check_float(L, 2, "x");
    lua_Number y = check_float(L, 3, "y");
    lua_Number dx = luaL_checknumber(L, 4);
    lua_Number dy = luaL_checknumber(L, 5);
    luaL_argcheck(L, std::isfinite(dx), 4, "dx must be finite");
    luaL_argcheck(L, std::isfinite(dy), 5, "dy must be finite");
    luaL_argcheck(L, dx != 0 || dy != 0, 4, "direction (dx, dy) must not be zero");
    float radius = check_radius(L, 6, "radius");
    lua_Number half = luaL_checknumber(L, 7);
    luaL_argcheck(L, half > 0 && half <= M_PI, 7, "half_angle must be in (0, pi]");
    int out = opt_out(L, 8);
    Filter f = opt_filter(L, 9);

    Sector s = make_sector(x, y, dx, dy, radius, half);
    const Store& st = layer->s;
    uint32_t k = (context(L)->kernels->*which)(points_of(st), s, f, st.col.hits);
    push_ids(L, 1, out, st.col.id, st.col.hits, k);
    lua_pushinteger(L, k);
    return 2;
}

int l_in_sector(lua_State* L) { return query_sector(L, &KernelTable::in_sector); }
int l_touch_sector(lua_State* L) { return query_sector(L, &KernelTable::touch_sector); }

const luaL_Reg methods[] = {
    {"in_sector", l_in_sector},
    {"touch_sector", l_touch_sector},
    {nullptr, nullptr},
};

}  // namespace

void open_sector(lua_State* L, const Tables& t) { add_functions(L, t, t.methods, methods); }

}  // namespace lua
}  // namespace soageo
