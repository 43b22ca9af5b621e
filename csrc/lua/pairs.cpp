// layer:pairs, layer:pair_count and soageo.pairs_between: overlapping entity boxes by
// sort-and-sweep. The scratch lives in user values of the layer and is reused across calls.
#include "../core/sweep.hpp"
#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

// The sweep scratch of the layer at `idx`, (re)made when the layer outgrew it. May raise
// (out of memory) before anything changes.
SweepScratch scratch_of(lua_State* L, int idx, const Layer* layer) {
    uint32_t n = layer->s.n;
    lua_getiuservalue(L, idx, kSweepValue);
    auto* block = static_cast<unsigned char*>(lua_touserdata(L, -1));
    uint32_t cap = block ? *reinterpret_cast<uint32_t*>(block) : 0;
    if (!block || cap < n) {
        lua_pop(L, 1);
        cap = n < 64 ? 64 : n + n / 2;
        block = static_cast<unsigned char*>(lua_newuserdatauv(L, kAlign + sweep_scratch_bytes(cap), 0));
        *reinterpret_cast<uint32_t*>(block) = cap;
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, idx, kSweepValue);
    }
    lua_pop(L, 1);  // still referenced by the layer
    return sweep_scratch_carve(block + kAlign, cap);
}

PairBuffer pairs_of(lua_State* L, int idx, uint64_t need) {
    lua_getiuservalue(L, idx, kPairsValue);
    auto* block = static_cast<unsigned char*>(lua_touserdata(L, -1));
    uint64_t cap = block ? *reinterpret_cast<uint64_t*>(block) : 0;
    if (!block || cap < need) {
        lua_pop(L, 1);
        cap = need < 1024 ? 1024 : need + need / 2;
        if (cap > (uint64_t(1) << 40) / 24) luaL_error(L, "too many pairs");
        block = static_cast<unsigned char*>(lua_newuserdatauv(L, kAlign + pair_buffer_bytes(cap), 0));
        *reinterpret_cast<uint64_t*>(block) = cap;
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, idx, kPairsValue);
    }
    lua_pop(L, 1);
    return pair_buffer_carve(block + kAlign, cap);
}

// Runs the sweep into the pair buffer of the layer at 1, growing it when it was too small.
template <class Sweep>
uint64_t sweep_into(lua_State* L, PairBuffer& buf, Sweep sweep) {
    uint64_t total = sweep(buf);
    if (total > buf.cap) {
        buf = pairs_of(L, 1, total);
        sweep(buf);
    }
    return total;
}

// Pushes the sorted pairs as a flat {a1, b1, a2, b2, ...} (reusing `out` when given).
void push_pairs(lua_State* L, int out, const PairBuffer& buf, uint64_t n, const Store& sa, const SweepScratch& ra,
                const Store& sb, const SweepScratch& rb) {
    if (out == 0) {
        lua_createtable(L, n > 0x3fffffff ? 0 : static_cast<int>(2 * n), 0);
        out = lua_gettop(L);
    }
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t key = buf.keys[i];
        lua_pushinteger(L, static_cast<lua_Integer>(sa.col.id[ra.slot_of_rank[key >> 32]]));
        lua_rawseti(L, out, static_cast<lua_Integer>(2 * i + 1));
        lua_pushinteger(L, static_cast<lua_Integer>(sb.col.id[rb.slot_of_rank[key & 0xffffffffu]]));
        lua_rawseti(L, out, static_cast<lua_Integer>(2 * i + 2));
    }
    clear_tail(L, out, static_cast<lua_Integer>(2 * n) + 1);
    lua_pushvalue(L, out);
}

// (self [, out]) -> out, n
int l_pairs(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    int out = opt_out(L, 2);
    SweepScratch s = scratch_of(L, 1, layer);
    PairBuffer buf = pairs_of(L, 1, 0);
    const KernelTable* k = context(L)->kernels;
    sweep_prepare(layer->s, s, true);
    uint64_t n = sweep_into(L, buf, [&](PairBuffer& b) { return k->sweep_complete(s.boxes, b.a, b.b, b.cap); });
    order_pairs(buf, n, s, s, true);
    push_pairs(L, out, buf, n, layer->s, s, layer->s, s);
    lua_pushinteger(L, static_cast<lua_Integer>(n));
    return 2;
}

// (self) -> n: the pair count, without building the list (capacity planning, benchmarks).
int l_pair_count(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    SweepScratch s = scratch_of(L, 1, layer);
    sweep_prepare(layer->s, s, false);
    uint32_t none = 0;
    lua_pushinteger(L, static_cast<lua_Integer>(context(L)->kernels->sweep_complete(s.boxes, &none, &none, 0)));
    return 1;
}

// (layer_a, layer_b [, out]) -> out, n with out = {a1, b1, ...}: id in a, id in b
int l_pairs_between(lua_State* L) {
    Layer* a = check_layer(L, 1);
    Layer* b = check_layer(L, 2);
    luaL_argcheck(L, a != b, 2, "layers must differ (use layer:pairs())");
    int out = opt_out(L, 3);
    SweepScratch sa = scratch_of(L, 1, a);
    SweepScratch sb = scratch_of(L, 2, b);
    PairBuffer buf = pairs_of(L, 1, 0);
    const KernelTable* k = context(L)->kernels;
    sweep_prepare(a->s, sa, true);
    sweep_prepare(b->s, sb, true);
    uint64_t n = sweep_into(L, buf, [&](PairBuffer& p) { return k->sweep_between(sa.boxes, sb.boxes, p.a, p.b, p.cap); });
    order_pairs(buf, n, sa, sb, false);
    push_pairs(L, out, buf, n, a->s, sa, b->s, sb);
    lua_pushinteger(L, static_cast<lua_Integer>(n));
    return 2;
}

const luaL_Reg methods[] = {
    {"pairs", l_pairs},
    {"pair_count", l_pair_count},
    {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {
    {"pairs_between", l_pairs_between},
    {nullptr, nullptr},
};

}  // namespace

void open_pairs(lua_State* L, const Tables& t) {
    add_functions(L, t, t.methods, methods);
    add_functions(L, t, t.module, module_functions);
}

}  // namespace lua
}  // namespace soageo
