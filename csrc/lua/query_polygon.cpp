// Convex polygons: layer:in_polygon(coords, ...), touch_polygon, and their batches over a table
// of coordinate tables.
#include "query_batch.hpp"

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
    // The polygons are read again while results are written (run_batch): written into their
    // table or into one of them, results would become the later shapes.
    if (out != 0) {
        luaL_argcheck(L, !lua_rawequal(L, 2, out), 3, "out must be another table than polygons");
        for (lua_Unsigned i = 1; i <= count; ++i) {
            lua_rawgeti(L, 2, static_cast<lua_Integer>(i));
            if (lua_rawequal(L, -1, out))
                luaL_argerror(L, 3, lua_pushfstring(L, "out must be another table than polygon %I", static_cast<lua_Integer>(i)));
            lua_pop(L, 1);
        }
    }
    Filter f = opt_filter(L, 4);
    auto shape_at = [&](lua_Integer i) -> const Polygon& {
        lua_rawgeti(L, 2, i);
        // Checked above; only a finalizer run by an allocation since could have changed it.
        if (lua_type(L, -1) != LUA_TTABLE) luaL_argerror(L, 2, "polygons changed during the call");
        if (const char* why = polygon_fault(L, -1, "changed during the call: ", g)) luaL_argerror(L, 2, why);
        lua_pop(L, 1);
        return g;
    };
    return run_batch(L, layer, which, static_cast<lua_Integer>(count), shape_at, out, f);
}

int l_in_polygon(lua_State* L) { return query_polygon(L, &KernelTable::in_polygon); }
int l_touch_polygon(lua_State* L) { return query_polygon(L, &KernelTable::touch_polygon); }
int l_in_polygon_batch(lua_State* L) { return query_polygon_batch(L, &KernelTable::in_polygon); }
int l_touch_polygon_batch(lua_State* L) { return query_polygon_batch(L, &KernelTable::touch_polygon); }

const luaL_Reg methods[] = {
    {"in_polygon", l_in_polygon}, {"touch_polygon", l_touch_polygon}, {"in_polygon_batch", l_in_polygon_batch},
    {"touch_polygon_batch", l_touch_polygon_batch}, {nullptr, nullptr},
};

}  // namespace

void open_polygon(lua_State* L, const Tables& t) { add_functions(L, t, t.methods, methods); }

}  // namespace lua
}  // namespace soageo
