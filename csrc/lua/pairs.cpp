// layer:pairs, layer:pair_count and soageo.pairs_between: overlapping entity boxes by
// sort-and-sweep. The scratch lives in user values of the layer and is reused across calls.
#include "../core/bands.hpp"
#include "../core/carve.hpp"
#include "../core/radix.hpp"
#include "../core/sweep.hpp"
#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

// Every block is the layer's user value, made in a window of the call's Held (hold.hpp): a
// finalizer cannot sweep, grow or close a layer while its pairs are computed and written.

// The sweep scratch of the layer at `idx` for `n` entities. May raise (out of memory) before
// anything changes.
SweepScratch scratch_of(lua_State* L, Held* h, int idx, uint32_t n) {
    lua_getiuservalue(L, idx, kSweepValue);
    void* block = lua_touserdata(L, -1);
    lua_pop(L, 1);
    uint32_t cap = block ? static_cast<uint32_t>(carved_cap(block)) : 0;
    bool reuse = block && cap >= n;
    if (!reuse) {
        cap = n < 64 ? 64 : n + n / 2;
        block = held_userdata(h, sweep_scratch_bytes(cap));
        lua_setiuservalue(L, idx, kSweepValue);
    }
    return sweep_scratch_carve(block, cap, reuse);
}

// The pair buffer of the layer at `idx`, holding at least `need` pairs.
PairBuffer pairs_of(lua_State* L, Held* h, int idx, uint64_t need) {
    lua_getiuservalue(L, idx, kPairsValue);
    void* block = lua_touserdata(L, -1);
    lua_pop(L, 1);
    uint64_t cap = block ? carved_cap(block) : 0;
    if (!block || cap < need) {
        cap = need < 1024 ? 1024 : need + need / 2;
        if (cap > (uint64_t(1) << 40) / 24) luaL_error(L, "too many pairs");
        block = held_userdata(h, pair_buffer_bytes(cap));
        lua_setiuservalue(L, idx, kPairsValue);
    }
    return pair_buffer_carve(block, cap);
}

// The band scratch of the layer at `idx`, holding at least `entries` entries and `bands`
// bands. With entries = 0, whatever the layer holds (maybe nothing) and no allocation.
BandScratch bands_of(lua_State* L, Held* h, int idx, uint64_t entries, uint32_t bands) {
    lua_getiuservalue(L, idx, kBandsValue);
    void* block = lua_touserdata(L, -1);
    lua_pop(L, 1);
    uint64_t have = 0;
    uint32_t have_bands = 0;
    if (block) band_scratch_held(block, &have, &have_bands);
    if (!block && !entries) return BandScratch{};
    if (!block || have < entries || have_bands < bands) {
        have = entries + entries / 4;
        have_bands = bands + bands / 4;
        block = held_userdata(h, band_scratch_bytes(have, have_bands));
        lua_setiuservalue(L, idx, kBandsValue);
    }
    return band_scratch_carve(block, have, have_bands);
}

// Pushes the sorted pairs as a flat {a1, b1, a2, b2, ...} (reusing `out` when given, else a
// table made in a window of `h`), ids read from the scratch (ids in rank order: one lookup,
// mostly in order).
void push_pairs(lua_State* L, Held* h, int out, const PairBuffer& buf, uint64_t n, const SweepScratch& ra,
                const SweepScratch& rb) {
    if (out == 0) {
        held_table(h, n > 0x3fffffff ? 0 : static_cast<lua_Integer>(2 * n));
        out = lua_gettop(L);
    }
    Results r;
    results_open(L, &r);
    results_table(&r, out);
    // The second ids are in no order: past 65,536 entities (512 KB of ids) ask for the one
    // kIdsAhead pairs ahead (faster for the whole call at 1,000,000, no slower at 100,000).
    const uint64_t ahead = rb.boxes.n >= 65536 ? n : 0;
    for (uint64_t i = 0; i < n; ++i) {
        if (i + kIdsAhead < ahead) __builtin_prefetch(rb.id_keys + (buf.keys[i + kIdsAhead] & 0xffffffffu));
        uint64_t key = buf.keys[i];
        results_int(&r, static_cast<lua_Integer>(key_int(ra.id_keys[key >> 32])));
        results_int(&r, static_cast<lua_Integer>(key_int(rb.id_keys[key & 0xffffffffu])));
    }
    results_close(&r);
}

// (self [, out]) -> out, n
int l_pairs(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    int out = opt_out(L, 2);
    const KernelTable* k = context(L)->kernels;
    Held h;
    hold_layer(&h, L, 1, layer);
    const Store& st = layer->s;
    SweepScratch s = scratch_of(L, &h, 1, st.n);
    PairBuffer buf = pairs_of(L, &h, 1, 0);
    sweep_prepare(st, s, true);
    // Large layers are swept in y bands (bands.hpp): the plan, made after the sort, says how
    // much band scratch they need.
    const BandPlan plan = band_plan(s.boxes);
    BandScratch bs = bands_of(L, &h, 1, plan.bands ? plan.entries : 0, plan.bands);
    uint64_t n = pairs_ordered(plan, s, bs, k->sweep_complete, buf);
    if (n > buf.cap) {  // a buffer of the size asked for, and the sweep again from the sort
        buf = pairs_of(L, &h, 1, n);
        sweep_prepare(st, s, true);
        n = pairs_ordered(plan, s, bs, k->sweep_complete, buf);
    }
    push_pairs(L, &h, out, buf, n, s, s);
    lua_pushinteger(L, static_cast<lua_Integer>(n));
    held_end(&h);
    return 2;
}

// (self) -> n: the pair count, without building the list (capacity planning, benchmarks).
// Large layers are counted in bands too (count_banded), which need more band scratch than
// layer:pairs.
int l_pair_count(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    const KernelTable* k = context(L)->kernels;
    Held h;
    hold_layer(&h, L, 1, layer);
    SweepScratch s = scratch_of(L, &h, 1, layer->s.n);
    sweep_prepare(layer->s, s, false);
    const BandPlan plan = band_plan(s.boxes);
    BandScratch bs = bands_of(L, &h, 1, plan.bands ? plan.count_entries : 0, 2 * plan.bands);
    uint32_t none = 0;
    const uint64_t n = plan.bands ? count_banded(plan, s.boxes, bs, k->sweep_complete)
                                  : k->sweep_complete(s.boxes, &none, &none, 0);
    lua_pushinteger(L, static_cast<lua_Integer>(n));
    held_end(&h);
    return 1;
}

// (layer_a, layer_b [, out]) -> out, n with out = {a1, b1, ...}: id in a, id in b
int l_pairs_between(lua_State* L) {
    // Past views (layer:past) are type-checked first, then each replaced by its tick's frame.
    // Making b's may run a finalizer that drops a's tick: a's view, kept at 4, is checked
    // again once both are made (then held, no commit takes their blocks). Two views of one
    // layer's tick at one alpha are one layer, whether or not they share a frame.
    const bool past_a = luaL_testudata(L, 1, kPastViewClass) != nullptr;
    const bool past_b = luaL_testudata(L, 2, kPastViewClass) != nullptr;
    if (!past_a) check_layer(L, 1);
    if (!past_b) check_layer(L, 2);
    luaL_argcheck(L, !(past_a && past_b && same_past_view(L, 1, 2)), 2, "layers must differ (use layer:pairs())");
    int out = opt_out(L, 3);
    lua_settop(L, 3);
    if (past_a) lua_pushvalue(L, 1);
    frame_of_view(L, 1, false);
    frame_of_view(L, 2, false);
    if (past_a) check_past_view(L, 4, 1);
    Layer* a = check_layer(L, 1);
    Layer* b = check_layer(L, 2);
    luaL_argcheck(L, a != b, 2, "layers must differ (use layer:pairs())");
    const KernelTable* k = context(L)->kernels;
    Held h;
    hold_layer(&h, L, 1, a);
    held_add(&h, 2, &b->hold, close_layer);
    SweepScratch sa = scratch_of(L, &h, 1, a->s.n);
    SweepScratch sb = scratch_of(L, &h, 2, b->s.n);
    PairBuffer buf = pairs_of(L, &h, 1, 0);
    // Bands as in l_pairs: one cut for both layers, each layer's boxes in its own band scratch.
    auto prepare = [&]() {
        sweep_prepare(a->s, sa, true);
        sweep_prepare(b->s, sb, true);
    };
    prepare();
    uint64_t plan_b = 0;
    const BandPlan plan = band_plan_between(sa.boxes, sb.boxes, &plan_b);
    BandScratch ba = bands_of(L, &h, 1, plan.bands ? plan.entries : 0, plan.bands);
    BandScratch bb = bands_of(L, &h, 2, plan.bands ? plan_b : 0, plan.bands);
    auto sweep = [&]() {
        return plan.bands ? pairs_banded_between(plan, sa, sb, ba, bb, k->sweep_between, buf)
                          : k->sweep_between(sa.boxes, sb.boxes, buf.a, buf.b, buf.cap);
    };
    uint64_t n = sweep();
    if (n > buf.cap) {  // a buffer of the size asked for, and the sweep again from the sort
        buf = pairs_of(L, &h, 1, n);
        prepare();
        n = sweep();
    }
    if (!plan.bands) order_pairs(buf, n, sa, sb, false);
    push_pairs(L, &h, out, buf, n, sa, sb);
    lua_pushinteger(L, static_cast<lua_Integer>(n));
    held_end(&h);
    return 2;
}

const luaL_Reg methods[] = {
    {"pairs", l_pairs},
    {"pair_count", l_pair_count},
    {nullptr, nullptr},
};

const luaL_Reg module_functions[] = {{"pairs_between", l_pairs_between}, {nullptr, nullptr}};

}  // namespace

void open_pairs(lua_State* L, const Tables& t) {
    add_functions(L, t, t.methods, methods);
    add_functions(L, t, t.module, module_functions);
}

}  // namespace lua
}  // namespace soageo
