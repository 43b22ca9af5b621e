// Many shapes of one kind against a layer in one call: layer:in_sector_batch(params, ...).
// `params` is a flat array, `arity` numbers per shape (e.g. x, y, dx, dy, radius, half_angle
// for sectors); the result is flat (shape_index, id) pairs, shape by shape in order.
#include "binding.hpp"

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
};

const Rows<Sector> sectors{6, "x, y, dx, dy, radius, half_angle", sector_fault, [](const double* v) {
                               return make_sector(f32(v[0]), f32(v[1]), v[2], v[3], f32(v[4]), v[5]);
                           }};
const Rows<Circle> circles{3, "x, y, radius", circle_fault,
                           [](const double* v) { return circle_of(f32(v[0]), f32(v[1]), f32(v[2])); }};
const Rows<Box> boxes{4, "minx, miny, maxx, maxy", box_fault,
                      [](const double* v) { return box_of(f32(v[0]), f32(v[1]), f32(v[2]), f32(v[3])); }};
const Rows<Capsule> capsules{5, "x0, y0, x1, y1, radius", capsule_fault, [](const double* v) {
                                 return capsule_of(f32(v[0]), f32(v[1]), f32(v[2]), f32(v[3]), f32(v[4]));
                             }};
const Rows<Triangle> triangles{6, "ax, ay, bx, by, cx, cy", triangle_fault, [](const double* v) {
                                   return Triangle{f32(v[0]), f32(v[1]), f32(v[2]), f32(v[3]), f32(v[4]), f32(v[5])};
                               }};
const Rows<Rect> rects{6, "x, y, dx, dy, length, half_width", rect_fault, [](const double* v) {
                           return make_rect(f32(v[0]), f32(v[1]), v[2], v[3], f32(v[4]), f32(v[5]));
                       }};
const Rows<Ring> rings{4, "x, y, inner, outer", ring_fault,
                       [](const double* v) { return ring_of(f32(v[0]), f32(v[1]), f32(v[2]), f32(v[3])); }};

// (self, params [, out [, mask]]) -> out, n   with out = {shape1, id1, shape2, id2, ...}
template <class Shape>
int query_batch(lua_State* L, const Rows<Shape>& rows, Kernel<Shape> KernelTable::*which) {
    Layer* layer = check_layer(L, 1);
    luaL_argexpected(L, lua_type(L, 2) == LUA_TTABLE, 2, "table");
    lua_Unsigned len = lua_rawlen(L, 2);
    if (len % rows.arity != 0 || len / rows.arity > 0x7fffffff)
        luaL_argerror(L, 2, lua_pushfstring(L, "params must hold %d numbers per shape (%s)", rows.arity, rows.layout));
    int shapes = static_cast<int>(len / rows.arity);
    double v[6];
    for (int i = 1; i <= shapes; ++i) {  // every shape is checked before any runs
        const char* why = read_row(L, 2, i, rows.arity, v);
        if (!why) why = rows.fault(v);
        if (why) luaL_argerror(L, 2, lua_pushfstring(L, "shape %d %s", i, why));
    }
    int out = opt_out(L, 3);
    Filter f = opt_filter(L, 4);
    const KernelTable* k = kernels(L);
    // The index is brought up to date (or not) once for the whole batch, before any output.
    if (!index_fresh(layer) && layer->mode != IndexMode::scan) {
        double saved = 0;
        for (int i = 1; i <= shapes; ++i) {
            read_row(L, 2, i, rows.arity, v);
            Shape sh = rows.build(v);
            double s = estimate_saving(layer, [&](const Grid& g) { return area_of(sh, touches(which) ? double(g.reach) : 0.0); });
            saved += s > 0 ? s : 0;
        }
        consider_index(L, 1, layer, saved);
    }
    Results r;
    results_open(L, &r);
    results_pin(&r, 1, kColumnsValue);
    results_pin(&r, 1, kIndexValue);  // the index's block may hold the hits
    results_table(&r, out, 0);
    // A copy: a finalizer run while the table grows may grow the layer or rebuild its index.
    const Layer snap = *layer;
    lua_Integer n = 0;
    for (int i = 1; i <= shapes; ++i) {
        read_row(L, 2, i, rows.arity, v);
        const uint32_t* slots;
        uint32_t hits = run_query(k, &snap, which, rows.build(v), f, &slots);
        const HitIds hit(snap.s.col.id, slots, hits, snap.s.n);
        for (uint32_t h = 0; h < hits; ++h) {
            results_int(&r, i);
            results_int(&r, hit[h]);
        }
        n += hits;
    }
    results_close(&r);
    lua_pushinteger(L, n);
    return 2;
}

int l_in_sector_batch(lua_State* L) { return query_batch(L, sectors, &KernelTable::in_sector); }
int l_touch_sector_batch(lua_State* L) { return query_batch(L, sectors, &KernelTable::touch_sector); }
int l_in_circle_batch(lua_State* L) { return query_batch(L, circles, &KernelTable::in_circle); }
int l_touch_circle_batch(lua_State* L) { return query_batch(L, circles, &KernelTable::touch_circle); }
int l_in_box_batch(lua_State* L) { return query_batch(L, boxes, &KernelTable::in_box); }
int l_touch_box_batch(lua_State* L) { return query_batch(L, boxes, &KernelTable::touch_box); }
int l_touch_capsule_batch(lua_State* L) { return query_batch(L, capsules, &KernelTable::touch_capsule); }
int l_in_triangle_batch(lua_State* L) { return query_batch(L, triangles, &KernelTable::in_triangle); }
int l_touch_triangle_batch(lua_State* L) { return query_batch(L, triangles, &KernelTable::touch_triangle); }
int l_in_rect_batch(lua_State* L) { return query_batch(L, rects, &KernelTable::in_rect); }
int l_touch_rect_batch(lua_State* L) { return query_batch(L, rects, &KernelTable::touch_rect); }
int l_in_ring_batch(lua_State* L) { return query_batch(L, rings, &KernelTable::in_ring); }
int l_touch_ring_batch(lua_State* L) { return query_batch(L, rings, &KernelTable::touch_ring); }

const luaL_Reg methods[] = {
    {"in_sector_batch", l_in_sector_batch},
    {"touch_sector_batch", l_touch_sector_batch},
    {"in_circle_batch", l_in_circle_batch},
    {"touch_circle_batch", l_touch_circle_batch},
    {"in_box_batch", l_in_box_batch},
    {"touch_box_batch", l_touch_box_batch},
    {"touch_capsule_batch", l_touch_capsule_batch},
    {"in_triangle_batch", l_in_triangle_batch},
    {"touch_triangle_batch", l_touch_triangle_batch},
    {"in_rect_batch", l_in_rect_batch},
    {"touch_rect_batch", l_touch_rect_batch},
    {"in_ring_batch", l_in_ring_batch},
    {"touch_ring_batch", l_touch_ring_batch},
    {nullptr, nullptr},
};

}  // namespace

void open_batch(lua_State* L, const Tables& t) { add_functions(L, t, t.methods, methods); }

}  // namespace lua
}  // namespace soageo
