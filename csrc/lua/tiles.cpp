// The tiles class: soageo.tiles(cols, rows, cell, blocked [, x0, y0]), its queries, set, close
// serving __gc and __close. The cells live in user value 1 (a bit each), visible's scratch
// in user value 2.
#include <cstring>

#include "../core/tiles.hpp"
#include "binding.hpp"
#include "sight.hpp"

namespace soageo {
namespace lua {
namespace {

constexpr char kTilesClass[] = "soageo.tiles";
constexpr char kSharedTilesClass[] = "soageo.shared_tiles";
constexpr int kCellsValue = 1, kTileScratchValue = 2, kTileValues = 2;

struct TilesObj {
    uintptr_t tag;  // object_tag(this): the check's fast test, as the layer's
    TileMap m;
    bool closed;
    SharedVersion* shared;  // a view (soageo.attach): the version whose data it reads
};

constexpr SightNames kTilesNames{kTilesClass, kSharedTilesClass, "tiles is closed", kTileValues, kTileScratchValue};
using Sight = SightClass<TilesObj, kTilesNames, &TilesObj::m, tiles_blocked, tiles_cast, tiles_visible>;
constexpr auto check_tiles = Sight::check;

uint32_t check_side(lua_State* L, int arg, const char* what) {
    int isnum = 0;
    const lua_Integer v = lua_tointegerx(L, arg, &isnum);
    if (!isnum || v < 0 || v > lua_Integer(kMaxTileSide))
        luaL_argerror(L, arg, lua_pushfstring(L, "%s must be an integer in [0, 2^24]", what));
    return static_cast<uint32_t>(v);
}

// soageo.tiles(cols, rows, cell, blocked [, x0, y0])
int l_tiles(lua_State* L) {
    const uint32_t cols = check_side(L, 1, "cols"), rows = check_side(L, 2, "rows");
    const lua_Number cell = luaL_checknumber(L, 3);
    if (!(finite32(cell) && static_cast<float>(cell) > 0)) luaL_argerror(L, 3, "cell must be finite and > 0");
    size_t len = 0;
    luaL_checktype(L, 4, LUA_TSTRING);  // not a number turned into its digits
    const char* bytes = lua_tolstring(L, 4, &len);
    const uint64_t count = uint64_t(cols) * rows;
    if (count > kMaxTiles) luaL_argerror(L, 2, "cols * rows must be at most 2^28");
    if (len != count) luaL_argerror(L, 4, "blocked must hold cols * rows bytes");
    for (size_t k = 0; k < len; ++k)
        if (bytes[k] != '0' && bytes[k] != '1')
            luaL_argerror(L, 4, lua_pushfstring(L, "blocked byte %d must be '0' or '1'", static_cast<int>(k + 1)));
    const float x0 = lua_isnoneornil(L, 5) ? 0.0f : check_float(L, 5, "x0");
    const float y0 = lua_isnoneornil(L, 6) ? 0.0f : check_float(L, 6, "y0");
    lua_settop(L, 4);  // the string stays referenced while the blocks are made
    auto* o = static_cast<TilesObj*>(lua_newuserdatauv(L, sizeof(TilesObj), kTileValues));
    std::memset(o, 0, sizeof *o);
    o->tag = object_tag(o, kTilesClass);
    o->closed = true;
    luaL_setmetatable(L, kTilesClass);
    const uint64_t words = tile_words(cols, rows);
    auto* bits = static_cast<uint64_t*>(lua_newuserdatauv(L, sizeof(uint64_t) * (words ? words : 1), 0));
    lua_setiuservalue(L, 5, kCellsValue);
    std::memset(bits, 0, sizeof(uint64_t) * words);
    o->m = tiles_make(bits, cols, rows, x0, y0, static_cast<float>(cell));
    for (size_t k = 0; k < len; ++k)
        if (bytes[k] == '1') tile_set(o->m, static_cast<uint32_t>(k % cols), static_cast<uint32_t>(k / cols), true);
    o->closed = false;
    return 1;
}

int l_set(lua_State* L) {
    TilesObj* o = check_tiles(L, 1);
    // A shared view carries the class's tag: read-only whichever methods table the call came through.
    if (o->shared) shared_read_only(L, 1, "tiles", o->shared);
    int isnum = 0;
    const lua_Integer col = lua_tointegerx(L, 2, &isnum);
    if (!isnum || col < 0 || col >= lua_Integer(o->m.cols)) luaL_argerror(L, 2, "col must be an integer in [0, cols)");
    const lua_Integer row = lua_tointegerx(L, 3, &isnum);
    if (!isnum || row < 0 || row >= lua_Integer(o->m.rows)) luaL_argerror(L, 3, "row must be an integer in [0, rows)");
    luaL_checktype(L, 4, LUA_TBOOLEAN);
    tile_set(o->m, static_cast<uint32_t>(col), static_cast<uint32_t>(row), lua_toboolean(L, 4));
    return 0;
}

// A view's set: only on a view (not the class's own objects, whose methods these are not),
// where l_set raises.
int l_view_set(lua_State* L) {
    luaL_checkudata(L, 1, kSharedTilesClass);
    return l_set(L);
}

int l_tostring(lua_State* L) {
    auto* o = static_cast<TilesObj*>(luaL_checkudata(L, 1, kTilesClass));
    if (o->closed)
        lua_pushfstring(L, "soageo.tiles (closed): %p", static_cast<void*>(o));
    else
        lua_pushfstring(L, "soageo.tiles (%d x %d): %p", static_cast<int>(o->m.cols), static_cast<int>(o->m.rows),
                        static_cast<void*>(o));
    return 1;
}

const luaL_Reg methods[] = {{"set", l_set}, {nullptr, nullptr}};

// A view's methods: the class's, then these in their place.
const luaL_Reg view_overrides[] = {{"set", l_view_set}, {nullptr, nullptr}};

const luaL_Reg metamethods[] = {{"__tostring", l_tostring}, {nullptr, nullptr}};

const luaL_Reg module_functions[] = {{"tiles", l_tiles}, {nullptr, nullptr}};

}  // namespace

void open_tiles(lua_State* L, const Tables& t) {
    Sight::open(L, t, methods, view_overrides, metamethods, module_functions);
}

const TileMap* tiles_at(lua_State* L, int idx, bool* view) {
    const TilesObj* o = object_at<TilesObj>(L, idx, kTilesClass, kTilesNames.closed, view);
    return o ? &o->m : nullptr;
}

void push_tiles_view(lua_State* L) { push_view<TilesObj>(L, kTilesClass, kSharedTilesClass, kTileValues); }

void give_tiles_view(lua_State* L, int idx, SharedVersion* v) {
    auto* o = static_cast<TilesObj*>(lua_touserdata(L, idx));
    o->m = v->tiles;
    o->shared = v;
    o->closed = false;
}

}  // namespace lua
}  // namespace soageo
