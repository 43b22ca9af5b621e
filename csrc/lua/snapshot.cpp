// layer:dump() and soageo.load(s): layer snapshots as strings (see core/snapshot.hpp).
#include <algorithm>
#include <cstring>

#include "../core/snapshot.hpp"
#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

// The ids of a Lua array at `arg`, checked before anything is allocated: the count, or a raised
// error naming the first element that is not an integer.
uint32_t check_id_array(lua_State* L, int arg) {
    luaL_argexpected(L, lua_type(L, arg) == LUA_TTABLE, arg, "table");
    lua_Unsigned k = lua_rawlen(L, arg);
    if (k > kMaxEntities) luaL_argerror(L, arg, "ids has too many elements");
    for (lua_Unsigned i = 1; i <= k; ++i) {
        int t = lua_rawgeti(L, arg, static_cast<lua_Integer>(i));
        bool ok = lua_isinteger(L, -1);
        lua_pop(L, 1);
        if (!ok) {
            const char* got = t == LUA_TNUMBER ? "a float" : lua_typename(L, t);
            luaL_argerror(L, arg, lua_pushfstring(L, "ids[%d] must be an integer, got %s", static_cast<int>(i), got));
        }
    }
    return static_cast<uint32_t>(k);
}

// A snapshot is a string: luaL_checklstring would take a number too, and say of load(5) that
// the snapshot "5" is truncated.
const char* check_string(lua_State* L, int arg, size_t* size) {
    luaL_checktype(L, arg, LUA_TSTRING);
    return lua_tolstring(L, arg, size);
}

// Written into a scratch userdata, then copied into the string. Not a luaL_Buffer: Lua 5.4's
// lauxlib registers the metatable of its buffer boxes in two steps, and an out-of-memory error
// between them (the OOM host hit it) leaves every later luaL_Buffer box unclosable.
//
// With a list of ids, only those entities, in list order: the keys used to find repeats, the
// slots and the output share one block, allocated before the ids are resolved. A finalizer run
// by that allocation may change the list (not the layer, held): the ids are checked again.
int l_dump(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Held h;
    hold_layer(&h, L, 1, layer);
    if (lua_isnoneornil(L, 2)) {
        const size_t size = snapshot_bytes(layer->s.n);
        auto* out = static_cast<unsigned char*>(held_userdata(&h, size));
        snapshot_write(layer->s, out);
        held_end(&h);
        lua_pushlstring(L, reinterpret_cast<const char*>(out), size);
        return 1;
    }
    const uint32_t k = check_id_array(L, 2);
    const size_t size = snapshot_bytes(k);
    auto* keys = static_cast<uint64_t*>(held_userdata(&h, size_t(k) * 12 + 16 + size));
    auto* slots = reinterpret_cast<uint32_t*>(keys + k + 1);
    auto* out = reinterpret_cast<unsigned char*>(slots + k + 1);
    if (check_id_array(L, 2) != k) luaL_argerror(L, 2, "ids changed during the call");
    for (uint32_t i = 0; i < k; ++i) {
        lua_rawgeti(L, 2, static_cast<lua_Integer>(i) + 1);
        lua_Integer id = lua_tointeger(L, -1);
        lua_pop(L, 1);
        slots[i] = idmap_find(layer->s.map, static_cast<int64_t>(id));
        if (slots[i] == kNoSlot)
            return luaL_argerror(L, 2, lua_pushfstring(L, "ids[%d]: no entity with id %I", static_cast<int>(i + 1), id));
        keys[i] = (uint64_t(slots[i]) << 32) | i;
    }
    // Duplicates: equal slots are adjacent once the (slot, index) keys are sorted.
    std::sort(keys, keys + k);
    for (uint32_t i = 1; i < k; ++i) {
        if ((keys[i] >> 32) == (keys[i - 1] >> 32))
            return luaL_argerror(L, 2, lua_pushfstring(L, "ids[%d] repeats ids[%d]", static_cast<int>((keys[i] & 0xffffffffu) + 1),
                                                       static_cast<int>((keys[i - 1] & 0xffffffffu) + 1)));
    }
    snapshot_write_slots(layer->s, slots, k, out);
    held_end(&h);
    lua_pushlstring(L, reinterpret_cast<const char*>(out), size);
    return 1;
}

// Inserts or updates every entity of a snapshot; the masks become (mask & ~clear) | set. The
// whole snapshot is checked (header, checksum, values, duplicate ids) before the layer changes,
// so a rejected one leaves it as it was. Returns how many ids were new.
int l_merge(lua_State* L) {
    Layer* layer = check_writable_layer(L, 1);
    size_t size = 0;
    const auto* data = reinterpret_cast<const unsigned char*>(check_string(L, 2, &size));
    uint32_t set = lua_isnoneornil(L, 3) ? 0u : check_mask(L, 3);
    uint32_t clear = lua_isnoneornil(L, 4) ? 0u : check_mask(L, 4);
    uint32_t n = 0;
    if (const char* why = snapshot_check(data, size, &n)) return luaL_argerror(L, 2, why);
    Held h;
    hold_layer(&h, L, 1, layer);
    uint32_t map_cap = idmap_cap_for(n);
    IdMap scratch = idmap_init(held_userdata(&h, idmap_bytes(map_cap)), map_cap);
    if (const char* why = snapshot_check_content(data, n, scratch)) return luaL_argerror(L, 2, why);
    uint32_t fresh = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (idmap_find(layer->s.map, snapshot_entity(data, n, i).id) == kNoSlot) ++fresh;
    reserve(L, 1, layer, uint64_t(layer->s.n) + fresh, &h);
    for (uint32_t i = 0; i < n; ++i) {
        SnapshotEntity e = snapshot_entity(data, n, i);
        store_set(layer->s, e.id, e.x, e.y, e.r, (e.mask & ~clear) | set);
    }
    lua_pushinteger(L, fresh);
    held_end(&h);
    return 1;
}

// Every id is checked before the first removal; ids that are not there are skipped.
int l_remove_many(lua_State* L) {
    Layer* layer = check_writable_layer(L, 1);
    uint32_t k = check_id_array(L, 2);
    uint32_t removed = 0;
    for (uint32_t i = 1; i <= k; ++i) {
        lua_rawgeti(L, 2, static_cast<lua_Integer>(i));
        int64_t id = static_cast<int64_t>(lua_tointeger(L, -1));
        lua_pop(L, 1);
        if (store_remove(layer->s, id)) ++removed;
    }
    lua_pushinteger(L, removed);
    return 1;
}

// The new layer is built on the stack and returned only when every check passed; a rejected
// snapshot leaves nothing behind but garbage for the collector.
int l_load(lua_State* L) {
    size_t size = 0;
    const auto* data = reinterpret_cast<const unsigned char*>(check_string(L, 1, &size));
    uint32_t n = 0;
    if (const char* why = snapshot_check(data, size, &n)) return luaL_argerror(L, 1, why);
    Layer* layer = new_layer(L);
    Held none;  // the new layer: no finalizer can reach it
    held_open(&none, L);
    reserve(L, -1, layer, n ? n : kMaxWidth, &none);
    if (const char* why = snapshot_read(data, n, layer->s)) {
        std::memset(&layer->s, 0, sizeof layer->s);
        layer->closed = true;
        return luaL_argerror(L, 1, why);
    }
    pace_collector(L);
    return 1;
}

const luaL_Reg methods[] = {
    {"dump", l_dump},
    {"merge", l_merge},
    {"remove_many", l_remove_many},
    {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {{"load", l_load}, {nullptr, nullptr}};

}  // namespace

void open_snapshot(lua_State* L, const Tables& t) {
    add_functions(L, t, t.methods, methods);
    add_functions(L, t, t.module, module_functions);
}

}  // namespace lua
}  // namespace soageo
