// Circle, box, capsule and triangle queries: layer:in_circle ... layer:touch_triangle.
#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

// Runs a kernel over the layer at index 1 and pushes `out, n` (out at `out_arg`).
template <class Shape>
int finish(lua_State* L, Layer* layer, uint32_t (*kernel)(const Points&, const Shape&, Filter, uint32_t*) noexcept,
           const Shape& shape, int out_arg) {
    int out = opt_out(L, out_arg);
    Filter f = opt_filter(L, out_arg + 1);
    const Store& st = layer->s;
    uint32_t k = kernel(points_of(st), shape, f, st.col.hits);
    push_ids(L, 1, out, st.col.id, st.col.hits, k);
    lua_pushinteger(L, k);
    return 2;
}

Circle check_circle(lua_State* L) {
    return {check_float(L, 2, "x"), check_float(L, 3, "y"), check_radius(L, 4, "radius")};
}

int l_in_circle(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Circle c = check_circle(L);
    return finish(L, layer, context(L)->kernels->in_circle, c, 5);
}

int l_touch_circle(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Circle c = check_circle(L);
    return finish(L, layer, context(L)->kernels->touch_circle, c, 5);
}

Box check_box(lua_State* L) {
    Box b{check_float(L, 2, "minx"), check_float(L, 3, "miny"), check_float(L, 4, "maxx"), check_float(L, 5, "maxy")};
    luaL_argcheck(L, b.minx <= b.maxx, 4, "maxx must be >= minx");
    luaL_argcheck(L, b.miny <= b.maxy, 5, "maxy must be >= miny");
    return b;
}

int l_in_box(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Box b = check_box(L);
    return finish(L, layer, context(L)->kernels->in_box, b, 6);
}

int l_touch_box(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Box b = check_box(L);
    return finish(L, layer, context(L)->kernels->touch_box, b, 6);
}

int l_touch_capsule(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    float x0 = check_float(L, 2, "x0"), y0 = check_float(L, 3, "y0");
    float x1 = check_float(L, 4, "x1"), y1 = check_float(L, 5, "y1");
    float radius = check_radius(L, 6, "radius");
    Capsule c{x0, y0, x1 - x0, y1 - y0, 0.0f, radius};
    c.len2 = c.dx * c.dx + c.dy * c.dy;
    const KernelTable* k = context(L)->kernels;
    if (c.len2 == 0.0f) return finish(L, layer, k->touch_circle, Circle{x0, y0, radius}, 7);
    return finish(L, layer, k->touch_capsule, c, 7);
}

Triangle check_triangle(lua_State* L) {
    return {check_float(L, 2, "ax"), check_float(L, 3, "ay"), check_float(L, 4, "bx"),
            check_float(L, 5, "by"), check_float(L, 6, "cx"), check_float(L, 7, "cy")};
}

int l_in_triangle(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Triangle t = check_triangle(L);
    return finish(L, layer, context(L)->kernels->in_triangle, t, 8);
}

int l_touch_triangle(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Triangle t = check_triangle(L);
    return finish(L, layer, context(L)->kernels->touch_triangle, t, 8);
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
