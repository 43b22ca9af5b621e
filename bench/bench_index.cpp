// The spatial index natively: what its upkeep costs per entity (a build from scratch, the
// rebuild after every entity moved by up to 2 units, which starts from the last cell order,
// and what a tick of such moves costs the layer, whose refresh stays loose for a few ticks
// before it rebuilds, also with 1 and 8 entities a tick jumping anywhere, and with 1 and 16
// deaths and spawns a tick patched in), against a
// plain pass over the same columns (the ceiling: reading x and y once), and what ordering every
// query's hits by ascending id would cost over the storage order the queries return (the hits
// of a whole-world box). Medians of 9 runs, one process.
// Uniform entities at the density of 10,000 in 2000x2000.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "../test/core/fixtures.hpp"
#include "core/grid.hpp"
#include "core/radix.hpp"

using namespace soageo;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

template <class Setup, class F>
double median_of(int reps, Setup setup, F f) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        setup();
        Clock::time_point t0 = Clock::now();
        f();
        t.push_back(seconds_since(t0));
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

}  // namespace

int main() {
    const KernelTable* kt = fixture::targets().back();
    std::printf("spatial index upkeep (median of 9, one process, loaded machine; target %s)\n", kt->name);
    for (uint32_t n : {100000u, 1000000u}) {
        std::vector<unsigned char> col(columns_bytes(n)), map(idmap_bytes(idmap_cap_for(n))), gb(grid_bytes(n));
        Store s{columns_carve(col.data(), n), idmap_init(map.data(), idmap_cap_for(n)), 0, 0, {}, 0, 0, 0};
        fixture::Rng g(n);
        const double side = 2000 * std::sqrt(n / 10000.0);
        // ids scattered over 64 bits, inserted in random order, as a server's entity ids are
        for (uint32_t i = 0; i < n; ++i)
            store_set(s, static_cast<int64_t>(g.next()), static_cast<float>(g.uniform(0, side)),
                      static_cast<float>(g.uniform(0, side)), static_cast<float>(g.uniform(0, 1)), 1);
        Grid grid = grid_carve(gb.data(), n);
        volatile float sink = 0;
        double t_read = median_of(9, [] {}, [&] {
            float acc = 0;
            for (uint32_t i = 0; i < n; ++i) acc += s.col.x[i] + s.col.y[i];
            sink = sink + acc;
        });
        double t_full = median_of(9, [&] { grid.built = false; }, [&] { grid_build(grid, s, false); });
        auto jiggle = [&] {
            for (uint32_t i = 0; i < n; ++i) {
                s.col.x[i] += static_cast<float>(g.uniform(-2, 2));
                s.col.y[i] += static_cast<float>(g.uniform(-2, 2));
            }
        };
        double t_moved = median_of(9, jiggle, [&] { grid_build(grid, s, true); });
        std::printf("%8u entities: full build %6.2f ns/entity, rebuild after all moved (<= 2 units) %6.2f ns/entity, "
                    "reading x and y %5.2f ns/entity; %.2f entities per bucket\n",
                    n, t_full / n * 1e9, t_moved / n * 1e9, t_read / n * 1e9, double(grid.loose.n_cells) / grid.loose.buckets);
        // What the layer pays: after such a tick it refreshes (grid_refresh), loose until the
        // moves add up to a quarter of a cell, then rebuilt (from an order several ticks old,
        // which costs more than the rebuild above). Every tick timed, rebuilds included: the
        // mean per tick of a 30-tick sequence (the median of 3 sequences), and the medians of
        // the loose and of the rebuilding ticks.
        const int kTicks = 30, kSequences = 3;
        auto median = [](std::vector<double> v) {
            std::sort(v.begin(), v.end());
            return v.empty() ? 0.0 : v[v.size() / 2];
        };
        // `jumps` entities a tick also jump anywhere (respawns, teleports); `churn` entities a
        // tick are removed and as many added elsewhere (deaths and spawns, the layer's log).
        auto upkeep = [&](uint32_t jumps, uint32_t churn) {
            std::vector<double> loose_t, rebuild_t, means;
            for (int q = 0; q < kSequences; ++q) {
                grid_build(grid, s, false);
                store_index_synced(s);
                double total = 0;
                for (int tick = 0; tick < kTicks; ++tick) {
                    jiggle();
                    for (uint32_t j = 0; j < jumps; ++j) {
                        const uint32_t i = static_cast<uint32_t>(g.below(n));
                        s.col.x[i] = static_cast<float>(g.uniform(0, side));
                        s.col.y[i] = static_cast<float>(g.uniform(0, side));
                    }
                    for (uint32_t j = 0; j < churn; ++j) {
                        store_remove(s, s.col.id[g.below(s.n)]);
                        store_set(s, static_cast<int64_t>(g.next()), static_cast<float>(g.uniform(0, side)),
                                  static_cast<float>(g.uniform(0, side)), static_cast<float>(g.uniform(0, 1)), 1);
                    }
                    Clock::time_point t0 = Clock::now();
                    const bool loose = grid_refresh(grid, s);
                    store_index_synced(s);
                    const double t = seconds_since(t0);
                    total += t;
                    (loose ? loose_t : rebuild_t).push_back(t);
                }
                means.push_back(total / kTicks);
            }
            std::printf(": %.2f ns/entity a tick (mean of %d ticks, median of %d runs; %zu of %zu ticks rebuilt); a loose "
                        "tick %.2f, a rebuilding tick %.2f ns/entity (medians)\n",
                        median(means) / n * 1e9, kTicks, kSequences, rebuild_t.size(),
                        loose_t.size() + rebuild_t.size(), median(loose_t) / n * 1e9, median(rebuild_t) / n * 1e9);
        };
        std::printf("          upkeep per tick of such moves, as the layer pays it (loose refresh, rebuilt when the moves "
                    "add up to %.2f of a cell)", kLooseDrift);
        upkeep(0, 0);
        for (uint32_t jumps : {1u, 8u}) {
            std::printf("          the same with %u entit%s a tick jumping anywhere (respawns; refiled one by one)", jumps,
                        jumps == 1 ? "y" : "ies");
            upkeep(jumps, 0);
        }
        for (uint32_t churn : {1u, 16u}) {
            std::printf("          the same with %u entit%s a tick removed and %u added (patched in; a full build was the "
                        "only way before)", churn, churn == 1 ? "y" : "ies", churn);
            upkeep(0, churn);
        }

        // Whole-world box: hits in storage order (what queries return) vs sorted by id.
        Box all{-1e9f, -1e9f, 1e9f, 1e9f};
        std::vector<uint32_t> hits(n + kMaxWidth), rank(n), sor(n), tv(n);
        std::vector<uint64_t> keys(n), tk(n);
        uint32_t k = 0;
        double t_scan = median_of(9, [] {}, [&] { k = kt->in_box(points_of(s), all, Filter{0, false}, hits.data()); });
        double t_sort = median_of(9, [] {}, [&] {
            for (uint32_t i = 0; i < k; ++i) {
                keys[i] = int_key(s.col.id[hits[i]]);
                sor[i] = hits[i];
            }
            radix_sort64(keys.data(), sor.data(), tk.data(), tv.data(), k);
        });
        std::printf("          whole-world in_box: kernel %.3f ms; ordering its %u hits by id (radix sort) would add %.3f ms"
                    " (%.1fx the kernel; writing ids to Lua costs about 10 ns each, %.2f ms)\n",
                    t_scan * 1e3, k, t_sort * 1e3, t_sort / t_scan, k * 10e-9 * 1e3);
    }
    return 0;
}
