// Shared by the binding's files: the export macro, the per-state context, the layer userdata,
// and how a query runs (argument checks: check.hpp).
//
// Error discipline (Lua is built as C: lua_error longjmps over C++ frames): every function
// checks all its arguments and allocates all Lua memory it needs before it touches a layer,
// and no object with a non-trivial destructor is ever alive in a binding function. The core
// is noexcept and never throws. So an error, including "not enough memory", leaves every
// layer exactly as it was.
#pragma once

#include <lua.hpp>

#include <cstdint>

#include "../core/grid.hpp"
#include "../core/kernels.hpp"
#include "../core/rebuild_policy.hpp"
#include "../core/store.hpp"
#include "check.hpp"
#include "results.hpp"

#define SOAGEO_EXPORT extern "C" __attribute__((visibility("default")))

#if LUA_VERSION_NUM < 504
#error "soageo needs Lua 5.4 or 5.5 headers"
#endif

namespace soageo {
namespace lua {

constexpr const char* kLayerClass = "soageo.layer";

// Per Lua state (one per skynet service): which kernel table this state uses. Shared as
// upvalue 1 by every function the module registers, so there is no process-wide mutable state.
struct Context {
    const KernelTable* kernels;
};

inline Context* context(lua_State* L) {
    return static_cast<Context*>(lua_touserdata(L, lua_upvalueindex(1)));
}

// The layer userdata. Its memory lives in user values (1: columns, 2: id map), so skynet's
// allocator accounts for every byte and the GC frees it.
enum class IndexMode : uint8_t { automatic, scan, index };

// How the layer's queries ran (layer:stats), so that specs can tell the index from a scan that
// gives the same answer: each query once, when its call returns it (count_query).
struct IndexCounts {
    uint64_t indexed;    // queries (batch shapes, casts, nearest) answered through the index
    uint64_t scanned;    // answered by the scan
    uint64_t builds;     // index builds (the cells made anew)
    uint64_t refreshes;  // refreshes after changes that kept the cells (loose)
};

struct Layer {
    uintptr_t tag;    // layer_tag(this): check_layer's fast test (see there)
    Store s;
    Grid grid;        // the spatial index (index.cpp), block in kIndexValue
    mutable RebuildPolicy policy;  // when the index is rebuilt (index.cpp; fresh_plan adds to it)
    IndexCounts counts;            // count_query and rebuild add to them
    uint32_t sweeps;  // bumped by every sweep and by close: watched by pairs() (results.hpp)
    uint32_t fills;   // bumped by every call that fills the hit buffers or rewrites ids (fill_hits)
    uint32_t hint_slot;  // the slot each() returned last (move looks there first): checked before use
    IndexMode mode;
    bool closed;
    uint64_t past_tick;  // a committed tick's frame (history.cpp): its tick; a layer: 0
};
constexpr int kColumnsValue = 1;
constexpr int kMapValue = 2;
constexpr int kSweepValue = 3;  // sort-and-sweep scratch, made on first use (pairs.cpp)
constexpr int kPairsValue = 4;  // pair buffer, grown on demand (pairs.cpp)
constexpr int kIndexValue = 5;  // the spatial index's block, made when first worth it (index.cpp)
constexpr int kBandsValue = 6;  // band-sweep scratch of layer:pairs, made when bands pay (pairs.cpp)
constexpr int kMovesValue = 7;  // move_many's scratch, made on first use (layer.cpp)
constexpr int kHistoryValue = 8;  // the committed ticks, made by layer:history (history.cpp)
constexpr int kLayerValues = 8;

// A layer's tag is its own address mixed with a constant: a block of another type would have
// to hold, at its start, its own address so mixed to pass for a layer.
inline uintptr_t layer_tag(const void* p) { return reinterpret_cast<uintptr_t>(p) ^ uintptr_t(0x5a0b9e0d1c2b3a49ull); }
// A new, empty layer userdata with the layer metatable, on the top of the stack.
Layer* new_layer(lua_State* L);

Layer* check_layer(lua_State* L, int idx);
// Makes room for `need` entities, growing by doubling; raises on out-of-memory or past
// kMaxEntities without changing the layer. The layer must be at stack index `idx`.
void reserve(lua_State* L, int idx, Layer* layer, uint64_t need);

// The hit buffers (col.hits and col.order of the columns, the index's hits) are refilled by
// every query, and results are written from them after the result table is made: a finalizer
// run by making it may query the same layer and refill them, or remove entities (a removal
// moves the last entity's id into the freed slot, a clear empties them all, so a slot hit
// would name another entity). So every call that fills them or rewrites ids in place takes a
// new `fills`, every writer watches it, and a write that saw it change is done again.
inline void fill_hits(Layer* layer) { ++layer->fills; }

// Writes the ids of `slots[0..k)` (in the columns' or the index's hit buffer of the layer at
// `layer_idx`) into the table at `out` (or a new one when out is 0), clears what followed and
// leaves the table on top of the stack; or, when a finalizer filled the hit buffers meanwhile
// (only possible while making a new table), leaves the stack as it was and returns false:
// query again. A few ids into a given table take a direct path that nothing can interrupt.
bool push_ids(lua_State* L, int layer_idx, int out, const Layer* layer, const uint32_t* slots, uint32_t k);

// The spatial index (index.cpp). A query first estimates what the index would save over the
// scan (`estimate_saving`), lets `consider_index` bring the index up to date when the
// accumulated savings since the last change pay for a rebuild (ski rental: a layer queried
// once after every entity moved keeps the scan), then asks `fresh_plan` for the runs to
// visit, null meaning "scan". consider_index may raise (out of memory) with the layer and its
// old index unchanged, so it runs before anything is written.
bool index_fresh(const Layer* layer);
template <class AreaFn>
double estimate_saving(Layer* layer, AreaFn area) {
    if (index_fresh(layer) || layer->mode == IndexMode::scan) return 0;
    const Grid& g = layer->grid;
    double scan = layer->s.n;
    if (!g.built || g.cap != layer->s.col.cap) return scan;  // unknown: assume a small query
    Plan p;
    grid_plan(g, area(g), p);
    return p.ok ? scan - plan_cost(p) : 0;
}
void consider_index(lua_State* L, int idx, Layer* layer, double saved);
const Grid* fresh_plan(const Layer* layer, const Area& a, Plan& p);
inline void count_query(Layer* layer, bool indexed) { ++(indexed ? layer->counts.indexed : layer->counts.scanned); }
// The first two for one shape; `touch`: entities count by their disk.
template <class Shape>
void consider_shape(lua_State* L, int idx, Layer* layer, const Shape& shape, bool touch) {
    auto area = [&](const Grid& g) { return area_of(shape, touch ? double(g.reach) : 0.0); };
    if (!index_fresh(layer)) consider_index(L, idx, layer, estimate_saving(layer, area));
}

template <class Shape>
using Kernel = uint32_t (*)(const Points&, const Shape&, Filter, uint32_t* out) noexcept;

inline const KernelTable* kernels(lua_State* L) { return context(L)->kernels; }

// Runs kernel `which` of table k. A capsule whose ends coincide runs as its end disk.
template <class Shape>
uint32_t run_kernel(const KernelTable* k, Kernel<Shape> KernelTable::*which, const Points& p, const Shape& s, Filter f,
                    uint32_t* out) {
    return (k->*which)(p, s, f, out);
}
inline uint32_t run_kernel(const KernelTable* k, Kernel<Capsule> KernelTable::*which, const Points& p, const Capsule& c,
                           Filter f, uint32_t* out) {
    if (c.len2 == 0.0f) return k->touch_circle(p, end_disk(c), f, out);
    return (k->*which)(p, c, f, out);
}

// Whether kernel `which` tests entity disks (the index then widens its search by the largest
// radius in its cells). A shape without an overload here is searched as a disk test: always
// correct, a little wider for centre tests.
template <class Shape>
bool touches(Kernel<Shape> KernelTable::*) { return true; }
inline bool touches(Kernel<Circle> KernelTable::*w) { return w == &KernelTable::touch_circle; }
inline bool touches(Kernel<Box> KernelTable::*w) { return w == &KernelTable::touch_box; }
inline bool touches(Kernel<Sector> KernelTable::*w) { return w == &KernelTable::touch_sector; }
inline bool touches(Kernel<Triangle> KernelTable::*w) { return w == &KernelTable::touch_triangle; }
inline bool touches(Kernel<Rect> KernelTable::*w) { return w == &KernelTable::touch_rect; }
inline bool touches(Kernel<Ring> KernelTable::*w) { return w == &KernelTable::touch_ring; }
inline bool touches(Kernel<Polygon> KernelTable::*w) { return w == &KernelTable::touch_polygon; }

// The slots `shape` hits, ascending (the result order of every path): through the layer's
// index when it is fresh and cheaper (`index` is set to it), else by the scan (index null).
// The index must have been considered first (plan_shape or consider_index).
template <class Shape>
uint32_t run_query(const KernelTable* k, const Layer* layer, Kernel<Shape> KernelTable::*which, const Shape& shape,
                   Filter f, const uint32_t** slots) {
    Plan p;
    if (const Grid* g = fresh_plan(layer, area_of(shape, touches(which) ? double(layer->grid.reach) : 0.0), p)) {
        *slots = g->hits;
        return grid_collect(
            *g, p, [&](const Points& pts, uint32_t* o) { return run_kernel(k, which, pts, shape, f, o); }, layer->s.col.id);
    }
    *slots = layer->s.col.hits;
    return run_kernel(k, which, points_of(layer->s), shape, f, layer->s.col.hits);
}

// The one way a single-shape query runs, once the layer (at 1) and the shape are checked: reads
// `out` at out_arg and the mask after it, runs the kernel (over the index's runs or the whole
// layer), pushes `out, n`.
template <class Shape>
int query(lua_State* L, Layer* layer, Kernel<Shape> KernelTable::*which, const Shape& shape, int out_arg) {
    int out = opt_out(L, out_arg);
    Filter f = opt_filter(L, out_arg + 1);
    // The caller checked the layer and nothing has allocated since; a retry checks it again:
    // the finalizer that interrupted may have closed it.
    for (const int top = lua_gettop(L);; lua_settop(L, top), layer = check_layer(L, 1)) {
        consider_shape(L, 1, layer, shape, touches(which));
        fill_hits(layer);
        const uint32_t* slots;
        uint32_t k = run_query(kernels(L), layer, which, shape, f, &slots);
        const bool indexed = slots != layer->s.col.hits;
        if (push_ids(L, 1, out, layer, slots, k)) {
            count_query(layer, indexed);
            lua_pushinteger(L, k);
            return 2;
        }
    }
}

// Where each file registers its functions (absolute stack indices while luaopen runs).
struct Tables {
    int module;     // soageo.core
    int metatable;  // the layer class: metamethods
    int methods;    // its __index
    int context;  // the Context userdata, given to every function as upvalue 1
};
void add_functions(lua_State* L, const Tables& t, int table, const luaL_Reg* fns);

void open_layer(lua_State* L, const Tables& t);
void open_snapshot(lua_State* L, const Tables& t);
void open_shapes(lua_State* L, const Tables& t);
void open_polygon(lua_State* L, const Tables& t);
void open_segment(lua_State* L, const Tables& t);
void open_batch(lua_State* L, const Tables& t);
void open_pairs(lua_State* L, const Tables& t);
void open_aoi(lua_State* L, const Tables& t);
void open_contacts(lua_State* L, const Tables& t);
void open_index(lua_State* L, const Tables& t);
// After every other open_*: past views answer the queries the layer's methods table holds then.
void open_history(lua_State* L, const Tables& t);

}  // namespace lua
}  // namespace soageo
