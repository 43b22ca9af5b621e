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
    if (out == 0) {
        lua_newtable(L);
        out = lua_gettop(L);
    }
    const KernelTable* k = kernels(L);
    lua_Integer n = 0;
    for (lua_Unsigned i = 1; i <= count; ++i) {
        lua_rawgeti(L, 2, static_cast<lua_Integer>(i));
        // Checked above; only a finalizer run by a table write below could have changed it.
        if (lua_type(L, -1) != LUA_TTABLE) luaL_argerror(L, 2, "polygons changed during the call");
        if (const char* why = polygon_fault(L, -1, "changed during the call: ", g)) luaL_argerror(L, 2, why);
        lua_pop(L, 1);
        // This polygon's blocks are pinned while its results are written: a table write may
        // run a finalizer that grows the layer or rebuilds its index (see push_ids).
        lua_getiuservalue(L, 1, kColumnsValue);
        lua_getiuservalue(L, 1, kIndexValue);
        const uint32_t* slots;
        uint32_t hits = run_query(k, layer, which, g, f, &slots);
        const int64_t* ids = layer->s.col.id;
        ResultSink sink(L, out);
        const bool sparse = sparse_hits(hits, layer->s.n);
        for (uint32_t h = 0; h < hits; ++h) {
            if (sparse && h + kIdsAhead < hits) __builtin_prefetch(ids + slots[h + kIdsAhead]);
            sink.integer(2 * n + 1, static_cast<lua_Integer>(i));
            sink.integer(2 * n + 2, static_cast<lua_Integer>(ids[slots[h]]));
            ++n;
        }
        lua_pop(L, 2);
    }
    clear_tail(L, out, 2 * n + 1);
    lua_pushvalue(L, out);
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
