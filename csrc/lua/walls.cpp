// The walls class: soageo.walls(coords), its queries, close serving __gc and __close. The walls
// and their index live in user values (1: segments, 2: the index, 3: visible's scratch).
#include <cstring>

#include "../core/walls.hpp"
#include "binding.hpp"
#include "sight.hpp"

namespace soageo {
namespace lua {
namespace {

constexpr char kWallsClass[] = "soageo.walls";
constexpr char kSharedWallsClass[] = "soageo.shared_walls";
constexpr int kSegValue = 1, kWallIndexValue = 2, kWallScratchValue = 3, kWallValues = 3;

struct WallsObj {
    uintptr_t tag;  // object_tag(this): the check's fast test, as the layer's
    Walls w;
    bool closed;
    SharedVersion* shared;  // a view (soageo.attach): the version whose data it reads
};

constexpr SightNames kWallsNames{kWallsClass, kSharedWallsClass, "walls is closed", kWallValues, kWallScratchValue};
using Sight = SightClass<WallsObj, kWallsNames, &WallsObj::w, walls_blocked, walls_cast, walls_visible>;
constexpr auto check_walls = Sight::check;

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
    void* block = lua_newuserdatauv(L, walls_index_bytes(plan) + sizeof(uint32_t), 0);
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

int l_tostring(lua_State* L) {
    auto* o = static_cast<WallsObj*>(luaL_checkudata(L, 1, kWallsClass));
    if (o->closed)
        lua_pushfstring(L, "soageo.walls (closed): %p", static_cast<void*>(o));
    else
        lua_pushfstring(L, "soageo.walls (%d walls): %p", static_cast<int>(o->w.n), static_cast<void*>(o));
    return 1;
}

const luaL_Reg methods[] = {{"get", l_get}, {nullptr, nullptr}};

const luaL_Reg metamethods[] = {
    {"__len", l_len},
    {"__tostring", l_tostring},
    {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {{"walls", l_walls}, {nullptr, nullptr}};

}  // namespace

void open_class(lua_State* L, const Tables& t, const char* name, std::initializer_list<const luaL_Reg*> methods,
                std::initializer_list<const luaL_Reg*> metamethods, const luaL_Reg* module_functions) {
    luaL_newmetatable(L, name);
    const int mt = lua_gettop(L);
    for (const luaL_Reg* list : metamethods) add_functions(L, t, mt, list);
    lua_newtable(L);
    for (const luaL_Reg* list : methods) add_functions(L, t, lua_gettop(L), list);
    lua_setfield(L, mt, "__index");
    lua_pop(L, 1);
    add_functions(L, t, t.module, module_functions);
}

void open_walls(lua_State* L, const Tables& t) {
    Sight::open(L, t, methods, Sight::none, metamethods, module_functions);
}

const Walls* walls_at(lua_State* L, int idx, bool* view) {
    const WallsObj* o = object_at<WallsObj>(L, idx, kWallsClass, kWallsNames.closed, view);
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
