// layer:in_sector and layer:touch_sector.
#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

// (self, x, y, dx, dy, radius, half_angle [, out [, mask]]) -> out, n
int l_in_sector(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Sector s = check_sector(L, 2);
    return query(L, layer, &KernelTable::in_sector, s, 8);
}

int l_touch_sector(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Sector s = check_sector(L, 2);
    return query(L, layer, &KernelTable::touch_sector, s, 8);
}

const luaL_Reg methods[] = {
    {"in_sector", l_in_sector},
    {"touch_sector", l_touch_sector},
    {nullptr, nullptr},
};

}  // namespace

void open_sector(lua_State* L, const Tables& t) { add_functions(L, t, t.methods, methods); }

}  // namespace lua
}  // namespace soageo
