// The argument checkers of check.hpp. The wording of each refusal is part of the API (the specs
// assert it): single arguments say "<name> must ...", rows of a batch say "shape <i> has ...".
#include "check.hpp"

#include <cstring>

#include "binding.hpp"

namespace soageo {
namespace lua {

bool to_mask(lua_State* L, int idx, uint32_t* out) {
    // A float with an integral value (2^3) counts as that integer, as in luaL_checkinteger;
    // only ids refuse floats (an id 2.0 is more likely a bug than an id). A string is no mask.
    if (lua_type(L, idx) != LUA_TNUMBER) return false;
    int isnum = 0;
    lua_Integer v = lua_tointegerx(L, idx, &isnum);
    if (!isnum || v < 0 || v > 0xffffffff) return false;
    *out = static_cast<uint32_t>(v);
    return true;
}

float check_float(lua_State* L, int arg, const char* what) {
    // lua_tonumberx itself: luaL_checknumber is one more call around it, on every coordinate
    // (it still gives the message of a value that is no number).
    int isnum = 0;
    lua_Number v = lua_tonumberx(L, arg, &isnum);
    if (!isnum) v = luaL_checknumber(L, arg);
    if (!finite32(v)) luaL_argerror(L, arg, lua_pushfstring(L, "%s must be finite", what));
    return static_cast<float>(v);
}

float check_radius(lua_State* L, int arg, const char* what) {
    lua_Number v = luaL_checknumber(L, arg);
    if (!valid_radius(v)) luaL_argerror(L, arg, lua_pushfstring(L, "%s must be finite and >= 0", what));
    return static_cast<float>(v);
}

int64_t check_id(lua_State* L, int arg) {
    if (!lua_isinteger(L, arg)) {
        if (lua_type(L, arg) == LUA_TNUMBER) luaL_argerror(L, arg, "id must be an integer");
        luaL_typeerror(L, arg, "integer");
    }
    return static_cast<int64_t>(lua_tointeger(L, arg));
}

uint32_t check_mask(lua_State* L, int arg) {
    uint32_t m = 0;
    if (!to_mask(L, arg, &m)) luaL_argerror(L, arg, "mask must be an integer in [0, 0xffffffff]");
    return m;
}

Filter opt_filter(lua_State* L, int arg) {
    if (lua_isnoneornil(L, arg)) return {0, false};
    return {check_mask(L, arg), true};
}

int opt_out(lua_State* L, int arg) {
    if (lua_isnoneornil(L, arg)) return 0;
    luaL_argexpected(L, lua_type(L, arg) == LUA_TTABLE, arg, "table or nil");
    return lua_absindex(L, arg);
}

int check_array(lua_State* L, int arg, const char* what) {
    luaL_argexpected(L, lua_type(L, arg) == LUA_TTABLE, arg, "table");
    lua_Unsigned n = lua_rawlen(L, arg);
    if (n > kMaxEntities) luaL_argerror(L, arg, lua_pushfstring(L, "%s has too many elements", what));
    return static_cast<int>(n);
}

bool check_options(lua_State* L, int arg, const char* const* names) {
    if (lua_isnoneornil(L, arg)) return false;
    luaL_checktype(L, arg, LUA_TTABLE);
    arg = lua_absindex(L, arg);
    // A misspelt option would otherwise be ignored and its default used without a word.
    lua_pushnil(L);
    while (lua_next(L, arg)) {
        lua_pop(L, 1);
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_argerror(L, arg, lua_pushfstring(L, "option names must be strings (got a %s key)", luaL_typename(L, -1)));
        size_t len = 0;
        const char* key = lua_tolstring(L, -1, &len);
        bool known = false;
        for (const char* const* n = names; *n && !known; ++n) known = std::strlen(*n) == len && std::memcmp(*n, key, len) == 0;
        if (!known) luaL_argerror(L, arg, lua_pushfstring(L, "unknown option '%s'", key));
    }
    return true;
}

namespace {

// x, y, dx, dy: where a sector or a rectangle stands and where it points. The direction stays
// in double (make_sector and make_rect normalise it in double). The order of the checks fixes
// which error a call with several bad arguments gets: kept as the specs know it (types of dx
// and dy first, then their values).
struct Heading {
    float x, y;
    lua_Number dx, dy;
};

Heading check_heading(lua_State* L, int arg) {
    Heading h;
    h.x = check_float(L, arg, "x");
    h.y = check_float(L, arg + 1, "y");
    h.dx = luaL_checknumber(L, arg + 2);
    h.dy = luaL_checknumber(L, arg + 3);
    luaL_argcheck(L, std::isfinite(h.dx), arg + 2, "dx must be finite");
    luaL_argcheck(L, std::isfinite(h.dy), arg + 3, "dy must be finite");
    luaL_argcheck(L, valid_direction(h.dx, h.dy), arg + 2, "direction (dx, dy) must not be zero");
    return h;
}

}  // namespace

Sector check_sector(lua_State* L, int arg) {
    const Heading h = check_heading(L, arg);
    float radius = check_radius(L, arg + 4, "radius");
    lua_Number half = luaL_checknumber(L, arg + 5);
    luaL_argcheck(L, valid_half_angle(half), arg + 5, "half_angle must be in (0, pi]");
    return make_sector(h.x, h.y, h.dx, h.dy, radius, half);
}

Circle check_circle(lua_State* L, int arg) {
    float x = check_float(L, arg, "x");
    float y = check_float(L, arg + 1, "y");
    return make_circle(x, y, check_radius(L, arg + 2, "radius"));
}

Box check_box(lua_State* L, int arg) {
    float minx = check_float(L, arg, "minx"), miny = check_float(L, arg + 1, "miny");
    float maxx = check_float(L, arg + 2, "maxx"), maxy = check_float(L, arg + 3, "maxy");
    luaL_argcheck(L, valid_span(minx, maxx), arg + 2, "maxx must be >= minx");
    luaL_argcheck(L, valid_span(miny, maxy), arg + 3, "maxy must be >= miny");
    return make_box(minx, miny, maxx, maxy);
}

static void check_extent(lua_State* L, int arg, float x0, float y0, float x1, float y1) {
    luaL_argcheck(L, finite_extent(x0, x1), arg + 2, "x1 - x0 must be finite");
    luaL_argcheck(L, finite_extent(y0, y1), arg + 3, "y1 - y0 must be finite");
}

Capsule check_capsule(lua_State* L, int arg) {
    float x0 = check_float(L, arg, "x0"), y0 = check_float(L, arg + 1, "y0");
    float x1 = check_float(L, arg + 2, "x1"), y1 = check_float(L, arg + 3, "y1");
    check_extent(L, arg, x0, y0, x1, y1);
    return make_capsule(x0, y0, x1, y1, check_radius(L, arg + 4, "radius"));
}

Triangle check_triangle(lua_State* L, int arg) {
    float ax = check_float(L, arg, "ax"), ay = check_float(L, arg + 1, "ay");
    float bx = check_float(L, arg + 2, "bx"), by = check_float(L, arg + 3, "by");
    float cx = check_float(L, arg + 4, "cx"), cy = check_float(L, arg + 5, "cy");
    return {ax, ay, bx, by, cx, cy};
}

Segment check_segment(lua_State* L, int arg) {
    float x0 = check_float(L, arg, "x0"), y0 = check_float(L, arg + 1, "y0");
    float x1 = check_float(L, arg + 2, "x1"), y1 = check_float(L, arg + 3, "y1");
    check_extent(L, arg, x0, y0, x1, y1);
    return {x0, y0, x1 - x0, y1 - y0};
}

// A rectangle's direction follows the sector's rules (check_heading).
Rect check_rect(lua_State* L, int arg) {
    const Heading h = check_heading(L, arg);
    float length = check_radius(L, arg + 4, "length");
    float half_width = check_radius(L, arg + 5, "half_width");
    return make_rect(h.x, h.y, h.dx, h.dy, length, half_width);
}

Ring check_ring(lua_State* L, int arg) {
    float x = check_float(L, arg, "x"), y = check_float(L, arg + 1, "y");
    float inner = check_radius(L, arg + 2, "inner"), outer = check_radius(L, arg + 3, "outer");
    luaL_argcheck(L, valid_span(inner, outer), arg + 3, "outer must be >= inner");
    return make_ring(x, y, inner, outer);
}

const char* polygon_fault(lua_State* L, int idx, const char* prefix, Polygon& g) {
    idx = lua_absindex(L, idx);
    lua_Unsigned len = lua_rawlen(L, idx);
    if (len % 2 != 0)
        return lua_pushfstring(L, "%scoords must hold x, y pairs (got %I numbers)", prefix, static_cast<lua_Integer>(len));
    if (len < 6 || len > 2 * kMaxPolygon)
        return lua_pushfstring(L, "%scoords must hold 3 to %d vertices (got %I)", prefix, static_cast<int>(kMaxPolygon),
                               static_cast<lua_Integer>(len / 2));
    const uint32_t n = static_cast<uint32_t>(len / 2);
    float xs[kMaxPolygon], ys[kMaxPolygon];
    for (uint32_t i = 0; i < n; ++i) {
        for (int j = 0; j < 2; ++j) {
            lua_rawgeti(L, idx, static_cast<lua_Integer>(2 * i + j + 1));
            bool number = lua_type(L, -1) == LUA_TNUMBER;  // not a numeric string
            lua_Number v = lua_tonumber(L, -1);
            lua_pop(L, 1);
            if (!number || !finite32(v))
                return lua_pushfstring(L, "%svertex %d must be two finite numbers", prefix, static_cast<int>(i + 1));
            (j ? ys : xs)[i] = static_cast<float>(v);
        }
    }
    uint32_t at = 0;
    switch (make_polygon(xs, ys, n, g, &at)) {
    case PolygonError::ok: return nullptr;
    case PolygonError::count: break;  // ruled out above
    case PolygonError::too_few:
        return lua_pushfstring(L, "%spolygon needs 3 distinct vertices (vertex %d repeats its neighbour)", prefix,
                               static_cast<int>(at) + 1);
    case PolygonError::reflex:
        return lua_pushfstring(L, "%spolygon is not convex at vertex %d", prefix, static_cast<int>(at) + 1);
    case PolygonError::turns_back:
        return lua_pushfstring(L, "%spolygon is not convex at vertex %d (it turns back)", prefix, static_cast<int>(at) + 1);
    case PolygonError::winds_twice:
        return lua_pushfstring(L, "%spolygon is not convex (it winds around more than once)", prefix);
    }
    return lua_pushfstring(L, "%scoords must hold 3 to %d vertices", prefix, static_cast<int>(kMaxPolygon));
}

void check_polygon(lua_State* L, int arg, Polygon& g) {
    luaL_checktype(L, arg, LUA_TTABLE);
    if (const char* why = polygon_fault(L, arg, "", g)) luaL_argerror(L, arg, why);
}

const char* read_row(lua_State* L, int params, int row, int count, double* v, uint32_t headings) {
    for (int j = 0; j < count; ++j) {
        lua_rawgeti(L, params, static_cast<lua_Integer>(row - 1) * count + j + 1);
        int isnum = 0;
        v[j] = lua_tonumberx(L, -1, &isnum);
        bool number = lua_type(L, -1) == LUA_TNUMBER;  // not a numeric string
        lua_pop(L, 1);
        const bool finite = (headings >> j & 1u) ? std::isfinite(v[j]) : finite32(v[j]);
        if (!isnum || !number || !finite) return "must be finite numbers";
    }
    return nullptr;
}

namespace {
constexpr const char* kNegativeRadius = "has a negative radius";
float f32(double v) { return static_cast<float>(v); }
}  // namespace

const char* sector_fault(const double* v) {
    if (!valid_direction(v[2], v[3])) return "has a zero direction";
    if (!valid_radius(v[4])) return kNegativeRadius;
    if (!valid_half_angle(v[5])) return "has a half_angle outside (0, pi]";
    return nullptr;
}

const char* circle_fault(const double* v) { return valid_radius(v[2]) ? nullptr : kNegativeRadius; }

const char* box_fault(const double* v) {
    return valid_span(f32(v[0]), f32(v[2])) && valid_span(f32(v[1]), f32(v[3])) ? nullptr : "has min > max";
}

const char* capsule_fault(const double* v) {
    if (!finite_extent(f32(v[0]), f32(v[2])) || !finite_extent(f32(v[1]), f32(v[3])))
        return "has x1 - x0 or y1 - y0 beyond the float32 range";
    return valid_radius(v[4]) ? nullptr : kNegativeRadius;
}

const char* triangle_fault(const double*) { return nullptr; }  // any finite corners make a triangle

const char* rect_fault(const double* v) {
    if (!valid_direction(v[2], v[3])) return "has a zero direction";
    if (!valid_radius(v[4])) return "has a negative length";
    if (!valid_radius(v[5])) return "has a negative half_width";
    return nullptr;
}

const char* ring_fault(const double* v) {
    if (!valid_radius(v[2])) return "has a negative inner radius";
    return valid_span(f32(v[2]), f32(v[3])) ? nullptr : "has inner > outer";
}

}  // namespace lua
}  // namespace soageo
