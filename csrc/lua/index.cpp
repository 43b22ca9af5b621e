// The layer's spatial index as the binding drives it: when to build it (lazily, when it pays),
// where its memory lives (a Lua userdata, user value kIndexValue), and layer:nearest,
// layer:reindex, layer:index_mode.
#include <cmath>
#include <cstring>

#include "binding.hpp"
#include "event_object.hpp"

namespace soageo {
namespace lua {

bool index_fresh(const Layer* layer) {
    return layer->grid.built && (layer->s.stale & kStaleIndex) == 0 &&
           layer->grid.cap == layer->s.col.cap;
}

// Makes the index fresh. The block is allocated first (it may raise), then installed and
// filled without raising: an error leaves the layer and its old index as they were.
static void rebuild(lua_State* L, int idx, Layer* layer, Held* h) {
    idx = lua_absindex(L, idx);
    const uint32_t cap = layer->s.col.cap;
    if (!(layer->grid.cap == cap && layer->grid.x)) {
        layer->grid = grid_carve(held_userdata(h, grid_bytes(cap)), cap);
        lua_setiuservalue(L, idx, kIndexValue);
        layer->s.stale |= kStaleAll;
    }
    bool loose = false;
    if (layer->s.stale & kStaleAll)
        grid_build(layer->grid, layer->s, false);
    else
        loose = grid_refresh(layer->grid, layer->s);
    ++(loose ? layer->counts.refreshes : layer->counts.builds);
    store_index_synced(layer->s);
}

// What bringing this layer's index up to date costs (the core's cost model, rebuild_policy.hpp).
static StaleCost stale_cost(const Layer* layer) {
    const Store& s = layer->s;
    const bool full = (s.stale & kStaleAll) || !layer->grid.built || layer->grid.cap != s.col.cap;
    return index_stale_cost(kIndexCosts, s.n, full);
}

void consider_index(lua_State* L, int idx, Layer* layer, double saved, Held* h) {
    if (index_fresh(layer) || layer->mode == IndexMode::scan) return;
    if (layer->mode == IndexMode::automatic) {
        if (!(saved > 0)) return;
        const bool new_period = layer->s.stale & kChanged;
        StaleCost c = stale_cost(layer);
        c.moves_only = !(layer->s.stale & kChangedAll);
        layer->s.stale &= static_cast<uint8_t>(~(kChanged | kChangedAll));
        layer->s.query_seen = layer->s.feed.seq;
        if (!policy_stale_query(layer->policy, new_period, saved, c)) return;
    }
    rebuild(L, idx, layer, h);
}

const Grid* fresh_plan(const Layer* layer, const Area& a, Plan& p) {
    if (layer->mode == IndexMode::scan || !index_fresh(layer)) return nullptr;
    grid_plan(layer->grid, a, p);
    if (!p.ok) return nullptr;
    const double saving = double(layer->s.n) - plan_cost(p);
    if (layer->mode == IndexMode::automatic && !(saving > 0)) return nullptr;
    if (saving > 0) policy_fresh_query(layer->policy, saving);
    return &layer->grid;
}

namespace {

// (self, x, y, k [, max_dist [, out [, mask]]]) -> out, n
int l_nearest(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    float x = check_float(L, 2, "x"), y = check_float(L, 3, "y");
    int isnum = 0;
    const lua_Integer kk = lua_tointegerx(L, 4, &isnum);  // 8.0 counts as 8, as in luaL_checkinteger
    if (!isnum || kk < 0) {
        if (lua_type(L, 4) != LUA_TNUMBER) luaL_typeerror(L, 4, "integer");
        luaL_argerror(L, 4, "k must be an integer >= 0");
    }
    bool has_max = !lua_isnoneornil(L, 5);
    float max_r = has_max ? check_radius(L, 5, "max_dist") : 0.0f;
    int out = opt_out(L, 6);
    Filter f = opt_filter(L, 7);
    uint32_t k = static_cast<uint32_t>(kk > lua_Integer(layer->s.n) ? layer->s.n : kk);
    auto area = [&](const Grid& g) {
        double R = double(g.cell) * std::sqrt((1.5 * double(k) + 1.0) / (4.0 * M_PI));  // as grid_nearest
        if (has_max && max_r < R) R = max_r;
        return area_of(Circle{x, y, static_cast<float>(R)}, 0.0);
    };
    Held h;
    hold_layer(&h, L, 1, layer);
    if (k > 0 && !index_fresh(layer)) consider_index(L, 1, layer, estimate_saving(layer, area), &h);
    Plan p;
    uint32_t n;
    const uint32_t* slots;
    bool indexed = false;
    if (k > 0 && fresh_plan(layer, area(layer->grid), p)) {
        bool scanned = false;
        n = grid_nearest(layer->grid, layer->s, *context(L)->kernels, x, y, k, has_max, max_r, f, &scanned);
        slots = layer->grid.hits;
        indexed = !scanned;
    } else {
        n = scan_nearest(layer->s, x, y, k, has_max, max_r, f, layer->s.col.hits);
        slots = layer->s.col.hits;
    }
    if (kk > 0) count_query(layer, indexed);
    push_ids(L, &h, out, layer, slots, n);
    lua_pushinteger(L, n);
    held_end(&h);
    return 2;
}

// (self [, t]) -> t: the counters of IndexCounts, into t or a new table (as aoi:stats).
int l_stats(lua_State* L) {
    const IndexCounts c = check_layer(L, 1)->counts;
    int t = opt_out(L, 2);
    if (t == 0) {
        lua_settop(L, 1);
        lua_createtable(L, 0, 4);
        t = 2;
    }
    const Counter counters[] = {{"indexed", c.indexed}, {"scanned", c.scanned}, {"builds", c.builds}, {"refreshes", c.refreshes}};
    return event_stats(L, t, counters, sizeof counters / sizeof counters[0]);
}

// Brings the index up to date now (a hint: queries do it themselves when it pays).
int l_reindex(lua_State* L) {
    Layer* layer = check_writable_layer(L, 1);
    if (index_fresh(layer)) return 0;
    Held h;
    hold_layer(&h, L, 1, layer);
    rebuild(L, 1, layer, &h);
    held_end(&h);
    return 0;
}

// "auto" (default): each query picks the index or the scan by cost; "scan": never the index;
// "index": the index whenever it can serve (tests and benchmarks compare the paths with it).
int l_index_mode(lua_State* L) {
    Layer* layer = check_layer(L, 1);
    static const char* const names[] = {"auto", "scan", "index", nullptr};
    const char* before = names[static_cast<int>(layer->mode)];
    if (!lua_isnoneornil(L, 2)) layer->mode = static_cast<IndexMode>(luaL_checkoption(L, 2, nullptr, names));
    lua_pushstring(L, before);
    return 1;
}

const luaL_Reg methods[] = {
    {"nearest", l_nearest}, {"reindex", l_reindex}, {"index_mode", l_index_mode}, {"stats", l_stats},
    {nullptr, nullptr},
};

}  // namespace

void open_index(lua_State* L, const Tables& t) { add_functions(L, t, t.methods, methods); }

}  // namespace lua
}  // namespace soageo
