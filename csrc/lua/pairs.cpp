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

// Reentrancy: any allocation may run finalizers, and a finalizer may grow, shrink, sweep or
// close the very layers being paired. So every block is left pinned on the stack as soon as
// it is obtained, the layers are copied (Store is plain data) only after the last allocation
// before the sweep, and a sweep whose pair buffer proves too small starts over.

Layer* live_layer(lua_State* L, int idx) {
    auto* layer = static_cast<Layer*>(lua_touserdata(L, idx));
    if (layer->closed) luaL_error(L, "layer closed during the sweep (by a finalizer)");
    return layer;
}

// The sweep scratch of the layer at `idx` for `n` entities, pinned on the stack. May raise
// (out of memory) before anything changes.
SweepScratch scratch_of(lua_State* L, int idx, uint32_t n) {
    lua_getiuservalue(L, idx, kSweepValue);
    void* block = lua_touserdata(L, -1);
    uint32_t cap = block ? static_cast<uint32_t>(carved_cap(block)) : 0;
    bool reuse = block && cap >= n;
    if (!reuse) {
        lua_pop(L, 1);
        cap = n < 64 ? 64 : n + n / 2;
        block = lua_newuserdatauv(L, sweep_scratch_bytes(cap), 0);
        live_layer(L, idx);  // not installed on a layer a finalizer run by the allocation closed
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, idx, kSweepValue);
    }
    return sweep_scratch_carve(block, cap, reuse);
}

// The pair buffer of the layer at `idx`, holding at least `need` pairs, pinned on the stack.
PairBuffer pairs_of(lua_State* L, int idx, uint64_t need) {
    lua_getiuservalue(L, idx, kPairsValue);
    void* block = lua_touserdata(L, -1);
    uint64_t cap = block ? carved_cap(block) : 0;
    if (!block || cap < need) {
        lua_pop(L, 1);
        cap = need < 1024 ? 1024 : need + need / 2;
        if (cap > (uint64_t(1) << 40) / 24) luaL_error(L, "too many pairs");
        block = lua_newuserdatauv(L, pair_buffer_bytes(cap), 0);
        live_layer(L, idx);  // not installed on a layer a finalizer run by the allocation closed
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, idx, kPairsValue);
    }
    return pair_buffer_carve(block, cap);
}

// The band scratch of the layer at `idx`, holding at least `entries` entries and `bands`
// bands, pinned on the stack. With entries = 0, whatever the layer holds (maybe nothing) and
// no allocation: a call takes the scratch of the last one before planning, so it starts over
// (sorting again) only when the plan outgrows it.
BandScratch bands_of(lua_State* L, int idx, uint64_t entries, uint32_t bands) {
    lua_getiuservalue(L, idx, kBandsValue);
    void* block = lua_touserdata(L, -1);
    uint64_t have = 0;
    uint32_t have_bands = 0;
    if (block) band_scratch_held(block, &have, &have_bands);
    if (!block && !entries) return BandScratch{};
    if (!block || have < entries || have_bands < bands) {
        lua_pop(L, 1);
        have = entries + entries / 4;
        have_bands = bands + bands / 4;
        block = lua_newuserdatauv(L, band_scratch_bytes(have, have_bands), 0);
        live_layer(L, idx);  // not installed on a layer a finalizer run by the allocation closed
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, idx, kBandsValue);
    }
    return band_scratch_carve(block, have, have_bands);
}

// Pushes the sorted pairs as a flat {a1, b1, a2, b2, ...} (reusing `out` when given), ids
// read from the scratch (ids in rank order: one lookup, mostly in order). The blocks are
// pinned; a finalizer that sweeps one of these layers again reuses the scratch and pair buffer
// being read, so the layers' sweep counters are watched and false means "start over".
bool push_pairs(lua_State* L, int out, const PairBuffer& buf, uint64_t n, const SweepScratch& ra, const SweepScratch& rb,
                const Layer* la, const Layer* lb) {
    Results r;
    results_open(L, &r);
    results_watch(&r, &la->sweeps);
    results_watch(&r, &lb->sweeps);
    results_table(&r, out, n > 0x3fffffff ? 0 : static_cast<lua_Integer>(2 * n));
    if (results_stale(&r)) return false;
    // The second ids are in no order: past 65,536 entities (512 KB of ids) ask for the one
    // kIdsAhead pairs ahead (faster for the whole call at 1,000,000, no slower at 100,000).
    const uint64_t ahead = rb.boxes.n >= 65536 ? n : 0;
    for (uint64_t i = 0; i < n; ++i) {
        if (i + kIdsAhead < ahead) __builtin_prefetch(rb.id_keys + (buf.keys[i + kIdsAhead] & 0xffffffffu));
        uint64_t key = buf.keys[i];
        results_int(&r, static_cast<lua_Integer>(key_int(ra.id_keys[key >> 32])));
        results_int(&r, static_cast<lua_Integer>(key_int(rb.id_keys[key & 0xffffffffu])));
        if (results_stale(&r)) return false;
    }
    results_close(&r);
    return true;
}

// (self [, out]) -> out, n
int l_pairs(lua_State* L) {
    check_layer(L, 1);
    int out = opt_out(L, 2);
    const KernelTable* k = context(L)->kernels;
    const int top = lua_gettop(L);
    // Large layers are swept in y bands (bands.hpp): the band plan is made after the sort, so
    // a layer whose plan needs more band scratch than it has starts over with it allocated.
    uint64_t band_entries = 0;
    uint32_t band_count = 0;
    for (uint64_t need = 0;; lua_settop(L, top)) {
        SweepScratch s = scratch_of(L, 1, live_layer(L, 1)->s.n);
        PairBuffer buf = pairs_of(L, 1, need);
        BandScratch bs = bands_of(L, 1, band_entries, band_count);
        Layer* layer = live_layer(L, 1);
        if (s.cap < layer->s.n) continue;  // grown by a finalizer meanwhile
        lua_getiuservalue(L, 1, kColumnsValue);
        const Store st = layer->s;  // nothing allocates from here to the push
        sweep_prepare(st, s, true);
        const BandPlan plan = band_plan(s.boxes);
        if (plan.bands && (plan.entries > bs.entries || plan.bands > bs.bands)) {
            band_entries = plan.entries;
            band_count = plan.bands;
            continue;
        }
        const uint64_t n = pairs_ordered(plan, s, bs, k->sweep_complete, buf);
        if (n > buf.cap) {
            need = n;
            continue;
        }
        ++layer->sweeps;
        if (!push_pairs(L, out, buf, n, s, s, layer, layer)) continue;
        lua_pushinteger(L, static_cast<lua_Integer>(n));
        return 2;
    }
}

// (self) -> n: the pair count, without building the list (capacity planning, benchmarks).
// Large layers are counted in bands too (count_banded), which need more band scratch than
// layer:pairs: the same start-over as there.
int l_pair_count(lua_State* L) {
    check_layer(L, 1);
    const KernelTable* k = context(L)->kernels;
    const int top = lua_gettop(L);
    uint64_t band_entries = 0;
    uint32_t band_count = 0;
    for (;; lua_settop(L, top)) {
        SweepScratch s = scratch_of(L, 1, live_layer(L, 1)->s.n);
        BandScratch bs = bands_of(L, 1, band_entries, band_count);
        Layer* layer = live_layer(L, 1);
        if (s.cap < layer->s.n) continue;  // grown by a finalizer meanwhile
        ++layer->sweeps;
        sweep_prepare(layer->s, s, false);  // nothing allocates from here on
        const BandPlan plan = band_plan(s.boxes);
        if (plan.bands && (plan.count_entries > bs.entries || 2 * plan.bands > bs.bands)) {
            band_entries = plan.count_entries;
            band_count = 2 * plan.bands;
            continue;
        }
        uint32_t none = 0;
        const uint64_t n = plan.bands ? count_banded(plan, s.boxes, bs, k->sweep_complete)
                                      : k->sweep_complete(s.boxes, &none, &none, 0);
        lua_pushinteger(L, static_cast<lua_Integer>(n));
        return 1;
    }
}

// (layer_a, layer_b [, out]) -> out, n with out = {a1, b1, ...}: id in a, id in b
int l_pairs_between(lua_State* L) {
    Layer* a = check_layer(L, 1);
    Layer* b = check_layer(L, 2);
    luaL_argcheck(L, a != b, 2, "layers must differ (use layer:pairs())");
    int out = opt_out(L, 3);
    const KernelTable* k = context(L)->kernels;
    const int top = lua_gettop(L);
    // Bands as in l_pairs: one cut for both layers, each layer's boxes in its own band scratch.
    uint64_t entries_a = 0, entries_b = 0;
    uint32_t band_count = 0;
    for (uint64_t need = 0;; lua_settop(L, top)) {
        SweepScratch sa = scratch_of(L, 1, live_layer(L, 1)->s.n);
        SweepScratch sb = scratch_of(L, 2, live_layer(L, 2)->s.n);
        PairBuffer buf = pairs_of(L, 1, need);
        BandScratch ba = bands_of(L, 1, entries_a, band_count);
        BandScratch bb = bands_of(L, 2, entries_b, band_count);
        a = live_layer(L, 1);
        b = live_layer(L, 2);
        if (sa.cap < a->s.n || sb.cap < b->s.n) continue;
        lua_getiuservalue(L, 1, kColumnsValue);
        lua_getiuservalue(L, 2, kColumnsValue);
        const Store st_a = a->s, st_b = b->s;  // nothing allocates from here to the push
        sweep_prepare(st_a, sa, true);
        sweep_prepare(st_b, sb, true);
        uint64_t plan_b = 0;
        const BandPlan plan = band_plan_between(sa.boxes, sb.boxes, &plan_b);
        if (plan.bands && (plan.entries > ba.entries || plan_b > bb.entries || plan.bands > ba.bands ||
                           plan.bands > bb.bands)) {
            entries_a = plan.entries;
            entries_b = plan_b;
            band_count = plan.bands;
            continue;
        }
        uint64_t n = plan.bands ? pairs_banded_between(plan, sa, sb, ba, bb, k->sweep_between, buf)
                                : k->sweep_between(sa.boxes, sb.boxes, buf.a, buf.b, buf.cap);
        if (n > buf.cap) {
            need = n;
            continue;
        }
        if (!plan.bands) order_pairs(buf, n, sa, sb, false);
        ++a->sweeps;
        ++b->sweeps;
        if (!push_pairs(L, out, buf, n, sa, sb, a, b)) continue;
        lua_pushinteger(L, static_cast<lua_Integer>(n));
        return 2;
    }
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
