// The single-shape queries: layer:in_sector ... layer:touch_ring, one table, one idiom.
// Polygons (a table of vertices, query_polygon.cpp) and segments (two results,
// query_segment.cpp) have their own files; batches are query_batch.cpp.
#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

// layer:<which>(<the shape's numbers> [, out [, mask]]) -> out, n. `check` reads the shape from
// argument 2 on; `out` is argument `out_arg`, just after the shape's last number.
template <auto check, auto which, int out_arg>
int shape_query(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    const auto shape = check(L, 2);
    return query(L, layer, which, shape, out_arg);
}

const luaL_Reg methods[] = {
    // (self, x, y, dx, dy, radius, half_angle [, out [, mask]])
    {"in_sector", shape_query<check_sector, &KernelTable::in_sector, 8>},
    {"touch_sector", shape_query<check_sector, &KernelTable::touch_sector, 8>},
    // (self, x, y, radius [, out [, mask]])
    {"in_circle", shape_query<check_circle, &KernelTable::in_circle, 5>},
    {"touch_circle", shape_query<check_circle, &KernelTable::touch_circle, 5>},
    // (self, minx, miny, maxx, maxy [, out [, mask]])
    {"in_box", shape_query<check_box, &KernelTable::in_box, 6>},
    {"touch_box", shape_query<check_box, &KernelTable::touch_box, 6>},
    // (self, x0, y0, x1, y1, radius [, out [, mask]])
    {"touch_capsule", shape_query<check_capsule, &KernelTable::touch_capsule, 7>},
    // (self, ax, ay, bx, by, cx, cy [, out [, mask]])
    {"in_triangle", shape_query<check_triangle, &KernelTable::in_triangle, 8>},
    {"touch_triangle", shape_query<check_triangle, &KernelTable::touch_triangle, 8>},
    // (self, x, y, dx, dy, length, half_width [, out [, mask]])
    {"in_rect", shape_query<check_rect, &KernelTable::in_rect, 8>},
    {"touch_rect", shape_query<check_rect, &KernelTable::touch_rect, 8>},
    // (self, x, y, inner, outer [, out [, mask]])
    {"in_ring", shape_query<check_ring, &KernelTable::in_ring, 6>},
    {"touch_ring", shape_query<check_ring, &KernelTable::touch_ring, 6>},
    {nullptr, nullptr},
};

}  // namespace

void open_shapes(lua_State* L, const Tables& t) { add_functions(L, t, t.methods, methods); }

}  // namespace lua
}  // namespace soageo
