// Shared objects in the core: a frozen layer's copy and index answer as the layer's own, and
// the registry's versions, kinds and reference counts. (Threads: test/hosts/thread_host.cpp.)
#include <cstring>
#include <vector>

#include "check.hpp"
#include "core/grid.hpp"
#include "core/shared.hpp"
#include "fixtures.hpp"

using namespace soageo;

namespace {

struct Owned {
    std::vector<unsigned char> col, map;
    Store s;
    explicit Owned(uint32_t cap)
        : col(columns_bytes(cap)), map(idmap_bytes(idmap_cap_for(cap))),
          s{columns_carve(col.data(), cap), idmap_init(map.data(), idmap_cap_for(cap)), 0, 0, {}, 0, 0, 0} {}
};

// The slots of the entities whose centre is in the box, through grid g or, without one, by a scan.
std::vector<uint32_t> in_box(const Store& s, const Grid* g, float x0, float y0, float x1, float y1) {
    std::vector<uint32_t> out;
    if (!g) {
        for (uint32_t i = 0; i < s.n; ++i)
            if (s.col.x[i] >= x0 && s.col.x[i] <= x1 && s.col.y[i] >= y0 && s.col.y[i] <= y1) out.push_back(i);
        return out;
    }
    Plan p;
    grid_plan(*g, box_area(x0, y0, x1, y1, 0), p);
    CHECK(p.ok);
    const uint32_t k = grid_collect(*g, p, [&](const Points& pts, uint32_t* o) {
        uint32_t m = 0;
        for (uint32_t i = 0; i < pts.n; ++i)
            if (pts.x[i] >= x0 && pts.x[i] <= x1 && pts.y[i] >= y0 && pts.y[i] <= y1) o[m++] = i;
        return m;
    });
    out.assign(g->hits, g->hits + k);
    return out;
}

}  // namespace

TEST_CASE(a_frozen_layer_holds_the_same_entities_and_an_index_that_finds_them) {
    Owned o(3000);
    fixture::Rng g(5);
    for (int64_t id = 1; id <= 2500; ++id)
        store_set(o.s, id * 7, float(g.uniform(0, 500)), float(g.uniform(0, 500)), float(g.uniform(0, 2)), 1);
    for (int64_t id = 3; id <= 2500; id += 9) store_remove(o.s, id * 7);
    SharedVersion* v = shared_freeze_layer(o.s, nullptr, "core_test.layer", 15);
    CHECK(v != nullptr);
    if (!v) return;
    const SharedLayer& f = v->layer;
    CHECK(f.n == o.s.n && f.col.cap == o.s.col.cap && f.grid.built && f.grid.cap == f.col.cap);
    CHECK(f.col.hits == nullptr && f.grid.hits == nullptr && f.grid.x2 == nullptr);
    CHECK(std::memcmp(f.col.x, o.s.col.x, o.s.n * sizeof(float)) == 0);
    CHECK(std::memcmp(f.col.id, o.s.col.id, o.s.n * sizeof(int64_t)) == 0);
    for (uint32_t i = 0; i < o.s.n; ++i) CHECK(idmap_find(f.map, o.s.col.id[i]) == i);
    // A query's scratch of its own, as a view has.
    Grid grid = f.grid;
    std::vector<unsigned char> scratch(grid_scratch_bytes(grid.room));
    grid_scratch_carve(scratch.data(), grid);
    Store frozen{};
    frozen.col = f.col;
    frozen.n = f.n;
    for (int q = 0; q < 200; ++q) {
        const float x = float(g.uniform(-10, 500)), y = float(g.uniform(-10, 500));
        CHECK(in_box(frozen, &grid, x, y, x + 40, y + 25) == in_box(o.s, nullptr, x, y, x + 40, y + 25));
    }
    shared_release(v);
}

TEST_CASE(the_registry_counts_versions_per_name_keeps_kinds_and_holders) {
    Owned o(64);
    store_set(o.s, 1, 1, 1, 0, 1);
    const char* name = "core_test.registry";
    const size_t len = std::strlen(name);
    CHECK(shared_version(name, len) == 0);
    CHECK(shared_attach(name, len) == nullptr);
    SharedKind had;
    SharedVersion* a = shared_freeze_layer(o.s, nullptr, name, len);
    CHECK(shared_publish(a, &had) == ShareStatus::ok && a->version == 1);
    SharedVersion* held = shared_attach(name, len);
    CHECK(held == a && a->refs.load() == 2);
    SharedVersion* b = shared_freeze_layer(o.s, nullptr, name, len);
    CHECK(shared_publish(b, &had) == ShareStatus::ok && b->version == 2);
    CHECK(a->refs.load() == 1);  // the registry let go; the holder keeps it
    CHECK(shared_version(name, len) == 2);
    std::vector<SharedInfo> info(shared_list(nullptr, 0) + 4);
    const size_t n = shared_list(info.data(), info.size());
    bool listed = false;
    for (size_t i = 0; i < n && i < info.size(); ++i)
        if (std::strcmp(info[i].name, name) == 0) listed = info[i].version == 2 && info[i].holders == 0 && info[i].bytes > 0;
    CHECK(listed);
    shared_release(held);  // frees version 1
    // Another kind under the same name: refused, the caller keeps its copy.
    std::vector<Seg> seg{{0, 0, 1, 1}};
    WallPlan p = walls_plan(seg.data(), 1);
    std::vector<uint32_t> block(walls_index_bytes(p) / sizeof(uint32_t) + 1);
    Walls w{};
    walls_build(w, seg.data(), 1, p, block.data());
    SharedVersion* c = shared_freeze_walls(w, name, len);
    CHECK(shared_publish(c, &had) == ShareStatus::kind && had == SharedKind::layer && c->refs.load() == 1);
    shared_release(c);
    // unshare, then the count goes on.
    CHECK(shared_unshare(name, len));
    CHECK(!shared_unshare(name, len));
    CHECK(shared_version(name, len) == 0 && shared_attach(name, len) == nullptr);
    SharedVersion* d = shared_freeze_layer(o.s, nullptr, name, len);
    CHECK(shared_publish(d, &had) == ShareStatus::ok && d->version == 3);
    CHECK(shared_unshare(name, len));
}
