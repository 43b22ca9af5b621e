// Many shapes of one kind against a layer in one call: layer:in_sector_batch(params, ...).
// `params` is a flat array, `arity` numbers per shape (e.g. x, y, dx, dy, radius, half_angle
// for sectors); the result is flat (shape_index, id) pairs, shape by shape in order.
#include "query_batch.hpp"

namespace soageo {
namespace lua {
namespace {

float f32(double v) { return static_cast<float>(v); }

// How rows of one shape kind are read: the rules and builders are check.hpp's.
template <class Shape>
struct Rows {
    int arity;
    const char* layout;  // for error messages
    const char* (*fault)(const double* v);
    Shape (*build)(const double* v);
    uint32_t headings;  // columns holding a direction (read_row)
};

const Rows<Sector> sectors{6, "x, y, dx, dy, radius, half_angle", sector_fault, [](const double* v) {
                               return make_sector(f32(v[0]), f32(v[1]), v[2], v[3], f32(v[4]), v[5]);
                           }, 0b1100};
const Rows<Circle> circles{3, "x, y, radius", circle_fault,
                           [](const double* v) { return make_circle(f32(v[0]), f32(v[1]), f32(v[2])); }, 0};
const Rows<Box> boxes{4, "minx, miny, maxx, maxy", box_fault,
                      [](const double* v) { return make_box(f32(v[0]), f32(v[1]), f32(v[2]), f32(v[3])); }, 0};
const Rows<Capsule> capsules{5, "x0, y0, x1, y1, radius", capsule_fault, [](const double* v) {
                                 return make_capsule(f32(v[0]), f32(v[1]), f32(v[2]), f32(v[3]), f32(v[4]));
                             }, 0};
const Rows<Triangle> triangles{6, "ax, ay, bx, by, cx, cy", triangle_fault, [](const double* v) {
                                   return Triangle{f32(v[0]), f32(v[1]), f32(v[2]), f32(v[3]), f32(v[4]), f32(v[5])};
                               }, 0};
const Rows<Rect> rects{6, "x, y, dx, dy, length, half_width", rect_fault, [](const double* v) {
                           return make_rect(f32(v[0]), f32(v[1]), v[2], v[3], f32(v[4]), f32(v[5]));
                       }, 0b1100};
const Rows<Ring> rings{4, "x, y, inner, outer", ring_fault,
                       [](const double* v) { return make_ring(f32(v[0]), f32(v[1]), f32(v[2]), f32(v[3])); }, 0};

// (self, params [, out [, mask]]) -> out, n   with out = {shape1, id1, shape2, id2, ...}
template <const auto& rows, auto which>
int query_batch(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    luaL_argexpected(L, lua_type(L, 2) == LUA_TTABLE, 2, "table");
    lua_Unsigned len = lua_rawlen(L, 2);
    if (len % rows.arity != 0 || len / rows.arity > 0x7fffffff)
        luaL_argerror(L, 2, lua_pushfstring(L, "params must hold %d numbers per shape (%s)", rows.arity, rows.layout));
    int shapes = static_cast<int>(len / rows.arity);
    double v[6];
    for (int i = 1; i <= shapes; ++i) {  // every shape is checked before any runs
        const char* why = read_row(L, 2, i, rows.arity, v, rows.headings);
        if (!why) why = rows.fault(v);
        if (why) luaL_argerror(L, 2, lua_pushfstring(L, "shape %d %s", i, why));
    }
    int out = opt_out(L, 3);
    // The rows are read again while results are written (run_batch): written into the rows'
    // own table, they would become the later shapes.
    luaL_argcheck(L, out == 0 || !lua_rawequal(L, 2, out), 3, "out must be another table than params");
    Filter f = opt_filter(L, 4);
    auto shape_at = [&](lua_Integer i) {
        // Checked above; only a finalizer run by an allocation since (the index, the result
        // table) could have changed it, and a shape built from a bad row is no shape at all.
        const char* why = read_row(L, 2, static_cast<int>(i), rows.arity, v, rows.headings);
        if (!why) why = rows.fault(v);
        if (why) luaL_argerror(L, 2, lua_pushfstring(L, "shape %d changed during the call: %s", static_cast<int>(i), why));
        return rows.build(v);
    };
    return run_batch(L, layer, which, shapes, shape_at, out, f);
}

const luaL_Reg methods[] = {
    {"in_sector_batch", query_batch<sectors, &KernelTable::in_sector>},
    {"touch_sector_batch", query_batch<sectors, &KernelTable::touch_sector>},
    {"in_circle_batch", query_batch<circles, &KernelTable::in_circle>},
    {"touch_circle_batch", query_batch<circles, &KernelTable::touch_circle>},
    {"in_box_batch", query_batch<boxes, &KernelTable::in_box>},
    {"touch_box_batch", query_batch<boxes, &KernelTable::touch_box>},
    {"touch_capsule_batch", query_batch<capsules, &KernelTable::touch_capsule>},
    {"in_triangle_batch", query_batch<triangles, &KernelTable::in_triangle>},
    {"touch_triangle_batch", query_batch<triangles, &KernelTable::touch_triangle>},
    {"in_rect_batch", query_batch<rects, &KernelTable::in_rect>},
    {"touch_rect_batch", query_batch<rects, &KernelTable::touch_rect>},
    {"in_ring_batch", query_batch<rings, &KernelTable::in_ring>},
    {"touch_ring_batch", query_batch<rings, &KernelTable::touch_ring>},
    {nullptr, nullptr},
};

}  // namespace

void open_batch(lua_State* L, const Tables& t) { add_functions(L, t, t.methods, methods); }

}  // namespace lua
}  // namespace soageo
