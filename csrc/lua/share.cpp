// soageo.share, attach, version, unshare, shared, and the shared layer view class (the
// registry and the frozen copies: core/shared.hpp).
//
// A shared layer view is a Layer struct of its own (tagged as a layer, so every query binding
// takes it as one, as a past tick's frame) whose columns, id map and index point into the
// version it holds a reference to; what a query writes (hit buffers, stats, the index's plan
// counters, each()'s and pairs' scratch) is the view's, in its Lua state's memory. Its index is
// fresh from the start and never rebuilt, and the layer's mutators refuse it
// (check_writable_layer): nothing a call does can change the version. Its methods are the
// layer's binding functions (view_methods), those that need the hit scratch behind `call`,
// which makes it on the view's first query. close_layer drops the reference; a call that reads the
// view holds it (hold.hpp), so a finalizer's close waits until the call ends.
#include <algorithm>
#include <cstring>

#include "../core/history.hpp"
#include "binding.hpp"

namespace soageo {
namespace lua {

void shared_read_only(lua_State* L, int arg, const char* noun, const SharedVersion* v) {
    luaL_argerror(L, arg, lua_pushfstring(L, "%s is read-only: shared as '%s'", noun, v->name));
    __builtin_unreachable();
}

namespace {

constexpr const char* kViewClass = "soageo.shared_layer";

// A name argument: a string of 1 to kMaxSharedName bytes.
const char* check_name(lua_State* L, int arg, size_t* len) {
    if (lua_type(L, arg) != LUA_TSTRING) luaL_typeerror(L, arg, "string");
    const char* name = lua_tolstring(L, arg, len);
    luaL_argcheck(L, *len >= 1 && *len <= kMaxSharedName, arg, "name must hold 1 to 255 bytes");
    // Names are printed with %s (tostring, errors): a zero byte would cut them short.
    luaL_argcheck(L, std::memchr(name, '\0', *len) == nullptr, arg, "name must not hold a zero byte");
    return name;
}

bool is_view(lua_State* L, int idx) {
    return luaL_testudata(L, idx, kViewClass) || luaL_testudata(L, idx, "soageo.shared_walls") ||
           luaL_testudata(L, idx, "soageo.shared_tiles");
}

// (object, name) -> version
int l_share(lua_State* L) {
    size_t len = 0;
    const char* name = check_name(L, 2, &len);
    if (is_view(L, 1)) luaL_argerror(L, 1, "a shared view cannot be shared again");
    if (luaL_testudata(L, 1, kPastViewClass)) luaL_argerror(L, 1, "a past tick's view cannot be shared");
    SharedVersion* v = nullptr;
    SharedKind kind;
    bool view = false;
    // Only malloc below until the version is published or dropped: no finalizer runs meanwhile.
    if (luaL_testudata(L, 1, kLayerClass)) {
        kind = SharedKind::layer;
        const Layer* layer = check_layer(L, 1);
        v = shared_freeze_layer(layer->s, index_fresh(layer) ? &layer->grid : nullptr, name, len);
    } else if (const Walls* w = walls_at(L, 1, &view)) {
        kind = SharedKind::walls;
        v = shared_freeze_walls(*w, name, len);
    } else if (const TileMap* m = tiles_at(L, 1, &view)) {
        kind = SharedKind::tiles;
        v = shared_freeze_tiles(*m, name, len);
    } else {
        return luaL_typeerror(L, 1, "layer, walls or tiles");
    }
    if (!v) return luaL_error(L, "not enough memory to share '%s'", name);
    // Before the first version exists: from then on the module stays loaded (core/shared.hpp).
    if (!shared_pin(reinterpret_cast<const void*>(&l_share))) {
        shared_release(v);
        return luaL_error(L, "cannot share '%s': the module could not pin itself in the process (dlopen)", name);
    }
    SharedKind had;
    const ShareStatus st = shared_publish(v, &had);
    if (st != ShareStatus::ok) {
        shared_release(v);
        if (st == ShareStatus::memory) return luaL_error(L, "not enough memory to share '%s'", name);
        return luaL_argerror(L, 2, lua_pushfstring(L, "'%s' is shared as %s, not %s", name, shared_kind_name(had),
                                                   shared_kind_name(kind)));
    }
    lua_pushinteger(L, static_cast<lua_Integer>(v->version));
    return 1;
}

// (name) -> view | nil, message
int l_attach(lua_State* L) {
    size_t len = 0;
    const char* name = check_name(L, 1, &len);
    lua_settop(L, 1);
    SharedKind kind;
    if (shared_version(name, len, &kind) == 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "nothing is shared as '%s'", name);
        return 2;
    }
    // The view is made (closed) first: an allocation error then leaks no reference. A name
    // never changes its kind, so the version attached below is of this kind.
    if (kind == SharedKind::layer) {
        auto* view = static_cast<Layer*>(lua_newuserdatauv(L, sizeof(Layer), kLayerValues));
        std::memset(view, 0, sizeof *view);
        view->tag = layer_tag(view);
        view->closed = true;
        luaL_setmetatable(L, kViewClass);
    } else if (kind == SharedKind::walls) {
        push_walls_view(L);
    } else {
        push_tiles_view(L);
    }
    SharedVersion* v = shared_attach(name, len);
    if (!v) {  // unshared meanwhile
        lua_pushnil(L);
        lua_pushfstring(L, "nothing is shared as '%s'", name);
        return 2;
    }
    if (kind == SharedKind::layer) {
        auto* view = static_cast<Layer*>(lua_touserdata(L, 2));
        const SharedLayer& sl = v->layer;
        view->s.col = sl.col;
        view->s.map = sl.map;
        view->s.n = sl.n;
        view->grid = sl.grid;
        view->shared = v;
        view->closed = false;
    } else if (kind == SharedKind::walls) {
        give_walls_view(L, 2, v);
    } else {
        give_tiles_view(L, 2, v);
    }
    return 1;
}

// (name) -> version | nil
int l_version(lua_State* L) {
    size_t len = 0;
    const char* name = check_name(L, 1, &len);
    const uint64_t v = shared_version(name, len);
    if (v == 0)
        lua_pushnil(L);
    else
        lua_pushinteger(L, static_cast<lua_Integer>(v));
    return 1;
}

// (name) -> boolean: whether a version was published there
int l_unshare(lua_State* L) {
    size_t len = 0;
    const char* name = check_name(L, 1, &len);
    lua_pushboolean(L, shared_unshare(name, len));
    return 1;
}

// () -> {{name =, kind =, version =, bytes =, holders =}, ...} in name order
int l_shared(lua_State* L) {
    lua_settop(L, 0);
    size_t room = shared_list(nullptr, 0) + 8;  // names published meanwhile: the next call sees them
    auto* info = static_cast<SharedInfo*>(lua_newuserdatauv(L, sizeof(SharedInfo) * room, 0));  // 1
    const size_t n = std::min(shared_list(info, room), room);
    lua_createtable(L, static_cast<int>(n), 0);  // 2
    for (size_t i = 0; i < n; ++i) {
        const SharedInfo& s = info[i];
        lua_createtable(L, 0, 5);
        lua_pushlstring(L, s.name, s.name_len);
        lua_setfield(L, -2, "name");
        lua_pushstring(L, shared_kind_name(s.kind));
        lua_setfield(L, -2, "kind");
        lua_pushinteger(L, static_cast<lua_Integer>(s.version));
        lua_setfield(L, -2, "version");
        lua_pushinteger(L, static_cast<lua_Integer>(s.bytes));
        lua_setfield(L, -2, "bytes");
        lua_pushinteger(L, static_cast<lua_Integer>(s.holders));
        lua_setfield(L, -2, "holders");
        lua_rawseti(L, 2, static_cast<lua_Integer>(i + 1));
    }
    return 1;
}

// A layer method called on a view: gives the view its scratch on first use (the allocations
// may run a finalizer that closes it: the check that follows them then raises), then runs the
// layer's binding function (upvalue 2; upvalue 1, the context, is this closure's too).
int call(lua_State* L) {
    const Layer* view = check_layer(L, 1);
    if (!view->s.col.hits) {
        const uint32_t cap = view->s.col.cap, room = view->grid.room;
        lua_newuserdatauv(L, frame_scratch_bytes(cap), 0);
        lua_newuserdatauv(L, grid_scratch_bytes(room), 0);
        Layer* v = check_layer(L, 1);
        if (!v->s.col.hits) {
            frame_scratch_carve(lua_touserdata(L, -2), cap, v->s.col);
            grid_scratch_carve(lua_touserdata(L, -1), v->grid);
            lua_setiuservalue(L, 1, kIndexValue);
            lua_setiuservalue(L, 1, kColumnsValue);
        } else {
            lua_pop(L, 2);
        }
    }
    return lua_tocfunction(L, lua_upvalueindex(2))(L);
}

// The methods that never touch the hit scratch run as they are.
const char* const kNoScratch[] = {"get", "has", "dump", "stats", "index_mode"};

void wrap(lua_State* L, const Tables& t, const char* name) {
    for (const char* n : kNoScratch)
        if (name && std::strcmp(name, n) == 0) return;
    lua_CFunction fn = lua_tocfunction(L, -1);
    lua_pop(L, 1);
    lua_pushvalue(L, t.context);
    lua_pushcfunction(L, fn);
    lua_pushcclosure(L, call, 2);
}

// A view at 1: check_layer's checks, and no other layer (a view's method called on one).
const Layer* check_view(lua_State* L) {
    luaL_checkudata(L, 1, kViewClass);
    return check_layer(L, 1);
}

int read_only(lua_State* L) { shared_read_only(L, 1, "layer", check_view(L)->shared); }

// (self) -> version
int l_view_version(lua_State* L) {
    lua_pushinteger(L, static_cast<lua_Integer>(check_view(L)->shared->version));
    return 1;
}

// close(), __close and __gc: as the layer's (a view a call holds closes when the call ends).
int l_view_close(lua_State* L) { return close_held_layer(L, kViewClass); }

int l_view_tostring(lua_State* L) {
    auto* view = static_cast<Layer*>(luaL_checkudata(L, 1, kViewClass));
    if (view->closed || !view->shared)
        lua_pushfstring(L, "soageo.shared_layer (closed): %p", static_cast<void*>(view));
    else
        lua_pushfstring(L, "soageo.shared_layer ('%s' version %I, %d entities): %p", view->shared->name,
                        static_cast<lua_Integer>(view->shared->version), static_cast<int>(view->s.n),
                        static_cast<void*>(view));
    return 1;
}

const luaL_Reg module_functions[] = {
    {"share", l_share}, {"attach", l_attach}, {"version", l_version}, {"unshare", l_unshare},
    {"shared", l_shared}, {nullptr, nullptr},
};

const char* const kMoreWriters[] = {"reindex", nullptr};

}  // namespace

void open_share(lua_State* L, const Tables& t) {
    add_functions(L, t, t.module, module_functions);
    luaL_newmetatable(L, kViewClass);
    const int meta = lua_gettop(L);
    lua_newtable(L);
    const int methods = lua_gettop(L);
    view_methods(L, t, methods, wrap, read_only, kMoreWriters);
    lua_getfield(L, t.methods, "each");  // each() reads ids and positions only
    lua_setfield(L, methods, "each");
    const luaL_Reg own[] = {{"version", l_view_version}, {"close", l_view_close}, {nullptr, nullptr}};
    add_functions(L, t, methods, own);
    lua_setfield(L, meta, "__index");
    lua_getfield(L, t.metatable, "__len");
    lua_setfield(L, meta, "__len");
    const luaL_Reg metamethods[] = {
        {"__gc", l_view_close}, {"__close", l_view_close}, {"__tostring", l_view_tostring}, {nullptr, nullptr}};
    add_functions(L, t, meta, metamethods);
    lua_pop(L, 1);
}

}  // namespace lua
}  // namespace soageo
