// The band sweep finds exactly the pairs of the plain sweep (each once), on every target, in
// uniform, clustered, huge sparse and tall-box worlds, and through a too-small buffer.
#include <algorithm>
#include <cmath>
#include <utility>

#include "check.hpp"
#include "core/bands.hpp"
#include "core/sweep.hpp"
#include "fixtures.hpp"

using namespace soageo;

namespace {

using World = fixture::SweepWorld;

using fixture::Pairs;

Pairs plain(const KernelTable* k, const SweepBoxes& b) {
    Pairs p = fixture::complete_pairs(k, b);
    std::sort(p.begin(), p.end());
    return p;
}

// Through a buffer of `cap` pairs first, then of the size the first call asked for.
Pairs banded(const KernelTable* k, const SweepBoxes& b, const BandPlan& plan, uint64_t cap, bool* asked_enough) {
    std::vector<unsigned char> block(band_scratch_bytes(plan.entries, plan.bands));
    BandScratch s = band_scratch_carve(block.data(), plan.entries, plan.bands);
    std::vector<uint32_t> a(cap + 1), c(cap + 1);
    uint64_t n = sweep_banded(plan, b, s, k->sweep_complete, a.data(), c.data(), cap);
    *asked_enough = true;
    if (n > cap) {
        a.assign(n + 1, 0);
        c.assign(n + 1, 0);
        uint64_t again = sweep_banded(plan, b, s, k->sweep_complete, a.data(), c.data(), n);
        *asked_enough = again <= n;
        n = again;
    }
    Pairs p;
    for (uint64_t i = 0; i < n; ++i) p.push_back({a[i], c[i]});
    std::sort(p.begin(), p.end());
    return p;
}

struct Case {
    const char* name;
    uint32_t n;
    double span;   // uniform in [0, span)^2, or around cluster centres
    double rmax;   // radius uniform in [0, rmax), a fifth of them 0
    int clusters;  // 0: uniform
    bool bands;    // whether banding is expected to be chosen
};

void fill(World& w, fixture::Rng& g, const Case& c) {
    for (uint32_t i = 0; i < c.n; ++i) {
        double x, y;
        if (c.clusters) {  // far-apart clusters in a world of +-1e7
            uint32_t k = g.below(c.clusters);
            x = -1e7 + 2e7 * k / c.clusters + g.uniform(0, c.span);
            y = -1e7 + 2e7 * ((k * 7) % c.clusters) / c.clusters + g.uniform(0, c.span);
        } else {
            x = g.uniform(0, c.span);
            y = g.uniform(0, c.span);
        }
        float r = g.below(5) == 0 ? 0.0f : static_cast<float>(g.uniform(0, c.rmax));
        store_set(w.s, static_cast<int64_t>(g.next()), static_cast<float>(x), static_cast<float>(y), r, 1);
    }
}

}  // namespace

TEST_CASE(band_sweep_equals_the_plain_sweep_on_every_target) {
    const Case cases[] = {
        {"uniform 40,000", 40000, 4000, 15, 0, true},
        {"uniform 200,000", 200000, 8944, 15, 0, true},
        {"clustered 40,000 in 150x150", 40000, 150, 15, 0, true},
        {"sparse 40,000 in 5 clusters over +-1e7", 40000, 900, 15, 5, true},
        {"radii to 1,000 (tall boxes)", 40000, 4000, 1000, 0, false},
        {"everything on one line", 40000, 0, 0, 0, false},
        {"below the threshold", 30000, 3500, 15, 0, false},
    };
    fixture::Rng g(13);
    for (const Case& c : cases) {
        World w(c.n);
        fill(w, g, c);
        sweep_prepare(w.s, w.sw, true);
        const BandPlan plan = band_plan(w.sw.boxes);
        CHECK_MSG((plan.bands > 0) == c.bands, "%s: %u bands", c.name, plan.bands);
        if (!plan.bands) continue;
        CHECK_MSG(plan.bands <= c.n / 64 + 1, "%s: %u bands", c.name, plan.bands);
        CHECK_MSG(plan.entries <= c.n + c.n / 2 + uint64_t(plan.bands) * 2 * kMaxWidth, "%s: %llu entries", c.name,
                  static_cast<unsigned long long>(plan.entries));
        const Pairs want = plain(fixture::reference(), w.sw.boxes);
        CHECK_MSG(!want.empty(), "%s", c.name);
        for (const KernelTable* k : fixture::targets()) {
            bool enough = false;
            Pairs got = banded(k, w.sw.boxes, plan, uint64_t(want.size()) + 64, &enough);
            CHECK_MSG(got == want, "%s %s: %zu vs %zu pairs", k->name, c.name, got.size(), want.size());
            got = banded(k, w.sw.boxes, plan, 100, &enough);  // too small: retried with what it asked
            CHECK_MSG(enough && got == want, "%s %s through a small buffer", k->name, c.name);
        }
    }
}

TEST_CASE(band_sweep_with_boxes_on_band_edges) {
    // Coordinates on a coarse lattice: many min-y and max-y fall exactly on band boundaries,
    // and pairs that only touch (<=) must be found once.
    fixture::Rng g(5);
    World w(50000);
    for (uint32_t i = 0; i < 50000; ++i)
        store_set(w.s, static_cast<int64_t>(i) * 1000003, static_cast<float>(g.below(400) * 8),
                  static_cast<float>(g.below(400) * 8), static_cast<float>(g.below(3) * 4), 1);
    sweep_prepare(w.s, w.sw, true);
    const BandPlan plan = band_plan(w.sw.boxes);
    CHECK(plan.bands > 1);
    const Pairs want = plain(fixture::reference(), w.sw.boxes);
    for (const KernelTable* k : fixture::targets()) {
        bool enough = false;
        CHECK_MSG(banded(k, w.sw.boxes, plan, want.size() + 64, &enough) == want, "%s", k->name);
    }
}
