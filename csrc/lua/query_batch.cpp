// Many shapes of one kind against a layer in one call: layer:in_sector_batch(params, ...).
// `params` is a flat array, `arity` numbers per shape (e.g. x, y, dx, dy, radius, half_angle
// for sectors); the result is flat (shape_index, id) pairs, shape by shape in order.
#include <cmath>

#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

enum class Kind { sector, circle, box, capsule };

struct Batch {
    const char* name;
    Kind kind;
    int arity;
    const char* layout;  // for error messages
};

// Reads shape `index` (1-based) from the params array at `params` into `v`, or says why not.
const char* read_numbers(lua_State* L, int params, int index, int arity, double* v) {
    for (int j = 0; j < arity; ++j) {
        lua_rawgeti(L, params, static_cast<lua_Integer>(index - 1) * arity + j + 1);
        int isnum = 0;
        v[j] = lua_tonumberx(L, -1, &isnum);
        bool number = lua_type(L, -1) == LUA_TNUMBER;
        lua_pop(L, 1);
        if (!isnum || !number || !std::isfinite(v[j]) || !std::isfinite(static_cast<float>(v[j])))
            return "must be finite numbers";
    }
    return nullptr;
}

const char* check_shape(Kind kind, const double* v) {
    switch (kind) {
    case Kind::sector:
        if (v[2] == 0 && v[3] == 0) return "has a zero direction";
        if (v[4] < 0) return "has a negative radius";
        if (!(v[5] > 0 && v[5] <= M_PI)) return "has a half_angle outside (0, pi]";
        return nullptr;
    case Kind::circle: return v[2] < 0 ? "has a negative radius" : nullptr;
    case Kind::box: return v[0] > v[2] || v[1] > v[3] ? "has min > max" : nullptr;
    case Kind::capsule: return v[4] < 0 ? "has a negative radius" : nullptr;
    }
    return nullptr;
}

uint32_t run_shape(const KernelTable* k, bool touch, Kind kind, const double* v, const Points& p, Filter f, uint32_t* out) {
    auto fl = [](double d) { return static_cast<float>(d); };
    switch (kind) {
    case Kind::sector: {
        Sector s = make_sector(fl(v[0]), fl(v[1]), v[2], v[3], fl(v[4]), v[5]);
        return (touch ? k->touch_sector : k->in_sector)(p, s, f, out);
    }
    case Kind::circle: {
        Circle c{fl(v[0]), fl(v[1]), fl(v[2])};
        return (touch ? k->touch_circle : k->in_circle)(p, c, f, out);
    }
    case Kind::box: {
        Box b{fl(v[0]), fl(v[1]), fl(v[2]), fl(v[3])};
        return (touch ? k->touch_box : k->in_box)(p, b, f, out);
    }
    case Kind::capsule: {
        float x0 = fl(v[0]), y0 = fl(v[1]);
        Capsule c{x0, y0, fl(v[2]) - x0, fl(v[3]) - y0, 0.0f, fl(v[4])};
        c.len2 = c.dx * c.dx + c.dy * c.dy;
        if (c.len2 == 0.0f) return k->touch_circle(p, Circle{x0, y0, c.radius}, f, out);
        return k->touch_capsule(p, c, f, out);
    }
    }
    return 0;
}

// (self, params [, out [, mask]]) -> out, n   with out = {shape1, id1, shape2, id2, ...}
int query_batch(lua_State* L, const Batch& b, bool touch) {
    Layer* layer = check_layer(L, 1);
    luaL_argexpected(L, lua_type(L, 2) == LUA_TTABLE, 2, "table");
    lua_Unsigned len = lua_rawlen(L, 2);
    if (len % b.arity != 0 || len / b.arity > 0x7fffffff)
        luaL_argerror(L, 2, lua_pushfstring(L, "params must hold %d numbers per shape (%s)", b.arity, b.layout));
    int shapes = static_cast<int>(len / b.arity);
    double v[6];
    for (int i = 1; i <= shapes; ++i) {  // every shape is checked before any runs
        const char* why = read_numbers(L, 2, i, b.arity, v);
        if (!why) why = check_shape(b.kind, v);
        if (why) luaL_argerror(L, 2, lua_pushfstring(L, "shape %d %s", i, why));
    }
    int out = opt_out(L, 3);
    Filter f = opt_filter(L, 4);
    if (out == 0) {
        lua_newtable(L);
        out = lua_gettop(L);
    }
    lua_getiuservalue(L, 1, kColumnsValue);  // pinned while results are written (see push_ids)
    const KernelTable* k = context(L)->kernels;
    const Columns& col = layer->s.col;
    lua_Integer n = 0;
    for (int i = 1; i <= shapes; ++i) {
        read_numbers(L, 2, i, b.arity, v);
        uint32_t hits = run_shape(k, touch, b.kind, v, points_of(layer->s), f, col.hits);
        for (uint32_t h = 0; h < hits; ++h) {
            lua_pushinteger(L, i);
            lua_rawseti(L, out, 2 * n + 1);
            lua_pushinteger(L, static_cast<lua_Integer>(col.id[col.hits[h]]));
            lua_rawseti(L, out, 2 * n + 2);
            ++n;
        }
    }
    clear_tail(L, out, 2 * n + 1);
    lua_pop(L, 1);  // the pinned block
    lua_pushvalue(L, out);
    lua_pushinteger(L, n);
    return 2;
}

const Batch sectors{"sector", Kind::sector, 6, "x, y, dx, dy, radius, half_angle"};
const Batch circles{"circle", Kind::circle, 3, "x, y, radius"};
const Batch boxes{"box", Kind::box, 4, "minx, miny, maxx, maxy"};
const Batch capsules{"capsule", Kind::capsule, 5, "x0, y0, x1, y1, radius"};

int l_in_sector_batch(lua_State* L) { return query_batch(L, sectors, false); }
int l_touch_sector_batch(lua_State* L) { return query_batch(L, sectors, true); }
int l_in_circle_batch(lua_State* L) { return query_batch(L, circles, false); }
int l_touch_circle_batch(lua_State* L) { return query_batch(L, circles, true); }
int l_in_box_batch(lua_State* L) { return query_batch(L, boxes, false); }
int l_touch_box_batch(lua_State* L) { return query_batch(L, boxes, true); }
int l_touch_capsule_batch(lua_State* L) { return query_batch(L, capsules, true); }

const luaL_Reg methods[] = {
    {"in_sector_batch", l_in_sector_batch},
    {"touch_sector_batch", l_touch_sector_batch},
    {"in_circle_batch", l_in_circle_batch},
    {"touch_circle_batch", l_touch_circle_batch},
    {"in_box_batch", l_in_box_batch},
    {"touch_box_batch", l_touch_box_batch},
    {"touch_capsule_batch", l_touch_capsule_batch},
    {nullptr, nullptr},
};

}  // namespace

void open_batch(lua_State* L, const Tables& t) { add_functions(L, t, t.methods, methods); }

}  // namespace lua
}  // namespace soageo
