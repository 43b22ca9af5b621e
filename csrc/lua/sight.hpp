// What walls and tiles share in the binding, written once: the object check, close, a shared
// view's version, tostring and making (their userdata structs stay in walls.cpp and tiles.cpp:
// a tag, the core object, a closed flag, the version a view reads), the single queries
// (blocked_one, cast_one) and the two list queries, blocked_many and visible.
//
// Order in both list queries: every allocation first (the result table, the scratch), since
// it may run finalizers that close the object or the layer or rewrite the argument tables;
// then the objects checked again, every argument read and checked, and only then anything
// written: an error changes nothing.
#pragma once

#include <cstring>

#include "binding.hpp"

namespace soageo {
namespace lua {

// A walls or tiles object's tag: its address mixed with its class name's (a static string).
inline uintptr_t object_tag(const void* p, const char* cls) {
    return reinterpret_cast<uintptr_t>(p) ^ reinterpret_cast<uintptr_t>(cls) ^ uintptr_t(0x3c1d5e7f9a0b2c4dull);
}

// check_float with its common case inline: a single query's four coordinates are a visible
// part of its cost. Anything else goes to check_float, which raises its usual message.
inline float query_float(lua_State* L, int arg, const char* what) {
    int isnum = 0;
    const lua_Number v = lua_tonumberx(L, arg, &isnum);
    return isnum && finite32(v) ? static_cast<float>(v) : check_float(L, arg, what);
}

// (self, x0, y0, x1, y1) -> boolean. test(obj, 4 floats).
template <class Check, class Test>
int blocked_one(lua_State* L, Check check, Test test) {
    auto* self = check(L, 1);
    const float x0 = query_float(L, 2, "x0"), y0 = query_float(L, 3, "y0");
    const float x1 = query_float(L, 4, "x1"), y1 = query_float(L, 5, "y1");
    lua_pushboolean(L, test(self, x0, y0, x1, y1));
    return 1;
}

// (self, x0, y0, x1, y1) -> t, number (1-based) or nil. cast(obj, 4 floats, &t, &index).
template <class Check, class Cast>
int cast_one(lua_State* L, Check check, Cast cast) {
    auto* self = check(L, 1);
    const float x0 = query_float(L, 2, "x0"), y0 = query_float(L, 3, "y0");
    const float x1 = query_float(L, 4, "x1"), y1 = query_float(L, 5, "y1");
    double t;
    uint32_t index;
    if (!cast(self, x0, y0, x1, y1, &t, &index)) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushnumber(L, t);
    lua_pushinteger(L, lua_Integer(index) + 1);
    return 2;
}

// The object of class `cls` at idx, open (`closed`: the message when it is not). The tag first:
// luaL_checkudata looks the metatable up by name, a visible part of a query's cost. A shared
// view carries its class's tag, so every query takes it as one.
template <class Obj>
Obj* check_object(lua_State* L, int idx, const char* cls, const char* closed) {
    auto* o = static_cast<Obj*>(lua_touserdata(L, idx));
    if (!o || lua_rawlen(L, idx) != sizeof(Obj) || o->tag != object_tag(o, cls))
        o = static_cast<Obj*>(luaL_checkudata(L, idx, cls));
    luaL_argcheck(L, !o->closed, idx, closed);
    return o;
}

// close(), __gc and __close of class `cls` (objects with a tag, a closed flag, `values` user
// values and, for a shared view of metatable `meta`, the version it reads): idempotent; a view
// drops its reference; the object keeps its tag so that checks still recognise it (and say it
// is closed). No call holds a walls or tiles object across an allocation: each checks it
// again after one, so a finalizer's close never frees a version under a query.
template <class Obj>
int close_object(lua_State* L, const char* cls, int values, const char* meta = nullptr) {
    auto* o = static_cast<Obj*>(luaL_checkudata(L, 1, meta ? meta : cls));
    if (!o->closed) {
        if (o->shared) shared_release(o->shared);
        std::memset(o, 0, sizeof *o);
        o->tag = object_tag(o, cls);
        o->closed = true;
        for (int v = 1; v <= values; ++v) {
            lua_pushnil(L);
            lua_setiuservalue(L, 1, v);
        }
    }
    return 0;
}

// A shared view's own methods (`view_cls` its metatable, over objects of class `cls`).
// (self) -> version
template <class Obj>
int view_version(lua_State* L, const char* cls, const char* view_cls, const char* closed) {
    luaL_checkudata(L, 1, view_cls);
    lua_pushinteger(L, static_cast<lua_Integer>(check_object<Obj>(L, 1, cls, closed)->shared->version));
    return 1;
}

template <class Obj>
int view_tostring(lua_State* L, const char* view_cls) {
    auto* o = static_cast<Obj*>(luaL_checkudata(L, 1, view_cls));
    if (o->closed)
        lua_pushfstring(L, "%s (closed): %p", view_cls, static_cast<void*>(o));
    else
        lua_pushfstring(L, "%s ('%s' version %I): %p", view_cls, o->shared->name,
                        static_cast<lua_Integer>(o->shared->version), static_cast<void*>(o));
    return 1;
}

// A new view on top of the stack, closed until share.cpp gives it its version (give_walls_view, give_tiles_view).
template <class Obj>
void push_view(lua_State* L, const char* cls, const char* view_cls, int values) {
    auto* o = static_cast<Obj*>(lua_newuserdatauv(L, sizeof(Obj), values));
    std::memset(o, 0, sizeof *o);
    o->tag = object_tag(o, cls);
    o->closed = true;
    luaL_setmetatable(L, view_cls);
}

// The object of class `cls` at idx (a view or not, *view says which), or null when it is none.
template <class Obj>
Obj* object_at(lua_State* L, int idx, const char* cls, const char* closed, bool* view) {
    auto* o = static_cast<Obj*>(lua_touserdata(L, idx));
    if (!o || lua_rawlen(L, idx) != sizeof(Obj) || o->tag != object_tag(o, cls)) return nullptr;
    luaL_argcheck(L, !o->closed, idx, closed);
    *view = o->shared != nullptr;
    return o;
}

// (self, coords [, out]) -> out, n: one boolean per 4 numbers x0, y0, x1, y1.
// check(L, 1) returns the object, raising when it is not one or is closed; test(obj, 4 floats).
template <class Check, class Test>
int blocked_many(lua_State* L, Check check, Test test) {
    check(L, 1);
    const int len = check_array(L, 2, "coords");
    if (len % 4 != 0) luaL_argerror(L, 2, "coords length must be a multiple of 4");
    int out = opt_out(L, 3);
    lua_settop(L, 3);
    if (out == 0) {
        lua_createtable(L, len / 4, 0);
        out = lua_gettop(L);
    }
    auto* self = check(L, 1);
    for (int i = 1; i <= len; ++i) {
        int isnum = 0;
        lua_rawgeti(L, 2, i);
        const lua_Number v = lua_tonumberx(L, -1, &isnum);
        const bool number = lua_type(L, -1) == LUA_TNUMBER;  // not a numeric string, as in arrays elsewhere
        lua_pop(L, 1);
        if (!isnum || !number || !finite32(v)) luaL_argerror(L, 2, lua_pushfstring(L, "coords[%d] must be a finite number", i));
    }
    for (int k = 0; k < len / 4; ++k) {
        float c[4];
        for (int j = 0; j < 4; ++j) {
            lua_rawgeti(L, 2, 4 * k + j + 1);
            c[j] = static_cast<float>(lua_tonumber(L, -1));
            lua_pop(L, 1);
        }
        lua_pushboolean(L, test(self, c[0], c[1], c[2], c[3]));
        lua_rawseti(L, out, k + 1);
    }
    clear_tail(L, out, len / 4 + 1);
    lua_pushvalue(L, out);
    lua_pushinteger(L, len / 4);
    return 2;
}

// A scratch block of at least `bytes` in user value `uv` of the object at 1 (grown by doubling,
// kept for the next call), left on the stack so that nothing can free it while in use. May
// raise (out of memory) and run finalizers.
inline void* scratch(lua_State* L, int uv, size_t bytes) {
    if (lua_getiuservalue(L, 1, uv) == LUA_TUSERDATA && lua_rawlen(L, -1) >= bytes) return lua_touserdata(L, -1);
    const size_t had = lua_type(L, -1) == LUA_TUSERDATA ? lua_rawlen(L, -1) : 0;
    lua_pop(L, 1);
    size_t size = had * 2 > bytes ? had * 2 : (bytes < 64 ? 64 : bytes);
    void* p = lua_newuserdatauv(L, size, 0);
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, 1, uv);
    return p;
}

// (self, x, y, layer, ids [, n [, out]]) -> out, m: the ids of ids[1..n] whose entity centre
// test(obj, x, y, cx, cy) sees, in order.
template <class Check, class Test>
int visible(lua_State* L, int scratch_uv, Check check, Test test) {
    check(L, 1);
    const float x = check_float(L, 2, "x"), y = check_float(L, 3, "y");
    const bool past = luaL_testudata(L, 4, kPastViewClass) != nullptr;  // a tick of a layer's history
    if (!past) check_layer(L, 4);
    const int len = check_array(L, 5, "ids");
    lua_Integer n = len;
    if (!lua_isnoneornil(L, 6)) {
        int isnum = 0;
        n = lua_tointegerx(L, 6, &isnum);
        if (!isnum || n < 0 || n > len) luaL_argerror(L, 6, "n must be an integer in [0, #ids]");
    }
    int out = opt_out(L, 7);
    lua_settop(L, 7);
    if (past) {
        // The view kept at 8, its frame at 4; checked again below, after the allocations.
        lua_pushvalue(L, 4);
        frame_of_view(L, 4, true);
    }
    if (out == 0) {
        lua_createtable(L, static_cast<int>(n), 0);
        out = lua_gettop(L);
    }
    // Scratch: the ids, then their slots. Three passes so that the cache misses of a large
    // layer overlap: the ids read with their id map lines prefetched, the slots found with
    // their positions prefetched, then the segments tested.
    auto* kept = static_cast<int64_t*>(scratch(L, scratch_uv, size_t(n > 0 ? n : 1) * (sizeof(int64_t) + sizeof(uint32_t))));
    auto* slots = reinterpret_cast<uint32_t*>(kept + (n > 0 ? n : 1));
    auto* self = check(L, 1);
    if (past) check_past_view(L, 8, 4);
    const Layer* layer = check_layer(L, 4);
    for (lua_Integer i = 1; i <= n; ++i) {
        int isint = 0;
        lua_rawgeti(L, 5, i);
        const lua_Integer id = lua_tointegerx(L, -1, &isint);
        const bool integer = isint && lua_isinteger(L, -1);
        lua_pop(L, 1);
        if (!integer) luaL_argerror(L, 5, lua_pushfstring(L, "ids[%I] must be an integer", i));
        idmap_prefetch_find(layer->s.map, id);
        kept[i - 1] = id;
    }
    const float* cx = layer->s.col.x;
    const float* cy = layer->s.col.y;
    for (lua_Integer i = 0; i < n; ++i) {
        const uint32_t slot = idmap_find(layer->s.map, kept[i]);
        if (slot == kNoSlot) luaL_argerror(L, 5, lua_pushfstring(L, "ids[%I] is not in the layer", i + 1));
        __builtin_prefetch(cx + slot);
        __builtin_prefetch(cy + slot);
        slots[i] = slot;
    }
    lua_Integer m = 0;
    for (lua_Integer i = 0; i < n; ++i)  // kept[m] with m <= i: already read
        if (test(self, x, y, cx[slots[i]], cy[slots[i]])) kept[m++] = kept[i];
    for (lua_Integer i = 0; i < m; ++i) {
        lua_pushinteger(L, kept[i]);
        lua_rawseti(L, out, i + 1);
    }
    clear_tail(L, out, m + 1);
    lua_pushvalue(L, out);
    lua_pushinteger(L, m);
    return 2;
}

// What names a walls or tiles class: its metatable, its shared view's, the message for a
// closed object, its user values and the one holding the list queries' scratch.
struct SightNames {
    const char* cls;
    const char* view_cls;
    const char* closed;
    int values, scratch;
};

// The methods walls and tiles share, over the object's core data (`Core`, a member pointer) and
// the core's three questions, for the class and its shared view; `open` makes both classes
// from these and the class's own lists (a later list's names override an earlier one's).
template <class Obj, const SightNames& N, auto Core, auto Blocked, auto Cast, auto Sees>
struct SightClass {
    static Obj* check(lua_State* L, int idx) { return check_object<Obj>(L, idx, N.cls, N.closed); }
    static int blocked(lua_State* L) {
        return blocked_one(L, check, [](const Obj* o, float x0, float y0, float x1, float y1) {
            return Blocked(o->*Core, x0, y0, x1, y1);
        });
    }
    static int cast(lua_State* L) {
        return cast_one(L, check, [](const Obj* o, float x0, float y0, float x1, float y1, double* t, uint32_t* hit) {
            return Cast(o->*Core, x0, y0, x1, y1, t, hit);
        });
    }
    static int many(lua_State* L) {
        return blocked_many(L, check, [](Obj* o, float x0, float y0, float x1, float y1) {
            return Blocked(o->*Core, x0, y0, x1, y1);
        });
    }
    static int sees(lua_State* L) {
        return visible(L, N.scratch, check, [](Obj* o, float vx, float vy, float px, float py) {
            return Sees(o->*Core, vx, vy, px, py);
        });
    }
    static int close(lua_State* L) { return close_object<Obj>(L, N.cls, N.values); }
    // A view's close(), __close and __gc: drops its reference, then closes as the class does.
    static int view_close(lua_State* L) { return close_object<Obj>(L, N.cls, N.values, N.view_cls); }
    static int version(lua_State* L) { return view_version<Obj>(L, N.cls, N.view_cls, N.closed); }
    static int view_string(lua_State* L) { return view_tostring<Obj>(L, N.view_cls); }

    static constexpr luaL_Reg methods[] = {
        {"blocked", blocked}, {"cast", cast}, {"blocked_many", many}, {"visible", sees}, {"close", close}, {nullptr, nullptr},
    };
    static constexpr luaL_Reg metamethods[] = {{"__gc", close}, {"__close", close}, {nullptr, nullptr}};
    static constexpr luaL_Reg view_methods[] = {{"close", view_close}, {"version", version}, {nullptr, nullptr}};
    static constexpr luaL_Reg view_metamethods[] = {
        {"__gc", view_close}, {"__close", view_close}, {"__tostring", view_string}, {nullptr, nullptr},
    };
    static constexpr luaL_Reg none[] = {{nullptr, nullptr}};

    static void open(lua_State* L, const Tables& t, const luaL_Reg* own, const luaL_Reg* view_own,
                     const luaL_Reg* own_metamethods, const luaL_Reg* module_functions) {
        open_class(L, t, N.cls, {own, methods}, {own_metamethods, metamethods}, module_functions);
        open_class(L, t, N.view_cls, {own, methods, view_own, view_methods}, {own_metamethods, view_metamethods}, none);
    }
};

}  // namespace lua
}  // namespace soageo
