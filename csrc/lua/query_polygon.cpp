// Convex polygons: layer:in_polygon(coords, ...), touch_polygon, and their batches over a table
// of coordinate tables.
#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

using PolygonKernel = Kernel<Polygon>;

// (self, coords [, out [, mask]])
int query_polygon(lua_State* L, PolygonKernel KernelTable::*which) {
    Layer* layer = check_layer(L, 1);
    Polygon g;
    check_polygon(L, 2, g);
    return query(L, layer, which, g, 3);
}

// (self, polygons [, out [, mask]]) -> out, n  with out = {shape1, id1, shape2, id2, ...}
int query_polygon_batch(lua_State* L, PolygonKernel KernelTable::*which) {
    Layer* layer = check_layer(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Unsigned count = lua_rawlen(L, 2);
    luaL_argcheck(L, count <= 0x7fffffff, 2, "too many polygons");
    Polygon g;
    for (lua_Unsigned i = 1; i <= count; ++i) {  // every polygon is checked before any runs
        lua_rawgeti(L, 2, static_cast<lua_Integer>(i));
        if (lua_type(L, -1) != LUA_TTABLE)
            luaL_argerror(L, 2, lua_pushfstring(L, "polygon %I must be a table of coordinates", static_cast<lua_Integer>(i)));
        const char* prefix = lua_pushfstring(L, "polygon %I: ", static_cast<lua_Integer>(i));
        if (const char* why = polygon_fault(L, -2, prefix, g)) luaL_argerror(L, 2, why);
        lua_pop(L, 2);
    }
    int out = opt_out(L, 3);
    Filter f = opt_filter(L, 4);
    const bool touch = touches(which);
    // The index is brought up to date (or not) once for the whole batch, before any output.
    if (!index_fresh(layer) && layer->mode != IndexMode::scan) {
        double saved = 0;
        for (lua_Unsigned i = 1; i <= count; ++i) {
            lua_rawgeti(L, 2, static_cast<lua_Integer>(i));
            polygon_fault(L, -1, "", g);  // checked above: cannot fail
            lua_pop(L, 1);
            double s = estimate_saving(layer, [&](const Grid& grid) { return area_of(g, touch ? double(grid.reach) : 0.0); });
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
    const KernelTable* k = kernels(L);
    lua_Integer n = 0;
    for (lua_Unsigned i = 1; i <= count; ++i) {
        lua_rawgeti(L, 2, static_cast<lua_Integer>(i));
        // Checked above; only a finalizer run by a table write below could have changed it.
        if (lua_type(L, -1) != LUA_TTABLE) luaL_argerror(L, 2, "polygons changed during the call");
        if (const char* why = polygon_fault(L, -1, "changed during the call: ", g)) luaL_argerror(L, 2, why);
        lua_pop(L, 1);
        const uint32_t* slots;
        uint32_t hits = run_query(k, &snap, which, g, f, &slots);
        const HitIds hit(snap.s.col.id, slots, hits, snap.s.n);
        for (uint32_t h = 0; h < hits; ++h) {
            results_int(&r, static_cast<lua_Integer>(i));
            results_int(&r, hit[h]);
        }
        n += hits;
    }
    results_close(&r);
    lua_pushinteger(L, n);
    return 2;
}

int l_in_polygon(lua_State* L) { return query_polygon(L, &KernelTable::in_polygon); }
int l_touch_polygon(lua_State* L) { return query_polygon(L, &KernelTable::touch_polygon); }
int l_in_polygon_batch(lua_State* L) { return query_polygon_batch(L, &KernelTable::in_polygon); }
int l_touch_polygon_batch(lua_State* L) { return query_polygon_batch(L, &KernelTable::touch_polygon); }

const luaL_Reg methods[] = {
    {"in_polygon", l_in_polygon},
    {"touch_polygon", l_touch_polygon},
    {"in_polygon_batch", l_in_polygon_batch},
    {"touch_polygon_batch", l_touch_polygon_batch},
    {nullptr, nullptr},
};

}  // namespace

void open_polygon(lua_State* L, const Tables& t) { add_functions(L, t, t.methods, methods); }

}  // namespace lua
}  // namespace soageo
