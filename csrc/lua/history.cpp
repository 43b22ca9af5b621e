// The layer's past: layer:history, layer:commit, layer:past and the past view class.
//
// A committed tick is a frame: a Layer struct of its own (tagged as a layer, so every query
// binding takes it as one) whose columns are the tick's copies, never written while the tick
// is kept (a commit may take them over once it is dropped). Its hit scratch is made on the
// first call of any view of it, its id map on the first call that looks ids up (commit copies
// only the columns), its spatial index when the queries pay for it, as a layer's. A view holds its layer and frame(s) and, on every call, checks that its tick is
// still kept, puts the frame in place of itself at argument 1 and calls the layer's own
// binding function: no query code exists twice. A binding that takes a layer as another
// argument (walls:visible, pairs_between) puts the frame in the view's place the same way
// (frame_of_view), and checks the view again once its allocations are done (check_past_view):
// a finalizer they run may have dropped the tick. A frame has no metatable and never reaches Lua
// code (each() on a view iterates through the view).
#include <cmath>
#include <cstring>

#include "binding.hpp"
#include "../core/history.hpp"

namespace soageo {
namespace lua {

namespace {

constexpr const char* kViewClass = kPastViewClass;

// A frame's user values: the layer's (kColumnsValue holds its positions block, kMapValue its
// id map, the index and pairs scratch go where a layer keeps them), then these.
constexpr int kShapesValue = kLayerValues + 1;   // radii, masks, ids (shared by ticks of the same shape)
constexpr int kScratchValue = kLayerValues + 2;  // hits and sort keys, made on the first call
// The last interpolated frame made from this one and its alpha: views of the same tick and
// alpha (the shots of one client in one tick) share it.
constexpr int kInterpValue = kLayerValues + 3;
constexpr int kInterpAlphaValue = kLayerValues + 4;
constexpr int kFrameValues = kLayerValues + 4;

// User value kHistoryValue of a layer, with kMaxHistory user values of its own: the frame of
// tick t at t % kMaxHistory + 1. Ticks count on from 1 and are never reused by a layer (history(0)
// keeps the count), so a tick inside [oldest, newest] names one frame for ever.
struct History {
    uint64_t newest;  // the last committed tick (0: none yet)
    uint64_t oldest;  // newest + 1 when none is kept
    uint32_t ticks;   // how many it keeps (0: off)
};

// A past view's user values: 1 the layer, 2 the frame of `tick`, 3 the frame of tick + 1 (alpha
// > 0), 4 the frame at alpha (made on first use).
struct View {
    uint64_t tick;
    double alpha;
};
constexpr int kViewValues = 4;

inline int ring_value(uint64_t tick) { return static_cast<int>(tick % kMaxHistory) + 1; }

// The history of the layer at `idx` on top of the stack (nil when history was never on).
History* push_history(lua_State* L, int idx) {
    lua_getiuservalue(L, idx, kHistoryValue);
    return static_cast<History*>(lua_touserdata(L, -1));
}

// Drops the oldest frames until `keep` are left.
void trim(lua_State* L, int hidx, History* h, uint64_t keep) {
    while (h->newest + 1 - h->oldest > keep) {
        lua_pushnil(L);
        lua_setiuservalue(L, hidx, ring_value(h->oldest));
        ++h->oldest;
    }
}

// (self [, ticks]) -> ticks, oldest, newest: sets how many ticks the layer keeps (0: off, drops
// them), and says what it holds (oldest and newest nil when no tick is kept).
int l_history(lua_State* L) {
    check_writable_layer(L, 1);
    const bool set = !lua_isnoneornil(L, 2);
    lua_Integer ticks = 0;
    if (set) {
        int isnum = 0;
        ticks = lua_tointegerx(L, 2, &isnum);
        if (!isnum || ticks < 0 || ticks > lua_Integer(kMaxHistory)) luaL_argerror(L, 2, "ticks must be an integer in [0, 64]");
    }
    lua_settop(L, 2);
    History* h = push_history(L, 1);
    if (!h && set && ticks > 0) {
        lua_pop(L, 1);
        h = static_cast<History*>(lua_newuserdatauv(L, sizeof(History), kMaxHistory));
        h->newest = 0;
        h->oldest = 1;
        h->ticks = 0;
        // A finalizer run by the allocation may have closed the layer or made its history.
        check_writable_layer(L, 1);
        lua_getiuservalue(L, 1, kHistoryValue);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_pushvalue(L, -1);
            lua_setiuservalue(L, 1, kHistoryValue);
        } else {
            lua_remove(L, -2);
            h = static_cast<History*>(lua_touserdata(L, -1));
        }
    }
    if (h && set) {
        h->ticks = static_cast<uint32_t>(ticks);
        trim(L, 3, h, h->ticks);
    }
    lua_pushinteger(L, h ? h->ticks : 0);
    const bool any = h && h->oldest <= h->newest;
    if (any) {
        lua_pushinteger(L, static_cast<lua_Integer>(h->oldest));
        lua_pushinteger(L, static_cast<lua_Integer>(h->newest));
    } else {
        lua_pushnil(L);
        lua_pushnil(L);
    }
    return 3;
}

// A frame of tick `tick`, made in one of h's windows (h may hold nothing).
Layer* new_frame(Held* h, uint64_t tick) {
    auto* f = static_cast<Layer*>(held_userdata(h, sizeof(Layer), kFrameValues));
    std::memset(f, 0, sizeof *f);
    f->tag = layer_tag(f);  // no metatable: only check_layer's tag test ever sees a frame
    f->past_tick = tick;
    return f;
}

// (self) -> tick: records the layer as it is now under the next tick. Every block is
// allocated before anything is written, so an error (out of memory) leaves the history as it
// was. With the history full, the blocks of the tick it drops are taken over when no kept tick
// shares them: a server committing every tick then allocates nothing (no collector debt, no
// fresh pages), and its memory stays flat.
int l_commit(lua_State* L) {
    lua_settop(L, 1);
    constexpr int kHist = 2, kPrev = 3, kOld = 4, kFrame = 5, kPos = 6, kShapes = 7;
    {
        Layer* layer = check_writable_layer(L, 1);
        // The layer is held while the blocks are made: no finalizer can commit, change or close
        // it meanwhile, so what was read here is what is written below.
        Held held;
        hold_layer(&held, L, 1, layer);
        History* h = push_history(L, 1);  // kHist
        if (!h || h->ticks == 0) return luaL_argerror(L, 1, "history is off");
        const bool any = h->oldest <= h->newest;
        const bool full = any && h->newest + 1 - h->oldest >= h->ticks;
        if (any)
            lua_getiuservalue(L, kHist, ring_value(h->newest));
        else
            lua_pushnil(L);
        if (full)
            lua_getiuservalue(L, kHist, ring_value(h->oldest));
        else
            lua_pushnil(L);
        const Layer* prev = static_cast<const Layer*>(lua_touserdata(L, kPrev));
        Layer* old = static_cast<Layer*>(lua_touserdata(L, kOld));
        const Layer* next = nullptr;  // the tick after the one dropped, if kept
        if (full && h->oldest < h->newest) {
            lua_getiuservalue(L, kHist, ring_value(h->oldest + 1));
            next = static_cast<const Layer*>(lua_touserdata(L, -1));
            lua_pop(L, 1);  // kept alive by the ring
        }
        const uint64_t newest = h->newest, oldest = h->oldest;
        const uint32_t ticks = h->ticks, n = layer->s.n, cap = frame_cap(n);
        const uint8_t seen = layer->s.since_commit;
        const bool shapes = !prev || (seen & kCommitShape);
        const bool moved = shapes || (seen & kCommitMoved);
        // A dropped tick that a call is reading (a view's query, a finalizer of which runs this
        // commit) keeps its blocks: new ones are made.
        const bool fits = old && old->s.col.cap == cap && !old->hold.busy;
        const bool take_pos = moved && fits && !(next && next->s.col.x == old->s.col.x);
        // Interpolated frames read the ids of the tick they were made from: a tick that had
        // one keeps its shapes block (its positions they copied).
        bool interpolated = false;
        if (old) {
            interpolated = lua_getiuservalue(L, kOld, kInterpValue) != LUA_TNIL;
            lua_pop(L, 1);
        }
        const bool take_shapes = shapes && fits && !interpolated && !(next && next->s.col.id == old->s.col.id);
        Layer* f = new_frame(&held, newest + 1);  // kFrame
        void* pos = moved && !take_pos ? held_userdata(&held, frame_positions_bytes(cap)) : nullptr;
        if (!pos) lua_pushnil(L);  // kPos
        void* shp = shapes && !take_shapes ? held_userdata(&held, frame_shapes_bytes(cap)) : nullptr;
        if (!shp) lua_pushnil(L);  // kShapes
        (void)ticks;
        (void)oldest;
        // The dropped tick's views raise before they read it.
        if (take_pos || take_shapes) old->closed = true;
        FramePositions p;
        if (take_pos) {
            p = FramePositions{old->s.col.x, old->s.col.y};
            lua_getiuservalue(L, kOld, kColumnsValue);
            lua_replace(L, kPos);
        } else if (moved) {
            p = frame_positions_carve(pos, cap);
        } else {
            p = FramePositions{prev->s.col.x, prev->s.col.y};
            lua_getiuservalue(L, kPrev, kColumnsValue);
            lua_replace(L, kPos);
        }
        if (moved) frame_copy_positions(p, layer->s, cap);
        FrameShapes sh;
        if (take_shapes) {
            sh = FrameShapes{old->s.col.r, old->s.col.mask, old->s.col.id};
            lua_getiuservalue(L, kOld, kShapesValue);
            lua_replace(L, kShapes);
        } else if (shapes) {
            sh = frame_shapes_carve(shp, cap);
        } else {
            sh = FrameShapes{prev->s.col.r, prev->s.col.mask, prev->s.col.id};
            lua_getiuservalue(L, kPrev, kShapesValue);
            lua_replace(L, kShapes);
        }
        if (shapes) frame_copy_shapes(sh, layer->s, cap);
        f->s.col = Columns{p.x, p.y, sh.r, sh.mask, sh.id, nullptr, nullptr, cap};
        f->s.n = n;
        f->s.stale = kStaleAll;
        f->mode = layer->mode;
        lua_setiuservalue(L, kFrame, kShapesValue);
        lua_setiuservalue(L, kFrame, kColumnsValue);
        // Room first: with 64 kept, the oldest frame holds the ring position of the new one.
        trim(L, kHist, h, h->ticks - 1);
        const uint64_t tick = newest + 1;
        h->newest = tick;
        lua_setiuservalue(L, kHist, ring_value(tick));
        layer->s.since_commit = 0;
        held_end(&held);
        lua_pushinteger(L, static_cast<lua_Integer>(tick));
        return 1;
    }
}

// Gives the frame at `idx` (absolute) what a call needs and it lacks, each made once: hit
// scratch (queries) and an id map (get, has, each, dump, and matching ids for interpolation).
// May raise (out of memory) with the frame unchanged.
Layer* frame_ready(lua_State* L, int idx, bool scratch, bool map) {
    auto* f = static_cast<Layer*>(lua_touserdata(L, idx));
    scratch = scratch && !f->s.col.hits;
    map = map && !f->s.map.buckets;
    if (!scratch && !map) return f;
    const int top = lua_gettop(L);
    const uint32_t cap = f->s.col.cap, map_cap = idmap_cap_for(cap);
    void* hits = scratch ? lua_newuserdatauv(L, frame_scratch_bytes(cap), 0) : nullptr;  // top + 1
    void* block = map ? lua_newuserdatauv(L, idmap_bytes(map_cap), 0) : nullptr;         // on top
    // A call that a finalizer ran meanwhile may have made either: the first made stays.
    if (block && !f->s.map.buckets) {
        IdMap m = idmap_init(block, map_cap);
        for (uint32_t i = 0; i < f->s.n; ++i) idmap_put(m, f->s.col.id[i], i);
        f->s.map = m;
        lua_setiuservalue(L, idx, kMapValue);
    }
    if (hits && !f->s.col.hits) {
        frame_scratch_carve(hits, cap, f->s.col);
        lua_pushvalue(L, top + 1);
        lua_setiuservalue(L, idx, kScratchValue);
    }
    lua_settop(L, top);
    return f;
}

View* check_view(lua_State* L, int idx) { return static_cast<View*>(luaL_checkudata(L, idx, kViewClass)); }

// Raises unless the view at stack index `at` can still be used: its layer open and its tick
// kept. The error names argument `arg` (the view's own, unless it is a copy).
void check_valid(lua_State* L, const View* v, int at, int arg) {
    lua_getiuservalue(L, at, 1);
    const auto* layer = static_cast<const Layer*>(lua_touserdata(L, -1));
    if (layer->closed) luaL_argerror(L, arg, "layer is closed");
    const History* h = push_history(L, -1);
    if (!h || v->tick < h->oldest || v->tick > h->newest)
        luaL_argerror(L, arg, lua_pushfstring(L, "tick %I has left the history", static_cast<lua_Integer>(v->tick)));
    lua_pop(L, 2);
}
void check_valid(lua_State* L, const View* v, int at) { check_valid(L, v, at, at); }

// Puts the frame on top in place of the view at `at`, checking the view once more: a
// finalizer run by an allocation of the call may have committed past its tick (and taken its
// blocks).
void finish(lua_State* L, const View* v, int at) {
    check_valid(L, v, at);
    lua_replace(L, at);
}

// Replaces the view at argument `at` (an absolute index) by the frame that answers for it,
// made ready for a call that needs the id map (`map`) or not.
void view_source(lua_State* L, int at, bool map) {
    const View* v = check_view(L, at);
    check_valid(L, v, at);
    const int top = lua_gettop(L);
    if (v->alpha == 0) {
        lua_getiuservalue(L, at, 2);
        frame_ready(L, top + 1, true, map);
        finish(L, v, at);
        return;
    }
    if (lua_getiuservalue(L, at, 4) != LUA_TNIL) {
        frame_ready(L, top + 1, true, map);
        finish(L, v, at);
        return;
    }
    lua_pop(L, 1);
    lua_getiuservalue(L, at, 2);
    const bool cached = lua_getiuservalue(L, top + 1, kInterpAlphaValue) == LUA_TNUMBER && lua_tonumber(L, -1) == v->alpha;
    lua_pop(L, 1);
    if (cached) {
        lua_getiuservalue(L, top + 1, kInterpValue);
        frame_ready(L, top + 2, true, map);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, at, 4);
        finish(L, v, at);
        lua_settop(L, top);
        return;
    }
    lua_getiuservalue(L, at, 3);
    const Layer* f0 = static_cast<const Layer*>(lua_touserdata(L, top + 1));
    const Layer* f1 = static_cast<const Layer*>(lua_touserdata(L, top + 2));
    // Ticks that share their shapes block have the same ids in the same slots: no lookup.
    const bool same_slots = f0->s.col.id == f1->s.col.id;
    if (!same_slots) frame_ready(L, top + 2, false, true);
    if (map) frame_ready(L, top + 1, false, true);  // made for `tick`, shared with its views
    const uint32_t cap = f0->s.col.cap;
    Held none;
    held_open(&none, L);
    Layer* f = new_frame(&none, v->tick);  // top + 3
    void* pos = lua_newuserdatauv(L, frame_positions_bytes(cap), 0);
    void* scratch = lua_newuserdatauv(L, frame_scratch_bytes(cap), 0);
    if (lua_getiuservalue(L, at, 4) != LUA_TNIL) {  // made by a call a finalizer ran meanwhile
        frame_ready(L, lua_gettop(L), true, map);
        finish(L, v, at);
        lua_settop(L, top);
        return;
    }
    lua_pop(L, 1);
    const FramePositions p = frame_positions_carve(pos, cap);
    f->s.col = f0->s.col;
    f->s.col.x = p.x;
    f->s.col.y = p.y;
    frame_scratch_carve(scratch, cap, f->s.col);
    f->s.map = f0->s.map;  // null until a call needs it (then made for this frame)
    f->s.n = f0->s.n;
    f->s.stale = kStaleAll;
    f->mode = f0->mode;
    frame_interpolate(f0->s.col.x, f0->s.col.y, f0->s.col.id, f0->s.n, f1->s.col.x, f1->s.col.y, f1->s.map,
                      same_slots, v->alpha, p.x, p.y);
    lua_setiuservalue(L, top + 3, kScratchValue);
    lua_setiuservalue(L, top + 3, kColumnsValue);
    lua_getiuservalue(L, top + 1, kShapesValue);
    lua_setiuservalue(L, top + 3, kShapesValue);
    lua_getiuservalue(L, top + 1, kMapValue);
    lua_setiuservalue(L, top + 3, kMapValue);
    lua_pushvalue(L, top + 3);
    lua_setiuservalue(L, at, 4);
    lua_pushvalue(L, top + 3);
    lua_setiuservalue(L, top + 1, kInterpValue);
    lua_pushnumber(L, v->alpha);
    lua_setiuservalue(L, top + 1, kInterpAlphaValue);
    finish(L, v, at);
    lua_settop(L, top);
}

// A layer method called on a view: upvalue 2 is the layer's binding function (its upvalue 1,
// the context, is this closure's too), upvalue 3 whether it needs the id map.
int forward(lua_State* L) {
    view_source(L, 1, lua_toboolean(L, lua_upvalueindex(3)));
    return lua_tocfunction(L, lua_upvalueindex(2))(L);
}

int read_only(lua_State* L) { return luaL_argerror(L, 1, "layer is read-only: a past tick"); }

// each()'s step over a view: a tick's frame never changes its ids (its members count stays 0).
int view_next(lua_State* L) {
    view_source(L, 1, true);
    return layer_step(L, 0);
}

// (self) -> next, self, nil: upvalue 2 is view_next.
int view_each(lua_State* L) {
    check_valid(L, check_view(L, 1), 1);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

// (self, tick [, alpha]) -> view
int l_past(lua_State* L) {
    check_writable_layer(L, 1);
    const lua_Integer tick = luaL_checkinteger(L, 2);
    double alpha = 0;
    if (!lua_isnoneornil(L, 3)) {
        alpha = luaL_checknumber(L, 3);  // a numeric string converts, as other numbers do
        luaL_argcheck(L, alpha >= 0 && alpha <= 1, 3, "alpha must be finite and in [0, 1]");  // NaN fails too
    }
    lua_settop(L, 3);
    {
        Layer* layer = check_writable_layer(L, 1);
        const History* h = push_history(L, 1);  // 4
        if (!h || h->ticks == 0) luaL_argerror(L, 1, "history is off");
        if (tick < 1 || uint64_t(tick) > h->newest)
            luaL_argerror(L, 2, lua_pushfstring(L, "tick %I is not committed yet", tick));
        if (uint64_t(tick) < h->oldest) luaL_argerror(L, 2, lua_pushfstring(L, "tick %I has left the history", tick));
        luaL_argcheck(L, alpha == 0 || uint64_t(tick) < h->newest, 3, "alpha must be 0 at the newest tick");
        // The layer is held while the view is made: no finalizer commits or changes its history.
        Held held;
        hold_layer(&held, L, 1, layer);
        auto* v = static_cast<View*>(held_userdata(&held, sizeof(View), kViewValues));  // 5
        v->tick = static_cast<uint64_t>(tick);
        v->alpha = alpha;
        luaL_setmetatable(L, kViewClass);
        lua_pushvalue(L, 1);
        lua_setiuservalue(L, 5, 1);
        lua_getiuservalue(L, 4, ring_value(v->tick));
        lua_setiuservalue(L, 5, 2);
        if (alpha > 0) {
            lua_getiuservalue(L, 4, ring_value(v->tick + 1));
            lua_setiuservalue(L, 5, 3);
        }
        held_end(&held);
        lua_settop(L, 5);
        return 1;
    }
}

// (self) -> tick, alpha
int l_view_tick(lua_State* L) {
    const View* v = check_view(L, 1);
    lua_pushinteger(L, static_cast<lua_Integer>(v->tick));
    lua_pushnumber(L, v->alpha);
    return 2;
}

int l_view_tostring(lua_State* L) {
    const View* v = check_view(L, 1);
    lua_pushfstring(L, "soageo.past_view (tick %I, alpha %f): %p", static_cast<lua_Integer>(v->tick), v->alpha,
                    static_cast<const void*>(v));
    return 1;
}

const luaL_Reg layer_methods[] = {
    {"history", l_history},
    {"commit", l_commit},
    {"past", l_past},
    {nullptr, nullptr},
};

// The readers that look ids up (the others need only the hit scratch).
const char* const kMapReaders[] = {"get", "has", "dump"};

bool looks_up(const char* name) {
    for (const char* r : kMapReaders)
        if (std::strcmp(name, r) == 0) return true;
    return false;
}

// view_methods' wrap: a closure of `forward` around the function on top (replacing it).
void push_forward(lua_State* L, const Tables& t, const char* name) {
    lua_CFunction fn = lua_tocfunction(L, -1);
    lua_pop(L, 1);
    lua_pushvalue(L, t.context);
    lua_pushcfunction(L, fn);
    lua_pushboolean(L, name && looks_up(name));
    lua_pushcclosure(L, forward, 3);
}

}  // namespace

bool frame_of_view(lua_State* L, int idx, bool map) {
    if (!luaL_testudata(L, idx, kViewClass)) return false;
    view_source(L, lua_absindex(L, idx), map);
    return true;
}

bool same_past_view(lua_State* L, int i, int j) {
    const View* a = check_view(L, i);
    const View* b = check_view(L, j);
    if (a->tick != b->tick || a->alpha != b->alpha) return false;
    lua_getiuservalue(L, i, 1);
    lua_getiuservalue(L, j, 1);
    const bool same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

void check_past_view(lua_State* L, int idx, int arg) {
    idx = lua_absindex(L, idx);
    check_valid(L, check_view(L, idx), idx, arg);
}

void open_history(lua_State* L, const Tables& t) {
    add_functions(L, t, t.methods, layer_methods);

    luaL_newmetatable(L, kViewClass);
    const int meta = lua_gettop(L);
    lua_newtable(L);
    const int methods = lua_gettop(L);
    view_methods(L, t, methods, push_forward, read_only, nullptr);
    // each: the view's own step over its frame (view_next).
    lua_pushvalue(L, t.context);
    lua_pushvalue(L, t.context);
    lua_pushcclosure(L, view_next, 1);
    lua_pushcclosure(L, view_each, 2);
    lua_setfield(L, methods, "each");
    lua_pushvalue(L, t.context);
    lua_pushcclosure(L, l_view_tick, 1);
    lua_setfield(L, methods, "tick");
    lua_setfield(L, meta, "__index");
    lua_getfield(L, t.metatable, "__len");
    push_forward(L, t, nullptr);
    lua_setfield(L, meta, "__len");
    lua_pushcfunction(L, l_view_tostring);
    lua_setfield(L, meta, "__tostring");
    lua_pop(L, 1);
}

}  // namespace lua
}  // namespace soageo
