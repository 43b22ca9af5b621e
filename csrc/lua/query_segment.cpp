// layer:cast_segment and layer:cast_segment_first: projectiles and lines of sight.
#include <algorithm>
#include <cmath>

#include "../core/segment.hpp"
#include "binding.hpp"

namespace soageo {
namespace lua {
namespace {

// (self, x0, y0, x1, y1 [, out_ids [, out_t [, mask]]]) -> ids, ts, n
int l_cast_segment(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Segment s = check_segment(L, 2);
    int ids_out = opt_out(L, 6);
    int ts_out = opt_out(L, 7);
    Filter f = opt_filter(L, 8);
    luaL_argcheck(L, ids_out == 0 || ts_out == 0 || !lua_rawequal(L, ids_out, ts_out), 7, "out_t must be another table than out_ids");
    Held h;
    hold_layer(&h, L, 1, layer);
    consider_shape(L, 1, layer, s, true, &h);
    const int ids_t = held_out(&h, ids_out);
    const int ts_t = held_out(&h, ts_out);
    Results r;
    results_open(L, &r);
    results_table(&r, ids_t);
    results_table(&r, ts_t);
    const Columns& col = layer->s.col;
    const uint32_t* slots;
    uint32_t k = run_query(kernels(L), layer, &KernelTable::cast_segment, s, f, &slots);
    const bool indexed = slots != col.hits;
    if (slots != col.hits)
        for (uint32_t i = 0; i < k; ++i) col.hits[i] = slots[i];  // where order_segment_hits reads them
    order_segment_hits(col, s, k);
    const uint64_t* keys = col.order;
    const int64_t* ids = col.id;
    const bool sparse = uint64_t(k) * 4 <= layer->s.n;  // as HitIds
    for (uint32_t i = 0; i < k; ++i) {
        if (sparse && i + kIdsAhead < k) __builtin_prefetch(ids + key_slot(keys[i + kIdsAhead]));
        results_int(&r, static_cast<lua_Integer>(ids[key_slot(keys[i])]), 0);
        results_number(&r, key_t(keys[i]), 1);
    }
    results_close(&r);
    count_query(layer, indexed);
    lua_pushinteger(L, k);
    held_end(&h);
    return 3;
}

// (self, x0, y0, x1, y1 [, mask]) -> id, t of the nearest hit, or nil
int l_cast_segment_first(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    Segment s = check_segment(L, 2);
    Filter f = opt_filter(L, 6);
    // The index is worth it when the first piece of its walk (two cells) is a small query.
    auto area = [&](const Grid& g) {
        double len = std::sqrt(double(s.dx) * s.dx + double(s.dy) * s.dy);
        double step = len > 0 ? std::min(1.0, 2.0 * g.cell / len) : 1.0;
        return area_of(Segment{s.x0, s.y0, static_cast<float>(s.dx * step), static_cast<float>(s.dy * step)}, g.reach);
    };
    Held h;
    hold_layer(&h, L, 1, layer);
    if (!index_fresh(layer)) consider_index(L, 1, layer, estimate_saving(layer, area), &h);
    Plan p;
    const Columns& col = layer->s.col;
    uint32_t slot;
    float t;
    bool hit, scanned = true;
    if (fresh_plan(layer, area(layer->grid), p)) {
        hit = grid_cast_first(layer->grid, layer->s, *kernels(L), s, f, &slot, &t, &scanned);
    } else {
        uint32_t k = kernels(L)->cast_segment(points_of(layer->s), s, f, col.hits);
        hit = first_segment_hit(col, s, col.hits, k, &slot, &t);
    }
    count_query(layer, !scanned);
    if (!hit) {
        lua_pushnil(L);
        held_end(&h);
        return 1;
    }
    lua_pushinteger(L, static_cast<lua_Integer>(col.id[slot]));
    lua_pushnumber(L, t);
    held_end(&h);
    return 2;
}

const luaL_Reg methods[] = {
    {"cast_segment", l_cast_segment},
    {"cast_segment_first", l_cast_segment_first},
    {nullptr, nullptr},
};

}  // namespace

void open_segment(lua_State* L, const Tables& t) { add_functions(L, t, t.methods, methods); }

}  // namespace lua
}  // namespace soageo
