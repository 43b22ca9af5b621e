// How a batch of shapes runs against a layer, once every shape has been checked: the one path of
// layer:in_sector_batch ... (rows of numbers, query_batch.cpp) and of the polygon batches (a
// table of coordinate tables, query_polygon.cpp).
#pragma once

#include "binding.hpp"

namespace soageo {
namespace lua {

// The layer is at 1 and the shapes' table at 2. `shape_at(i)` gives shape i (1-based) of
// `count`; it reads the table again, so it may raise when a finalizer changed it. Brings the
// index up to date (or not) once for the whole batch, before any output; then writes
// {shape1, id1, shape2, id2, ...} into `out` (or a new table) and pushes out, n. A batch that
// a finalizer's query interrupted (it refilled the hit buffers: fill_hits) runs again.
template <class Shape, class ShapeAt>
int run_batch(lua_State* L, Layer* layer, Kernel<Shape> KernelTable::*which, lua_Integer count, ShapeAt shape_at,
              int out, Filter f) {
    const KernelTable* k = kernels(L);
    for (const int top = lua_gettop(L);; lua_settop(L, top)) {
        layer = check_layer(L, 1);  // again: a finalizer may have closed it
        if (!index_fresh(layer) && layer->mode != IndexMode::scan) {
            const bool touch = touches(which);
            double saved = 0;
            for (lua_Integer i = 1; i <= count; ++i) {
                const Shape& sh = shape_at(i);
                double s = estimate_saving(layer, [&](const Grid& g) { return area_of(sh, touch ? double(g.reach) : 0.0); });
                saved += s > 0 ? s : 0;
            }
            consider_index(L, 1, layer, saved);
        }
        Results r;
        results_open(L, &r);
        results_pin(&r, 1, kColumnsValue);
        results_pin(&r, 1, kIndexValue);  // the index's block may hold the hits
        results_table(&r, out, 0);
        // A copy: a finalizer run while the table grows may grow the layer or rebuild its index.
        const Layer snap = *layer;
        uint64_t indexed = 0;  // shapes answered through the index (counted once the batch is done)
        lua_Integer n = 0;
        bool interrupted = false;
        for (lua_Integer i = 1; i <= count && !interrupted; ++i) {
            const Shape& shape = shape_at(i);
            fill_hits(layer);
            const uint32_t fills = layer->fills;
            const uint32_t* slots;
            uint32_t hits = run_query(k, &snap, which, shape, f, &slots);
            indexed += slots != snap.s.col.hits;
            const HitIds hit(snap.s.col.id, slots, hits, snap.s.n);
            for (uint32_t h = 0; h < hits; ++h) {
                results_int(&r, i);
                results_int(&r, hit[h]);
            }
            n += hits;
            interrupted = layer->fills != fills;
        }
        if (interrupted) continue;
        layer->counts.indexed += indexed;
        layer->counts.scanned += uint64_t(count) - indexed;
        results_close(&r);
        lua_pushinteger(L, n);
        return 2;
    }
}

}  // namespace lua
}  // namespace soageo
