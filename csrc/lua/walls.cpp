// The walls class: soageo.walls(coords), its queries, close serving __gc and __close. The walls
// and their index live in user values (1: segments, 2: the index, 3: visible's scratch).
#include <cstring>

#include "../core/walls.hpp"
#include "binding.hpp"
#include "sight.hpp"

namespace soageo {
namespace lua {
namespace {

constexpr const char* kWallsClass = "soageo.walls";
constexpr const char* kSharedWallsClass = "soageo.shared_walls";
constexpr int kSegValue = 1, kWallIndexValue = 2, kWallScratchValue = 3, kWallValues = 3;

struct WallsObj {
    uintptr_t tag;  // object_tag(this): the check's fast test, as the layer's
    Walls w;
    bool closed;
    SharedVersion* shared;  // a view (soageo.attach): the version whose data it reads
};

WallsObj* check_walls(lua_State* L, int idx) { return check_object<WallsObj>(L, idx, kWallsClass, "walls is closed"); }

// soageo.walls(coords): {x0, y0, x1, y1, ...}, wall i from the numbers 4i - 3 .. 4i.
int l_walls(lua_State* L) {
    const int len = check_array(L, 1, "coords");
    if (len % 4 != 0) luaL_argerror(L, 1, "coords length must be a multiple of 4");
    const uint32_t n = static_cast<uint32_t>(len / 4);
    lua_settop(L, 1);
    auto* o = static_cast<WallsObj*>(lua_newuserdatauv(L, sizeof(WallsObj), kWallValues));
    std::memset(o, 0, sizeof *o);
    o->tag = object_tag(o, kWallsClass);
    o->closed = true;  // until built: an error below leaves a dead object for the collector
    luaL_setmetatable(L, kWallsClass);
    auto* seg = static_cast<Seg*>(lua_newuserdatauv(L, sizeof(Seg) * (n ? n : 1), 0));
    lua_setiuservalue(L, 2, kSegValue);
    auto* f = reinterpret_cast<float*>(seg);
    for (int i = 1; i <= len; ++i) {
        int isnum = 0;
        lua_rawgeti(L, 1, i);
        const lua_Number v = lua_tonumberx(L, -1, &isnum);
        const bool number = lua_type(L, -1) == LUA_TNUMBER;  // not a numeric string, as in arrays elsewhere
        lua_pop(L, 1);
        if (!isnum || !number || !finite32(v)) luaL_argerror(L, 1, lua_pushfstring(L, "coords[%d] must be a finite number", i));
        f[i - 1] = static_cast<float>(v);
    }
    const WallPlan plan = walls_plan(seg, n);
    if (!plan.ok || n > kMaxWalls) luaL_argerror(L, 1, "coords has too many elements");  // not reached: check_array's limit
    void* block = lua_newuserdatauv(L, walls_index_bytes(plan, n) + sizeof(uint32_t), 0);
    lua_setiuservalue(L, 2, kWallIndexValue);
    walls_build(o->w, seg, n, plan, block);
    o->closed = false;
    return 1;
}

int l_len(lua_State* L) {
    lua_pushinteger(L, check_walls(L, 1)->w.n);
    return 1;
}

// (self, i) -> x0, y0, x1, y1 of wall i
int l_get(lua_State* L) {
    const WallsObj* o = check_walls(L, 1);
    int isnum = 0;
    const lua_Integer i = lua_tointegerx(L, 2, &isnum);
    if (!isnum || i < 1 || i > lua_Integer(o->w.n))
        luaL_argerror(L, 2, "wall must be an integer in [1, #walls]");
    const Seg& s = o->w.seg[i - 1];
    lua_pushnumber(L, s.ax);
    lua_pushnumber(L, s.ay);
    lua_pushnumber(L, s.bx);
    lua_pushnumber(L, s.by);
    return 4;
}

int l_blocked(lua_State* L) {
    return blocked_one(L, check_walls, [](const WallsObj* o, float x0, float y0, float x1, float y1) {
        return walls_blocked(o->w, x0, y0, x1, y1);
    });
}

int l_cast(lua_State* L) {
    return cast_one(L, check_walls, [](const WallsObj* o, float x0, float y0, float x1, float y1, double* t, uint32_t* wall) {
        return walls_cast(o->w, x0, y0, x1, y1, t, wall);
    });
}

int l_blocked_many(lua_State* L) {
    return blocked_many(L, check_walls, [](WallsObj* o, float a, float b, float c, float d) {
        return walls_blocked(o->w, a, b, c, d);
    });
}

int l_visible(lua_State* L) {
    return visible(L, kWallScratchValue, check_walls, [](WallsObj* o, float vx, float vy, float px, float py) {
        return walls_visible(o->w, vx, vy, px, py);
    });
}

int l_close(lua_State* L) { return close_object<WallsObj>(L, kWallsClass, kWallValues); }

int l_tostring(lua_State* L) {
    auto* o = static_cast<WallsObj*>(luaL_checkudata(L, 1, kWallsClass));
    if (o->closed)
        lua_pushfstring(L, "soageo.walls (closed): %p", static_cast<void*>(o));
    else
        lua_pushfstring(L, "soageo.walls (%d walls): %p", static_cast<int>(o->w.n), static_cast<void*>(o));
    return 1;
}

// A view's close(), __close and __gc: drops its reference, then closes as the class does.
int l_view_close(lua_State* L) { return close_object<WallsObj>(L, kWallsClass, kWallValues, kSharedWallsClass); }

int l_view_version(lua_State* L) { return view_version<WallsObj>(L, kWallsClass, kSharedWallsClass, "walls is closed"); }

int l_view_tostring(lua_State* L) { return view_tostring<WallsObj>(L, kSharedWallsClass); }

const luaL_Reg methods[] = {
    {"get", l_get},
    {"blocked", l_blocked},
    {"cast", l_cast},
    {"blocked_many", l_blocked_many},
    {"visible", l_visible},
    {"close", l_close},
    {nullptr, nullptr},
};

const luaL_Reg view_method_list[] = {
    {"get", l_get},
    {"blocked", l_blocked},
    {"cast", l_cast},
    {"blocked_many", l_blocked_many},
    {"visible", l_visible},
    {"close", l_view_close},
    {"version", l_view_version},
    {nullptr, nullptr},
};

const luaL_Reg view_metamethods[] = {
    {"__len", l_len},
    {"__gc", l_view_close},
    {"__close", l_view_close},
    {"__tostring", l_view_tostring},
    {nullptr, nullptr},
};

const luaL_Reg no_functions[] = {{nullptr, nullptr}};

const luaL_Reg metamethods[] = {
    {"__len", l_len},
    {"__gc", l_close},
    {"__close", l_close},
    {"__tostring", l_tostring},
    {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {
    {"walls", l_walls},
    {nullptr, nullptr},
};

}  // namespace

void open_class(lua_State* L, const Tables& t, const char* name, const luaL_Reg* methods, const luaL_Reg* metamethods,
                const luaL_Reg* module_functions) {
    luaL_newmetatable(L, name);
    const int mt = lua_gettop(L);
    add_functions(L, t, mt, metamethods);
    lua_newtable(L);
    add_functions(L, t, lua_gettop(L), methods);
    lua_setfield(L, mt, "__index");
    lua_pop(L, 1);
    add_functions(L, t, t.module, module_functions);
}

void open_walls(lua_State* L, const Tables& t) {
    open_class(L, t, kWallsClass, methods, metamethods, module_functions);
    open_class(L, t, kSharedWallsClass, view_method_list, view_metamethods, no_functions);
}

const Walls* walls_at(lua_State* L, int idx, bool* view) {
    const WallsObj* o = object_at<WallsObj>(L, idx, kWallsClass, "walls is closed", view);
    return o ? &o->w : nullptr;
}

void push_walls_view(lua_State* L) { push_view<WallsObj>(L, kWallsClass, kSharedWallsClass, kWallValues); }

void give_walls_view(lua_State* L, int idx, SharedVersion* v) {
    auto* o = static_cast<WallsObj*>(lua_touserdata(L, idx));
    o->w = v->walls;
    o->shared = v;
    o->closed = false;
}

}  // namespace lua
}  // namespace soageo
