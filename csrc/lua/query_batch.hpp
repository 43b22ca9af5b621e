// How a batch of shapes runs against a layer, once every shape has been checked: the one path of
// layer:in_sector_batch ... (rows of numbers, query_batch.cpp) and of the polygon batches (a
// table of coordinate tables, query_polygon.cpp).
#pragma once

#include "binding.hpp"

namespace soageo {
namespace lua {

// The layer is at 1 and the shapes' table at 2. `shape_at(i)` gives shape i (1-based) of
// `count`; it reads the table again, so it may raise when a finalizer run by an allocation
// (the index, the result table) changed it. Brings the index up to date (or not) once for the
// whole batch, before any output; then writes {shape1, id1, shape2, id2, ...} into `out` (or a
// new table) and pushes out, n.
template <class Shape, class ShapeAt>
int run_batch(lua_State* L, Layer* layer, Kernel<Shape> KernelTable::*which, lua_Integer count, ShapeAt shape_at,
              int out, Filter f) {
    const KernelTable* k = kernels(L);
    Held h;
    hold_layer(&h, L, 1, layer);
    if (!index_fresh(layer) && layer->mode != IndexMode::scan) {
        const bool touch = touches(which);
        double saved = 0;
        for (lua_Integer i = 1; i <= count; ++i) {
            const Shape& sh = shape_at(i);
            double s = estimate_saving(layer, [&](const Grid& g) { return area_of(sh, touch ? double(g.reach) : 0.0); });
            saved += s > 0 ? s : 0;
        }
        consider_index(L, 1, layer, saved, &h);
    }
    out = held_out(&h, out);
    Results r;
    results_open(L, &r);
    results_table(&r, out);
    uint64_t indexed = 0;  // shapes answered through the index
    lua_Integer n = 0;
    for (lua_Integer i = 1; i <= count; ++i) {
        const Shape& shape = shape_at(i);
        const uint32_t* slots;
        uint32_t hits = run_query(k, layer, which, shape, f, &slots);
        indexed += slots != layer->s.col.hits;
        const HitIds hit(layer->s.col.id, slots, hits, layer->s.n);
        for (uint32_t j = 0; j < hits; ++j) {
            results_int(&r, i);
            results_int(&r, hit[j]);
        }
        n += hits;
    }
    layer->counts.indexed += indexed;
    layer->counts.scanned += uint64_t(count) - indexed;
    results_close(&r);
    lua_pushinteger(L, n);
    held_end(&h);
    return 2;
}

}  // namespace lua
}  // namespace soageo
