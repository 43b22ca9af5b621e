// Oriented rectangles and rings: layer:in_rect, touch_rect, in_ring, touch_ring.
#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

// (self, x, y, dx, dy, length, half_width [, out [, mask]]) -> out, n
int l_in_rect(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Rect r = check_rect(L, 2);
    return query(L, layer, &KernelTable::in_rect, r, 8);
}

int l_touch_rect(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Rect r = check_rect(L, 2);
    return query(L, layer, &KernelTable::touch_rect, r, 8);
}

// (self, x, y, inner, outer [, out [, mask]]) -> out, n
int l_in_ring(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Ring g = check_ring(L, 2);
    return query(L, layer, &KernelTable::in_ring, g, 6);
}

int l_touch_ring(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Ring g = check_ring(L, 2);
    return query(L, layer, &KernelTable::touch_ring, g, 6);
}

const luaL_Reg methods[] = {
    {"in_rect", l_in_rect},
    {"touch_rect", l_touch_rect},
    {"in_ring", l_in_ring},
    {"touch_ring", l_touch_ring},
    {nullptr, nullptr},
};

}  // namespace

void open_rect_ring(lua_State* L, const Tables& t) { add_functions(L, t, t.methods, methods); }

}  // namespace lua
}  // namespace soageo
