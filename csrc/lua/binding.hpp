// Shared by the binding's files: the export macro, the per-state context, the layer userdata,
// and how a query runs (argument checks: check.hpp).
//
// Error discipline (Lua is built as C: lua_error longjmps over C++ frames): every function
// checks all its arguments and allocates all Lua memory it needs before it changes a layer,
// and no object with a non-trivial destructor is ever alive in a binding function. The core
// is noexcept and never throws. So an error, including "not enough memory", leaves every
// layer exactly as it was. Finalizers: hold.hpp.
#pragma once

#include <lua.hpp>

#include <cstdint>
#include <initializer_list>

#include "../core/grid.hpp"
#include "../core/kernels.hpp"
#include "../core/rebuild_policy.hpp"
#include "../core/shape_run.hpp"
#include "../core/shared.hpp"
#include "../core/store.hpp"
#include "check.hpp"
#include "hold.hpp"
#include "results.hpp"

#define SOAGEO_EXPORT extern "C" __attribute__((visibility("default")))

#if LUA_VERSION_NUM < 504
#error "soageo needs Lua 5.4 or 5.5 headers"
#endif

namespace soageo {
namespace lua {

constexpr const char* kLayerClass = "soageo.layer";
constexpr const char* kPastViewClass = "soageo.past_view";  // layer:past's views (history.cpp)

// Per Lua state (one per skynet service): which kernel table this state uses. Shared as
// upvalue 1 by every function the module registers, so there is no process-wide mutable state.
struct Context {
    const KernelTable* kernels;
    size_t unpaid;  // block bytes not yet paid for with collection steps (pace_collector, hold.hpp)
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
    Hold hold;        // busy while a call that reads it allocates (hold.hpp)
    uint32_t hint_slot;  // the slot each() returned last (move looks there first): checked before use
    IndexMode mode;
    bool closed;
    uint64_t past_tick;  // a committed tick's frame (history.cpp): its tick; a layer: 0
    // A view of a shared layer (share.cpp): the version it holds a reference to, released by
    // close_layer. Its columns, id map and index are the version's; scratch is its own.
    SharedVersion* shared;
};
constexpr int kColumnsValue = 1;
constexpr int kMapValue = 2;
constexpr int kSweepValue = 3;  // sort-and-sweep scratch, made on first use (pairs.cpp)
constexpr int kPairsValue = 4;  // pair buffer, grown on demand (pairs.cpp)
constexpr int kIndexValue = 5;  // the spatial index's block, made when first worth it (index.cpp)
constexpr int kBandsValue = 6;  // band-sweep scratch of layer:pairs, made when bands pay (pairs.cpp)
constexpr int kMovesValue = 7;  // move_many's scratch, made on first use (layer.cpp)
constexpr int kEachValue = 8;   // the step function each() handed out last (layer.cpp)
constexpr int kHistoryValue = 9;  // the committed ticks, made by layer:history (history.cpp)
constexpr int kLayerValues = 9;

// A layer's tag is its own address mixed with a constant: a block of another type would have
// to hold, at its start, its own address so mixed to pass for a layer.
inline uintptr_t layer_tag(const void* p) { return reinterpret_cast<uintptr_t>(p) ^ uintptr_t(0x5a0b9e0d1c2b3a49ull); }
// A new, empty layer userdata with the layer metatable, on the top of the stack.
Layer* new_layer(lua_State* L);

Layer* check_layer(lua_State* L, int idx);
// check_layer for the methods that change a layer: a shared view (soageo.attach) carries the
// layer's tag, so that every query takes it as one, and raises here as read-only, whichever
// methods table the call came through.
Layer* check_writable_layer(lua_State* L, int idx);
// close() of the layer at `idx` (Held's CloseAt).
void close_layer(lua_State* L, int idx);
// close(), __close and __gc of a layer (or a shared view: metatable `cls`) at 1. On one a call
// holds (only a finalizer run by that call can get here), it is done when the call ends.
int close_held_layer(lua_State* L, const char* cls);
// Opens `h` holding the layer at `idx`.
inline void hold_layer(Held* h, lua_State* L, int idx, Layer* layer) {
    held_open(h, L);
    held_add(h, idx, &layer->hold, close_layer);
}
// Makes room for `need` entities, growing by doubling; raises on out-of-memory or past
// kMaxEntities without changing the layer. The layer must be at stack index `idx`, held by
// `h` (or, a new layer no finalizer can reach, by nothing).
void reserve(lua_State* L, int idx, Layer* layer, uint64_t need, Held* h);

// Writes the ids of `slots[0..k)` (in the columns' or the index's hit buffer of the layer)
// into the table at `out` (or a new one when out is 0, made in a window of `h`), clears what
// followed and leaves the table on top of the stack.
void push_ids(lua_State* L, Held* h, int out, const Layer* layer, const uint32_t* slots, uint32_t k);

// The spatial index (index.cpp). A query first estimates what the index would save over the
// scan (`estimate_saving`), lets `consider_index` bring the index up to date when the
// accumulated savings since the last change pay for a rebuild (ski rental: a layer queried
// once after every entity moved keeps the scan), then asks `fresh_plan` for the runs to
// visit, null meaning "scan". consider_index may raise (out of memory) with the layer and its
// old index unchanged, so it runs before anything is written; it allocates in a window of `h`.
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
void consider_index(lua_State* L, int idx, Layer* layer, double saved, Held* h);
const Grid* fresh_plan(const Layer* layer, const Area& a, Plan& p);
inline void count_query(Layer* layer, bool indexed) { ++(indexed ? layer->counts.indexed : layer->counts.scanned); }
// The first two for one shape; `touch`: entities count by their disk.
template <class Shape>
void consider_shape(lua_State* L, int idx, Layer* layer, const Shape& shape, bool touch, Held* h) {
    auto area = [&](const Grid& g) { return area_of(shape, touch ? double(g.reach) : 0.0); };
    if (!index_fresh(layer)) consider_index(L, idx, layer, estimate_saving(layer, area), h);
}

inline const KernelTable* kernels(lua_State* L) { return context(L)->kernels; }

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
    Held h;
    hold_layer(&h, L, 1, layer);
    consider_shape(L, 1, layer, shape, touches(which), &h);
    const uint32_t* slots;
    uint32_t k = run_query(kernels(L), layer, which, shape, f, &slots);
    count_query(layer, slots != layer->s.col.hits);
    push_ids(L, &h, out, layer, slots, k);
    lua_pushinteger(L, k);
    held_end(&h);
    return 2;
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
// One step of layer:each() over the layer at 1 (control value at 2), begun when the layer's
// `members` count was `members`.
int layer_step(lua_State* L, lua_Integer members);
void open_snapshot(lua_State* L, const Tables& t);
void open_shapes(lua_State* L, const Tables& t);
void open_polygon(lua_State* L, const Tables& t);
void open_segment(lua_State* L, const Tables& t);
void open_batch(lua_State* L, const Tables& t);
void open_pairs(lua_State* L, const Tables& t);
void open_aoi(lua_State* L, const Tables& t);
void open_contacts(lua_State* L, const Tables& t);
void open_index(lua_State* L, const Tables& t);
void open_walls(lua_State* L, const Tables& t);
void open_tiles(lua_State* L, const Tables& t);
// A class of its own (walls, tiles): metatable `name` with the method lists as __index and the
// metamethod lists in it, each list added in order (a later one's names override).
void open_class(lua_State* L, const Tables& t, const char* name, std::initializer_list<const luaL_Reg*> methods,
                std::initializer_list<const luaL_Reg*> metamethods, const luaL_Reg* module_functions);
// After every other open_*: past views answer the queries the layer's methods table holds then.
void open_history(lua_State* L, const Tables& t);
// For a binding that takes a layer at `idx` besides its self: a past view there (layer:past)
// is replaced by the tick's frame, checked and made ready for id lookups when `map`; true if
// it was one. It may allocate (a finalizer may run). A frame's columns stay as they are while
// its tick is kept, so a call that allocates after it either holds the frame (hold_layer: no
// commit takes its blocks) or, once done allocating, checks a copy of the view again
// (check_past_view, the error naming argument `arg`) before it reads the frame.
bool frame_of_view(lua_State* L, int idx, bool map);
void check_past_view(lua_State* L, int idx, int arg);
// Whether the past views at i and j show one layer at the same tick and alpha: the same
// layer, whichever frames answer for them.
bool same_past_view(lua_State* L, int i, int j);
// Last: soageo.share, attach, version, unshare, shared and the shared layer view class.
void open_share(lua_State* L, const Tables& t);

// A view class's methods from the layer's (view_methods.cpp): into the table at `methods`, each
// reading method of the layer's methods table as `wrap` makes it (wrap replaces the function on
// top of the stack by what the view calls; `name` is the method's), and every writer (the
// layer's, then `more_writers`, null-terminated) as `read_only`. Past views and shared views
// are built by it, so their answers come from the layer's own binding functions.
using ViewWrap = void (*)(lua_State* L, const Tables& t, const char* name);
void view_methods(lua_State* L, const Tables& t, int methods, ViewWrap wrap, lua_CFunction read_only,
                  const char* const* more_writers);

// Raises "<noun> is read-only: shared as '<name>'" for argument `arg`.
[[noreturn]] void shared_read_only(lua_State* L, int arg, const char* noun, const SharedVersion* v);
// What share.cpp needs of walls and tiles (walls.cpp, tiles.cpp). *_at: the object at `idx` when
// it is one (raising when it is closed), null otherwise; *view set when it is a shared view.
const Walls* walls_at(lua_State* L, int idx, bool* view);
const TileMap* tiles_at(lua_State* L, int idx, bool* view);
// Pushes a view of `kind` (walls or tiles) closed, then gives it `v` (and its reference).
void push_walls_view(lua_State* L);
void give_walls_view(lua_State* L, int idx, SharedVersion* v);
void push_tiles_view(lua_State* L);
void give_tiles_view(lua_State* L, int idx, SharedVersion* v);

}  // namespace lua
}  // namespace soageo
