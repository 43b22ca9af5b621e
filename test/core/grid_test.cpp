// The spatial index's rebuild after moves (which starts from the last cell order and, in large
// layers, writes past the caches) checked against its definition: the grid holds every entity
// once, with the layer's columns, each in the bucket of its cell (the big ones in the last run).
#include <algorithm>
#include <cmath>

#include "check.hpp"
#include "core/loose_grid.hpp"
#include "core/grid.hpp"
#include "fixtures.hpp"

using namespace soageo;

namespace {

void check_grid(const Grid& g, const Store& s) {
    CHECK(g.loose.n == s.n && g.loose.n_cells <= g.loose.n && g.loose.n_built == g.loose.n && g.loose.dead == 0);
    std::vector<uint32_t> seen(s.n, 0);
    float reach = 0;
    uint32_t b = 0, bad = 0;
    for (uint32_t p = 0; p < g.loose.n; ++p) {
        const uint32_t slot = g.slot[p];
        if (slot >= s.n || seen[slot]++) {
            ++bad;
            continue;
        }
        bad += !(g.x[p] == s.col.x[slot] && g.y[p] == s.col.y[slot] && g.r[p] == s.col.r[slot] && g.mask[p] == s.col.mask[slot]);
        if (p < g.loose.n_cells) {
            while (g.loose.start[b + 1] <= p) ++b;  // the bucket holding position p
            bad += !(g.r[p] <= g.cell && b == row_bucket(g.loose.buckets, cell_of(g.x[p], g.loose.inv_cell), cell_of(g.y[p], g.loose.inv_cell)));
            reach = std::max(reach, g.r[p]);
        } else {
            bad += !(g.r[p] > g.cell);
        }
    }
    CHECK(bad == 0);
    CHECK(g.loose.start[g.loose.buckets] == g.loose.n_cells && reach == g.reach);
}

void check_rebuild_after_moves(uint32_t n) {
    std::vector<unsigned char> col(columns_bytes(n)), map(idmap_bytes(idmap_cap_for(n)));
    std::vector<unsigned char> grid_block(grid_bytes(n));
    Store s{columns_carve(col.data(), n), idmap_init(map.data(), idmap_cap_for(n)), 0, 0, {}, 0, 0, 0};
    fixture::Rng g(n);
    const double side = 2000 * std::sqrt(n / 10000.0);
    for (uint32_t i = 0; i < n; ++i) {
        // a few entities wider than any cell: the big entities' run
        const float r = i % 997 == 0 ? 500.0f : static_cast<float>(g.uniform(0, 1));
        store_set(s, static_cast<int64_t>(g.next()), static_cast<float>(g.uniform(0, side)),
                  static_cast<float>(g.uniform(0, side)), r, 1u << g.below(4));
    }
    Grid grid = grid_carve(grid_block.data(), n);
    grid_build(grid, s, false);
    check_grid(grid, s);
    for (int tick = 0; tick < 3; ++tick) {
        for (uint32_t i = 0; i < n; ++i) {
            // most move a little, some jump across the world
            const double reach = i % 101 == 0 ? side : 2.0;
            s.col.x[i] += static_cast<float>(g.uniform(-reach, reach));
            s.col.y[i] += static_cast<float>(g.uniform(-reach, reach));
        }
        grid_build(grid, s, true);
        check_grid(grid, s);
    }
}

// A loose grid (grid_refresh): the current positions, radii and masks in cell order, every
// entity once (removed ones leave dead positions, counted in g.loose.dead), and every entity in
// cells in the bucket of a cell within `drift` (per axis) of where it is now, no wider than a
// cell and within `reach`.
void check_loose_grid(const Grid& g, const Store& s) {
    CHECK(g.loose.n - g.loose.dead == s.n && g.loose.n_cells <= g.loose.n_built && g.loose.n_built <= g.loose.n && g.loose.n <= g.room);
    CHECK(g.loose.drift >= 0 && g.loose.drift <= kLooseDrift * g.cell * (1 + 0x1p-20));
    std::vector<uint32_t> seen(s.n, 0);
    uint32_t b = 0, bad = 0, dead = 0;
    for (uint32_t p = 0; p < g.loose.n; ++p) {
        const uint32_t slot = g.slot[p];
        if (slot == kDeadSlot) {
            ++dead;
            continue;
        }
        if (slot >= s.n || seen[slot]++) {
            ++bad;
            continue;
        }
        bad += !(g.x[p] == s.col.x[slot] && g.y[p] == s.col.y[slot] && g.r[p] == s.col.r[slot] && g.mask[p] == s.col.mask[slot]);
        if (p >= g.loose.n_cells) continue;
        bad += !(g.r[p] <= g.cell && g.r[p] <= g.reach);
        while (g.loose.start[b + 1] <= p) ++b;
        const double d = g.loose.drift;
        bool found = false;
        for (int64_t cy = cell_of(g.y[p] - d, g.loose.inv_cell); cy <= cell_of(g.y[p] + d, g.loose.inv_cell); ++cy)
            for (int64_t cx = cell_of(g.x[p] - d, g.loose.inv_cell); cx <= cell_of(g.x[p] + d, g.loose.inv_cell); ++cx)
                found |= row_bucket(g.loose.buckets, cx, cy) == b;
        bad += !found;
    }
    CHECK(bad == 0 && dead == g.loose.dead);
}

// Queries through `g` (loose or not) against brute force over the layer: boxes, long thin
// capsules (their rows are narrowed), nearest, and the first hit of segment casts against a
// tight grid of the same layer. Returns the mismatches.
uint32_t query_mismatches(const Grid& g, const Grid& tight, const Store& s, fixture::Rng& rng, double side) {
    const KernelTable* k = fixture::reference();
    const Filter all{0, false};
    std::vector<uint32_t> buf(s.n + kHitSlack);
    auto brute = [&](uint32_t m) { return std::vector<uint32_t>(buf.begin(), buf.begin() + m); };
    uint32_t bad = 0;
    for (int q = 0; q < 100; ++q) {
        const double cx = rng.uniform(0, side), cy = rng.uniform(0, side), h = rng.uniform(0, 60);
        const Box box{float(cx - h), float(cy - h), float(cx + h), float(cy + h)};
        Plan p;
        grid_plan(g, area_of(box, g.reach), p);
        CHECK(p.ok);
        uint32_t m = grid_collect(g, p, [&](const Points& pts, uint32_t* o) { return k->touch_box(pts, box, all, o); });
        bad += std::vector<uint32_t>(g.hits, g.hits + m) != brute(k->touch_box(points_of(s), box, all, buf.data()));

        const double a = rng.uniform(0, 6.283), len = rng.uniform(20, 300);
        const float dx = float(std::cos(a) * len), dy = float(std::sin(a) * len);
        const Capsule cap{float(cx), float(cy), dx, dy, dx * dx + dy * dy, float(rng.uniform(0, 3))};
        grid_plan(g, area_of(cap, g.reach), p);
        CHECK(p.ok);
        m = grid_collect(g, p, [&](const Points& pts, uint32_t* o) { return k->touch_capsule(pts, cap, all, o); });
        bad += std::vector<uint32_t>(g.hits, g.hits + m) != brute(k->touch_capsule(points_of(s), cap, all, buf.data()));

        const uint32_t want_k = static_cast<uint32_t>(rng.below(12));
        m = grid_nearest(g, s, *k, float(cx), float(cy), want_k, false, 0, all);
        std::vector<uint32_t> got(g.hits, g.hits + m);
        bad += got != brute(scan_nearest(s, float(cx), float(cy), want_k, false, 0, all, buf.data()));

        const Segment seg{float(cx), float(cy), dx, dy};
        uint32_t slot_a = kNoSlot, slot_b = kNoSlot;
        float t_a = -1, t_b = -1;
        const bool hit_a = grid_cast_first(g, s, *k, seg, all, &slot_a, &t_a);
        const bool hit_b = grid_cast_first(tight, s, *k, seg, all, &slot_b, &t_b);
        bad += hit_a != hit_b || slot_a != slot_b || t_a != t_b;
    }
    return bad;
}

// 20,000 uniform entities with small radii (every 997th a big one), a grid built over them, and
// a second grid for the tight rebuilds that loose states are compared with.
struct RefreshWorld {
    static constexpr uint32_t n = 20000;
    std::vector<unsigned char> col, map, grid_block, tight_block;
    Store s;
    Grid grid, tight;
    double side = 2000 * std::sqrt(n / 10000.0);
    explicit RefreshWorld(fixture::Rng& g)
        : col(columns_bytes(n)), map(idmap_bytes(idmap_cap_for(n))), grid_block(grid_bytes(n)), tight_block(grid_bytes(n)) {
        s = Store{columns_carve(col.data(), n), idmap_init(map.data(), idmap_cap_for(n)), 0, 0, {}, 0, 0, 0};
        for (uint32_t i = 0; i < n; ++i) {
            const float r = i % 997 == 0 ? 500.0f : static_cast<float>(g.uniform(0, 1));
            store_set(s, static_cast<int64_t>(g.next()), static_cast<float>(g.uniform(0, side)),
                      static_cast<float>(g.uniform(0, side)), r, 1);
        }
        grid = grid_carve(grid_block.data(), n);
        grid_build(grid, s, false);
        store_index_synced(s);
        tight = grid_carve(tight_block.data(), n);
    }
    // What the binding does when a query finds the grid stale.
    bool refresh() {
        bool loose = false;
        if (s.stale & kStaleAll)
            grid_build(grid, s, false);
        else
            loose = grid_refresh(grid, s);
        store_index_synced(s);
        return loose;
    }
    // Every entity moves by up to `step` per axis.
    void move_all(fixture::Rng& g, double step) {
        for (uint32_t i = 0; i < s.n; ++i) {
            s.col.x[i] += static_cast<float>(g.uniform(-step, step));
            s.col.y[i] += static_cast<float>(g.uniform(-step, step));
        }
    }
    // Queries through the grid against brute force and a tight grid built now: the mismatches.
    uint32_t mismatches(fixture::Rng& g) {
        tight.built = false;
        grid_build(tight, s, false);
        return query_mismatches(grid, tight, s, g, side);
    }
};

}  // namespace

// Ticks of small moves keep the grid loose (no counting sort) until the summed moves pass a
// quarter of a cell; every state answers queries as brute force does.
TEST_CASE(grid_refresh_stays_loose_under_small_moves_and_rebuilds_past_the_bound) {
    fixture::Rng g(3);
    RefreshWorld w(g);
    const Store& s = w.s;
    Grid& grid = w.grid;
    const double step = grid.cell * kLooseDrift / 3.5;  // a few loose ticks, then a rebuild
    int loose = 0, rebuilt = 0;
    for (int tick = 0; tick < 12; ++tick) {
        w.move_all(g, step);
        const double before = grid.loose.drift;
        if (w.refresh()) {
            ++loose;
            CHECK(grid.loose.drift > before);
            check_loose_grid(grid, s);
        } else {
            ++rebuilt;
            CHECK(grid.loose.drift == 0);
            check_grid(grid, s);
        }
        CHECK(w.mismatches(g) == 0);
    }
    CHECK(loose >= 6 && rebuilt >= 2);
}

// Teleports among small moves: up to kMaxJumps entities a tick that jump anywhere are refiled
// into their buckets, the grid stays loose and its drift counts only the small moves; more
// jumps than that count like any move (the refresh then rebuilds).
TEST_CASE(grid_refresh_refiles_a_few_jumps_and_stays_loose) {
    fixture::Rng g(11);
    RefreshWorld w(g);
    Store& s = w.s;
    Grid& grid = w.grid;
    const uint32_t n = RefreshWorld::n;
    const double side = w.side;
    const double step = grid.cell * kLooseDrift / 12;  // small moves: many loose ticks
    uint32_t loose = 0;
    double drift = 0;
    for (int tick = 0; tick < 8; ++tick) {
        w.move_all(g, step);
        // 1 to 8 jumps, some to the world's corners (the first and last buckets' cells), some
        // twice to the same entity's neighbourhood.
        const uint32_t jumps = 1 + static_cast<uint32_t>(g.below(8));
        for (uint32_t j = 0; j < jumps; ++j) {
            const uint32_t i = static_cast<uint32_t>(g.below(n));
            const double to = j % 3 == 0 ? 0.5 : j % 3 == 1 ? side - 0.5 : g.uniform(0, side);
            s.col.x[i] = static_cast<float>(j % 2 ? to : g.uniform(0, side));
            s.col.y[i] = static_cast<float>(to);
        }
        const bool stayed = w.refresh();
        loose += stayed;
        if (stayed) {
            // The jumps do not count: the drift grows by the small moves only (each as float32
            // positions realise it, up to half a unit in the last place of a coordinate more).
            CHECK(grid.loose.drift <= drift + step * (1 + 0x1p-20) + 1e-3);
            drift = grid.loose.drift;
            check_loose_grid(grid, s);
        } else {
            drift = 0;
            check_grid(grid, s);
        }
        CHECK(w.mismatches(g) == 0);
    }
    CHECK(loose == 8);
    // More jumps than a refresh refiles: they count like moves, and the grid rebuilds.
    for (uint32_t i = 0; i < 50; ++i) s.col.x[static_cast<uint32_t>(g.below(n))] = static_cast<float>(g.uniform(0, side));
    CHECK(!w.refresh());
    check_grid(grid, s);
}

// Deaths and spawns among small moves (adds and removes, read from the store's change feed),
// and radii and masks changed by store_set: patched into the loose grid (removed entities leave dead
// positions, added ones join the run every query visits) until either passes its bound or a
// tick changes more than the feed holds; every state answers as brute force does.
TEST_CASE(grid_refresh_patches_in_adds_removes_radii_and_masks) {
    fixture::Rng g(23);
    RefreshWorld w(g);
    Store& s = w.s;
    Grid& grid = w.grid;
    const uint32_t n = RefreshWorld::n;
    const double side = w.side, step = grid.cell * kLooseDrift / 40;
    auto spawn = [&](int64_t id, float r) {
        store_set(s, id, static_cast<float>(g.uniform(0, side)), static_cast<float>(g.uniform(0, side)), r, 1u << g.below(4));
    };
    uint32_t loose = 0, patched = 0, full = 0;
    for (int tick = 0; tick < 40; ++tick) {
        w.move_all(g, step);
        // 0-23 deaths anywhere, the last slot's entity among them every few ticks; then as many
        // spawns as there is room for, a big one now and then; one spawned and killed at once.
        const uint32_t deaths = tick == 20 ? 40 : static_cast<uint32_t>(g.below(24));
        for (uint32_t j = 0; j < deaths; ++j)
            store_remove(s, s.col.id[j == 0 && tick % 3 == 0 ? s.n - 1 : g.below(s.n)]);
        const uint32_t births = tick == 20 ? 40 : static_cast<uint32_t>(g.below(24));
        for (uint32_t j = 0; j < births && s.n < n - 1; ++j)
            spawn(static_cast<int64_t>(g.next()), j == 0 && tick % 5 == 0 ? 500.0f : static_cast<float>(g.uniform(0, 1)));
        const int64_t brief = static_cast<int64_t>(g.next());
        spawn(brief, 1.0f);
        store_remove(s, brief);
        // Radii and masks of entities already there; now and then one grows wider than a cell.
        for (uint32_t j = 0; j < 3; ++j) {
            const uint32_t i = static_cast<uint32_t>(g.below(s.n));
            const float r = j == 0 && tick % 7 == 6 ? 2 * grid.cell : static_cast<float>(g.uniform(0, 1));
            store_set(s, s.col.id[i], s.col.x[i], s.col.y[i], r, 1u << g.below(4));
        }
        const bool overflowed = s.stale & kStaleAll;
        full += overflowed;
        if (w.refresh()) {
            ++loose;
            patched += grid.loose.dead > 0 && grid.loose.n > grid.loose.n_built;
            check_loose_grid(grid, s);
        } else {
            check_grid(grid, s);
        }
        CHECK(w.mismatches(g) == 0);
    }
    CHECK(full == 1 && loose >= 20 && patched >= 10);
}

TEST_CASE(grid_rebuild_after_moves_files_every_entity_in_its_cell) { check_rebuild_after_moves(5000); }

// Past 262,144 entities the rebuild's scatter stores bypass the caches.
TEST_CASE(grid_rebuild_after_moves_files_every_entity_in_its_cell_in_a_large_layer) { check_rebuild_after_moves(300000); }

// Every size takes its own path (insertion sort, std::sort, the bitmap for many hits): each
// must give the slots ascending, once each.
TEST_CASE(sort_slots_orders_and_deduplicates_hits_of_every_size) {
    fixture::Rng g(7);
    const uint32_t n = 4096;
    std::vector<uint32_t> bitmap((n + 31) / 32);
    uint32_t bad = 0;
    for (uint32_t k = 0; k <= 300; k += k < 40 ? 1 : 37) {
        for (int round = 0; round < 20; ++round) {
            // Some rounds draw from few values, so that duplicates are common.
            const uint32_t range = round % 3 == 0 ? std::max<uint32_t>(1, k / 2) : n;
            std::vector<uint32_t> slots(k), want;
            for (uint32_t& v : slots) v = static_cast<uint32_t>(g.below(range));
            want = slots;
            std::sort(want.begin(), want.end());
            want.erase(std::unique(want.begin(), want.end()), want.end());
            const uint32_t w = sort_slots(slots.data(), k, n, bitmap.data());
            slots.resize(w);
            bad += slots != want;
        }
    }
    CHECK(bad == 0);
}
