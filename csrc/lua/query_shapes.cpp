// Circle, box, capsule and triangle queries: layer:in_circle ... layer:touch_triangle.
#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

// (self, <the shape's numbers> [, out [, mask]]) -> out, n
int l_in_circle(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Circle c = check_circle(L, 2);
    return query(L, layer, &KernelTable::in_circle, c, 5);
}

int l_touch_circle(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Circle c = check_circle(L, 2);
    return query(L, layer, &KernelTable::touch_circle, c, 5);
}

int l_in_box(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Box b = check_box(L, 2);
    return query(L, layer, &KernelTable::in_box, b, 6);
}

int l_touch_box(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Box b = check_box(L, 2);
    return query(L, layer, &KernelTable::touch_box, b, 6);
}

int l_touch_capsule(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Capsule c = check_capsule(L, 2);
    return query(L, layer, &KernelTable::touch_capsule, c, 7);
}

int l_in_triangle(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Triangle t = check_triangle(L, 2);
    return query(L, layer, &KernelTable::in_triangle, t, 8);
}

int l_touch_triangle(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Triangle t = check_triangle(L, 2);
    return query(L, layer, &KernelTable::touch_triangle, t, 8);
}

const luaL_Reg methods[] = {
    {"in_circle", l_in_circle},
    {"touch_circle", l_touch_circle},
    {"in_box", l_in_box},
    {"touch_box", l_touch_box},
    {"touch_capsule", l_touch_capsule},
    {"in_triangle", l_in_triangle},
    {"touch_triangle", l_touch_triangle},
    {nullptr, nullptr},
};

}  // namespace

void open_shapes(lua_State* L, const Tables& t) { add_functions(L, t, t.methods, methods); }

}  // namespace lua
}  // namespace soageo
