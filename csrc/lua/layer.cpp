// The layer class (liolib.c's pattern): a named metatable, methods as __index, one idempotent
// close serving __gc and __close.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "binding.hpp"
#include "../core/carve.hpp"

namespace soageo {
namespace lua {

// A layer that is closed, busy, or closed by a finalizer during a call that has raised since.
[[noreturn]] static void unusable(lua_State* L, int idx, Layer* layer) {
    if (layer->hold.busy) luaL_argerror(L, idx, "layer is busy: called from a finalizer during a call");
    if (layer->hold.close_pending) {
        layer->hold.close_pending = false;
        close_layer(L, idx);
    }
    // A past tick's frame that a commit dropped while a call on it was under way.
    if (layer->past_tick)
        luaL_argerror(L, idx, lua_pushfstring(L, "tick %I has left the history", static_cast<lua_Integer>(layer->past_tick)));
    luaL_argerror(L, idx, "layer is closed");
    __builtin_unreachable();
}

Layer* check_layer(lua_State* L, int idx) {
    // Every method starts here, and layer:move is little more: fetching the metatable to
    // compare it cost about a tenth of a move. A userdata of a layer's size that carries its
    // own tag (only new_layer writes one) is a layer; anything else takes luaL_checkudata's
    // path, which also words the error.
    auto* layer = static_cast<Layer*>(lua_touserdata(L, idx));
    if (!layer || lua_rawlen(L, idx) != sizeof(Layer) || layer->tag != layer_tag(layer))
        layer = static_cast<Layer*>(luaL_checkudata(L, idx, kLayerClass));
    if (layer->closed | layer->hold.busy | layer->hold.close_pending) unusable(L, idx, layer);
    return layer;
}

Layer* check_writable_layer(lua_State* L, int idx) {
    Layer* layer = check_layer(L, idx);
    if (__builtin_expect(layer->shared != nullptr, 0)) shared_read_only(L, idx, "layer", layer->shared);
    return layer;
}

Layer* new_layer(lua_State* L) {
    auto* layer = static_cast<Layer*>(lua_newuserdatauv(L, sizeof(Layer), kLayerValues));
    std::memset(layer, 0, sizeof *layer);
    layer->tag = layer_tag(layer);
    luaL_setmetatable(L, kLayerClass);
    return layer;
}

void push_ids(lua_State* L, Held* h, int out, const Layer* layer, const uint32_t* slots, uint32_t k) {
    if (out == 0) {
        held_table(h, k);
        out = lua_gettop(L);
    }
    const HitIds hit(layer->s.col.id, slots, k, layer->s.n);
    if (k <= kFewIds) {
        // A few ids: raw writes, whatever the table's metatable; results_set's choice of the
        // fastest write costs as much as the writes in a small query.
        for (uint32_t i = 0; i < k; ++i) {
            lua_pushinteger(L, hit[i]);
            lua_rawseti(L, out, lua_Integer(i) + 1);
        }
        clear_tail(L, out, lua_Integer(k) + 1);
        lua_pushvalue(L, out);
        return;
    }
    Results r;
    results_open(L, &r);
    results_table(&r, out);
    for (uint32_t i = 0; i < k; ++i) results_int(&r, hit[i]);
    results_close(&r);
}

void reserve(lua_State* L, int idx, Layer* layer, uint64_t need, Held* h) {
    idx = lua_absindex(L, idx);
    const Store& s = layer->s;
    if (need <= s.col.cap) return;
    if (need > kMaxEntities) luaL_error(L, "layer is full (at most %d entities)", static_cast<int>(kMaxEntities));
    uint64_t cap = s.col.cap ? s.col.cap : kMaxWidth;
    while (cap < need) cap *= 2;
    if (cap > kMaxEntities) cap = kMaxEntities;
    // Both blocks are allocated before the layer changes: either allocation may raise.
    void* col_block = held_userdata(h, columns_bytes(static_cast<uint32_t>(cap)));
    uint32_t map_cap = idmap_cap_for(static_cast<uint32_t>(cap));
    void* map_block = held_userdata(h, idmap_bytes(map_cap));
    store_rehome(layer->s, columns_carve(col_block, static_cast<uint32_t>(cap)), idmap_init(map_block, map_cap));
    lua_setiuservalue(L, idx, kMapValue);
    lua_setiuservalue(L, idx, kColumnsValue);
}

namespace {

int l_new(lua_State* L) {
    lua_Integer cap = luaL_optinteger(L, 1, 0);
    if (!(cap >= 0 && cap <= kMaxEntities))
        luaL_argerror(L, 1, lua_pushfstring(L, "capacity must be in [0, %s]", kMaxEntitiesText));
    Layer* layer = new_layer(L);
    Held none;
    held_open(&none, L);
    reserve(L, -1, layer, cap ? static_cast<uint64_t>(cap) : kMaxWidth, &none);
    pace_collector(L);
    return 1;
}

int l_set(lua_State* L) {
    Layer* layer = check_writable_layer(L, 1);
    int64_t id = check_id(L, 2);
    float x = check_float(L, 3, "x");
    float y = check_float(L, 4, "y");
    float r = lua_isnoneornil(L, 5) ? 0.0f : check_radius(L, 5, "r");
    uint32_t mask = lua_isnoneornil(L, 6) ? 1u : check_mask(L, 6);
    if (layer->s.n >= layer->s.col.cap && idmap_find(layer->s.map, id) == kNoSlot) {
        Held h;
        hold_layer(&h, L, 1, layer);
        reserve(L, 1, layer, uint64_t(layer->s.n) + 1, &h);
        store_set(layer->s, id, x, y, r, mask);
        held_end(&h);
        return 0;
    }
    store_set(layer->s, id, x, y, r, mask);
    return 0;
}

int l_move(lua_State* L) {
    Layer* layer = check_writable_layer(L, 1);
    Store& s = layer->s;
    int64_t id = check_id(L, 2);
    // `for id, x, y in layer:each() do layer:move(id, ...)` moves the entity each() just
    // returned: its slot is the hint, and the id column says so without the id map. (Moves
    // leave the hint alone: its id stays one cached line for a run of moves in any order.)
    uint32_t slot = layer->hint_slot;
    const bool hinted = slot < s.n && s.col.id[slot] == id;
    // Otherwise the id map's line is a cache miss at scale: fetch it while x and y are checked.
    uint32_t home = 0;
    if (!hinted) {
        home = idmap_home(s.map, id);
        __builtin_prefetch(&s.map.buckets[home], 0);
    }
    const float x = check_float(L, 3, "x");
    const float y = check_float(L, 4, "y");
    if (!hinted) {
        slot = idmap_find_from(s.map, home, id);
        if (slot == kNoSlot) return luaL_argerror(L, 2, "no entity with this id");
    }
    store_move(s, slot, x, y);
    return 0;
}

int l_remove(lua_State* L) {
    Layer* layer = check_writable_layer(L, 1);
    lua_pushboolean(L, store_remove(layer->s, check_id(L, 2)));
    return 1;
}

int push_entity(lua_State* L, const Store& s, uint32_t slot) {
    lua_pushnumber(L, s.col.x[slot]);
    lua_pushnumber(L, s.col.y[slot]);
    lua_pushnumber(L, s.col.r[slot]);
    lua_pushinteger(L, s.col.mask[slot]);
    return 4;
}

int l_get(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    uint32_t slot = idmap_find(layer->s.map, check_id(L, 2));
    if (slot == kNoSlot) {
        lua_pushnil(L);
        return 1;
    }
    return push_entity(L, layer->s, slot);
}

int l_has(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    lua_pushboolean(L, idmap_find(layer->s.map, check_id(L, 2)) != kNoSlot);
    return 1;
}

int l_len(lua_State* L) {
    lua_pushinteger(L, check_layer(L, 1)->s.n);
    return 1;
}

int l_clear(lua_State* L) {
    Layer* layer = check_writable_layer(L, 1);
    store_clear(layer->s);
    return 0;
}

int l_next(lua_State* L) { return layer_step(L, lua_tointeger(L, lua_upvalueindex(2))); }

// A step function records the count it began at, so every loop begun at the same count can
// share one: the layer keeps the last one made, and a loop per tick over a layer whose ids did
// not change since the last allocates nothing.
int l_each(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    lua_getiuservalue(L, 1, kEachValue);
    if (lua_getupvalue(L, -1, 2) == nullptr || static_cast<uint64_t>(lua_tointeger(L, -1)) != layer->s.feed.seq) {
        lua_settop(L, 1);
        lua_pushvalue(L, lua_upvalueindex(1));  // the context
        lua_pushinteger(L, 0);
        lua_pushcclosure(L, l_next, 2);
        // Made with a placeholder: the allocation may run a finalizer that changes the layer.
        layer = check_layer(L, 1);
        lua_pushinteger(L, static_cast<lua_Integer>(layer->s.feed.seq));
        lua_setupvalue(L, -2, 2);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, 1, kEachValue);
    } else {
        lua_pop(L, 1);
    }
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

// Reads ids[1..n] from the table at `arg` kAhead elements before they are used and prefetches
// each one's id-map line: with ids scattered over 64 bits every lookup misses the cache, and
// this keeps kAhead of those misses in flight. Plain data, so a Lua error may skip it.
struct IdsAhead {
    static constexpr int kAhead = 32;
    lua_State* L;
    const IdMap* map;
    int arg;
    int n;
    int next;  // the next element to read
    int bad;   // the first element that is not an integer (0: none yet)
    int64_t ring[kAhead];

    IdsAhead(lua_State* l, const IdMap* m, int a, int count) : L(l), map(m), arg(a), n(count), next(1), bad(0) {}

    // The id of element i (i ascending from 1); false when it is not an integer.
    bool get(int i, int64_t* id) {
        for (; next <= n && next < i + kAhead && bad == 0; ++next) {
            lua_rawgeti(L, arg, next);
            if (lua_isinteger(L, -1)) {
                int64_t v = lua_tointeger(L, -1);
                ring[next % kAhead] = v;
                idmap_prefetch_find(*map, v);
            } else {
                bad = next;
            }
            lua_pop(L, 1);
        }
        if (i == bad) return false;
        *id = ring[i % kAhead];
        return true;
    }
};

// The number at t[i] of the table at `arg` as a float32, and what was found there: a number
// finite as a double and as a float32, another number, or no number (strings are not converted).
enum class Element { kFinite, kNotFinite, kNotNumber };

Element read_float(lua_State* L, int arg, int i, float* out) {
    const bool number = lua_rawgeti(L, arg, i) == LUA_TNUMBER;
    lua_Number v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    *out = static_cast<float>(v);
    return !number ? Element::kNotNumber : finite32(v) ? Element::kFinite : Element::kNotFinite;
}

const char* const many_names[] = {"ids", "xs", "ys", "rs", "masks"};

// set_many's first pass: checks every element of the arrays at 2..6 (n each; rs and masks
// when given) and returns how many ids are not in the layer.
uint64_t check_many(lua_State* L, const Layer* layer, int n, bool has_r, bool has_mask) {
    uint64_t fresh = 0;
    IdsAhead check_ids(L, &layer->s.map, 2, n);
    for (int i = 1; i <= n; ++i) {
        int64_t id = 0;
        if (!check_ids.get(i, &id)) luaL_argerror(L, 2, lua_pushfstring(L, "ids[%d] must be an integer", i));
        if (idmap_find(layer->s.map, id) == kNoSlot) ++fresh;
        for (int a = 3; a <= 6; ++a) {
            if ((a == 5 && !has_r) || (a == 6 && !has_mask)) continue;
            const char* rule = nullptr;
            if (a == 6) {
                uint32_t m;
                lua_rawgeti(L, a, i);
                if (!to_mask(L, -1, &m)) rule = "an integer in [0, 0xffffffff]";
                lua_pop(L, 1);
            } else {
                float f;
                const Element e = read_float(L, a, i, &f);
                if (e == Element::kNotNumber) rule = "a number";
                else if (e == Element::kNotFinite || (a == 5 && f < 0)) rule = a == 5 ? "finite and >= 0" : "finite";
            }
            if (rule) luaL_argerror(L, a, lua_pushfstring(L, "%s[%d] must be %s", many_names[a - 2], i, rule));
        }
    }
    return fresh;
}

// All arrays are read and checked before the layer changes, so a bad element anywhere (NaN,
// a float id, a missing value) leaves the layer as it was.
int l_set_many(lua_State* L) {
    Layer* layer = check_writable_layer(L, 1);
    int n = check_array(L, 2, "ids");
    for (int a = 3; a <= 6; ++a) {
        if (a >= 5 && lua_isnoneornil(L, a)) continue;
        if (check_array(L, a, many_names[a - 2]) != n)
            luaL_argerror(L, a, lua_pushfstring(L, "%s must have as many elements as ids", many_names[a - 2]));
    }
    bool has_r = !lua_isnoneornil(L, 5), has_mask = !lua_isnoneornil(L, 6);
    // The first pass checks every element and counts the new ids; the second reads the arrays
    // again and writes. Growing the layer between the two may run finalizers, which may change
    // the arrays (not the layer, held): then they are checked again.
    Held h;
    hold_layer(&h, L, 1, layer);
    uint64_t fresh = check_many(L, layer, n, has_r, has_mask);
    if (uint64_t(layer->s.n) + fresh > layer->s.col.cap) {
        reserve(L, 1, layer, uint64_t(layer->s.n) + fresh, &h);
        fresh = check_many(L, layer, n, has_r, has_mask);
        if (uint64_t(layer->s.n) + fresh > layer->s.col.cap) luaL_argerror(L, 2, "ids changed during the call");
    }
    IdsAhead ids(L, &layer->s.map, 2, n);
    for (int i = 1; i <= n; ++i) {
        int64_t id = 0;
        ids.get(i, &id);
        float x, y, r = 0.0f;
        read_float(L, 3, i, &x);
        read_float(L, 4, i, &y);
        if (has_r) read_float(L, 5, i, &r);
        uint32_t mask = 1u;
        if (has_mask) {
            lua_rawgeti(L, 6, i);
            mask = static_cast<uint32_t>(lua_tointeger(L, -1));
            lua_pop(L, 1);
        }
        store_set(layer->s, id, x, y, r, mask);
    }
    held_end(&h);
    return 0;
}

// The scratch of layer:move_many for n moves (move_batch_bytes_per_move each, at least 1,024
// moves and a quarter more than asked when it grows, so that a batch growing tick by tick does
// not make a new block every call), a user value the layer keeps for its next batch. May raise
// (out of memory) before anything changes.
MoveBatch move_scratch(lua_State* L, int idx, uint32_t n, Held* h) {
    lua_getiuservalue(L, idx, kMovesValue);
    void* block = lua_touserdata(L, -1);
    lua_pop(L, 1);
    uint64_t cap = block ? carved_cap(block) : 0;
    if (!block || cap < n) {
        // A 32-bit host runs out of size_t first (1,024 bytes left for aligning the arrays).
        const uint64_t most = (SIZE_MAX - 1024 - move_batch_bytes(0)) / move_batch_bytes_per_move();
        if (n > most) luaL_argerror(L, 2, "ids has too many elements");
        cap = n < 1024 ? 1024 : std::min<uint64_t>(most, uint64_t(n) + n / 4);
        block = held_userdata(h, move_batch_bytes(static_cast<uint32_t>(cap)));
        lua_setiuservalue(L, idx, kMovesValue);
    }
    return move_batch_carve(block, static_cast<uint32_t>(cap));
}

// (self, ids, xs, ys): layer:move for every i, all or nothing. One pass reads and checks the
// three arrays into scratch, the ids are looked up together (move_batch_lookup: in large maps,
// in the order of the map), and only then are the columns written. The error is the first bad
// element; within one element: an id that is no integer, an id not in the layer, xs[i], ys[i]
// (numbers only: strings are not converted).
int l_move_many(lua_State* L) {
    Layer* layer = check_writable_layer(L, 1);
    const int n = check_array(L, 2, "ids");
    if (check_array(L, 3, "xs") != n) luaL_argerror(L, 3, "xs must have as many elements as ids");
    if (check_array(L, 4, "ys") != n) luaL_argerror(L, 4, "ys must have as many elements as ids");
    if (n == 0) return 0;
    // The elements are read kChunk at a time onto the stack, which is cleared once a chunk:
    // one lua_settop per element was a ninth of the API calls of a move. (The room is made
    // first, growing the stack allocates; with some for what move_scratch pushes.)
    constexpr int kChunk = 32;
    luaL_checkstack(L, 3 * kChunk + 8, "move_many");
    Held h;
    hold_layer(&h, L, 1, layer);
    const MoveBatch b = move_scratch(L, 1, static_cast<uint32_t>(n), &h);
    // Nothing below allocates until an error is raised or the layer has changed.
    const int top = lua_gettop(L);
    int bad = 0, bad_arg = 0, looked_up = n;
    bool bad_number = true;  // whether the bad x or y is a number (then not finite)
    for (int i0 = 1; i0 <= n && !bad; i0 += kChunk) {
        const int i1 = std::min(n, i0 + kChunk - 1);
        bool numbers[2 * kChunk];
        for (int i = i0, j = 0; i <= i1; ++i, j += 2) {
            lua_rawgeti(L, 2, i);
            numbers[j] = lua_rawgeti(L, 3, i) == LUA_TNUMBER;
            numbers[j + 1] = lua_rawgeti(L, 4, i) == LUA_TNUMBER;
        }
        for (int i = i0, at = top + 1; i <= i1; ++i, at += 3) {
            const bool id_ok = lua_isinteger(L, at);
            b.ids[i - 1] = static_cast<int64_t>(lua_tointeger(L, at));
            b.slots[i - 1] = idmap_home(layer->s.map, b.ids[i - 1]);
            const lua_Number x = lua_tonumber(L, at + 1), y = lua_tonumber(L, at + 2);
            b.xy[2 * i - 2] = static_cast<float>(x);
            b.xy[2 * i - 1] = static_cast<float>(y);
            const bool x_number = numbers[2 * (i - i0)], y_number = numbers[2 * (i - i0) + 1];
            const bool x_ok = x_number && finite32(x), y_ok = y_number && finite32(y);
            if (!(id_ok && x_ok && y_ok)) {
                bad = i;
                bad_arg = !id_ok ? 2 : !x_ok ? 3 : 4;
                bad_number = bad_arg == 3 ? x_number : y_number;
                looked_up = id_ok ? i : i - 1;  // an absent id before a bad x or y is the first error
                break;
            }
        }
        lua_settop(L, top);
    }
    const MovePlan plan = move_batch_lookup(layer->s.map, b, static_cast<uint32_t>(looked_up));
    if (plan.first_absent < uint32_t(looked_up)) {
        const int i = static_cast<int>(plan.first_absent);
        luaL_argerror(L, 2, lua_pushfstring(L, "ids[%d]: no entity with id %I", i + 1, static_cast<lua_Integer>(b.ids[i])));
    }
    if (bad_arg == 2) luaL_argerror(L, 2, lua_pushfstring(L, "ids[%d] must be an integer", bad));
    const char* rule = bad_number ? "finite" : "a number";
    if (bad_arg == 3) luaL_argerror(L, 3, lua_pushfstring(L, "xs[%d] must be %s", bad, rule));
    if (bad_arg == 4) luaL_argerror(L, 4, lua_pushfstring(L, "ys[%d] must be %s", bad, rule));
    store_move_many(layer->s, plan.slots, plan.xy, static_cast<uint32_t>(n));
    held_end(&h);
    return 0;
}

int l_capacity(lua_State* L) {
    lua_pushinteger(L, check_layer(L, 1)->s.col.cap);
    return 1;
}

}  // namespace

// The generic-for step: the control value is the previous id; nil starts at slot 0. `members`
// is the layer's count of changes to its ids (its change feed's seq) when the loop began: an id
// added or removed since (which would make the loop skip entities, or never end when every step
// adds one) raises, on every step, the one that would end the loop included. The previous id is
// usually where the last step left it: one look at that slot of the id column spares the id
// map's lookup, a cache miss in a large layer (ids are unique, so a match is exact, whatever ran in between).
int layer_step(lua_State* L, lua_Integer members) {
    Layer* layer = check_layer(L, 1);
    const Store& s = layer->s;
    uint32_t slot = 0;
    if (!lua_isnoneornil(L, 2)) {
        const int64_t id = check_id(L, 2);
        uint32_t prev = layer->hint_slot;
        if (!(prev < s.n && s.col.id[prev] == id)) prev = idmap_find(s.map, id);
        if (prev == kNoSlot) return luaL_error(L, "layer changed during iteration (id %I removed)", lua_tointeger(L, 2));
        slot = prev + 1;
    }
    if (members != static_cast<lua_Integer>(s.feed.seq))
        return luaL_error(L, "layer changed during iteration (ids added or removed)");
    if (slot >= s.n) return 0;
    layer->hint_slot = slot;
    lua_pushinteger(L, static_cast<lua_Integer>(s.col.id[slot]));
    return 1 + push_entity(L, s, slot);
}


// Idempotent. The column blocks are dropped with the user values and collected by Lua.
void close_layer(lua_State* L, int idx) {
    auto* layer = static_cast<Layer*>(lua_touserdata(L, idx));
    if (layer->closed) return;
    if (layer->shared) shared_release(layer->shared);
    layer->shared = nullptr;
    std::memset(&layer->s, 0, sizeof layer->s);
    std::memset(&layer->grid, 0, sizeof layer->grid);
    layer->closed = true;
    for (int v = kColumnsValue; v <= kLayerValues; ++v) {
        lua_pushnil(L);
        lua_setiuservalue(L, idx, v);
    }
}

int close_held_layer(lua_State* L, const char* cls) {
    auto* layer = static_cast<Layer*>(luaL_checkudata(L, 1, cls));
    if (layer->hold.busy)
        layer->hold.close_pending = true;
    else
        close_layer(L, 1);
    return 0;
}

namespace {

int l_close(lua_State* L) { return close_held_layer(L, kLayerClass); }

int l_tostring(lua_State* L) {
    auto* layer = static_cast<Layer*>(luaL_checkudata(L, 1, kLayerClass));
    if (layer->closed || layer->hold.close_pending)
        lua_pushfstring(L, "soageo.layer (closed): %p", static_cast<void*>(layer));
    else
        lua_pushfstring(L, "soageo.layer (%d entities): %p", static_cast<int>(layer->s.n), static_cast<void*>(layer));
    return 1;
}

const luaL_Reg methods[] = {
    {"set", l_set}, {"move", l_move}, {"remove", l_remove}, {"get", l_get}, {"has", l_has}, {"each", l_each},
    {"clear", l_clear}, {"set_many", l_set_many}, {"move_many", l_move_many}, {"capacity", l_capacity},
    {"close", l_close}, {nullptr, nullptr},
};

const luaL_Reg metamethods[] = {
    {"__len", l_len}, {"__gc", l_close}, {"__close", l_close}, {"__tostring", l_tostring}, {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {{"layer", l_new}, {nullptr, nullptr}};

}  // namespace

void open_layer(lua_State* L, const Tables& t) {
    add_functions(L, t, t.methods, methods);
    add_functions(L, t, t.metatable, metamethods);
    add_functions(L, t, t.module, module_functions);
}

}  // namespace lua
}  // namespace soageo
