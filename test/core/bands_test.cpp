// The band sweep finds exactly the pairs of the plain sweep (each once), on every target, in
// uniform, clustered, huge sparse and tall-box worlds, and through a too-small buffer; so do
// its count (pair_count) and its pairs between two sets (pairs_between), and the banded paths
// give the pairs in the plain paths' order.
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
        {"clustered 40,000 in 300x300", 40000, 300, 15, 0, true},  // 8M pairs (150x150: 32M, a minute)
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
            std::vector<unsigned char> block(band_scratch_bytes(plan.count_entries, 2 * plan.bands));
            BandScratch s = band_scratch_carve(block.data(), plan.count_entries, 2 * plan.bands);
            const uint64_t counted = count_banded(plan, w.sw.boxes, s, k->sweep_complete);
            CHECK_MSG(counted == want.size(), "%s %s: counted %llu of %zu pairs", k->name, c.name,
                      static_cast<unsigned long long>(counted), want.size());
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

namespace {

// A pair buffer of `cap` pairs held in a vector.
struct Buffer {
    std::vector<unsigned char> block;
    PairBuffer buf;
    explicit Buffer(uint64_t cap) : block(pair_buffer_bytes(cap)) { buf = pair_buffer_carve(block.data(), cap); }
};

// What layer:pairs returned before bands: the plain sweep, then order_pairs.
std::vector<uint64_t> plain_in_id_order(World& w) {
    sweep_prepare(w.s, w.sw, true);
    const uint64_t n = fixture::reference()->sweep_complete(w.sw.boxes, nullptr, nullptr, 0);
    Buffer b(n + 1);
    fixture::reference()->sweep_complete(w.sw.boxes, b.buf.a, b.buf.b, b.buf.cap);
    order_pairs(b.buf, n, w.sw, w.sw, true);
    return std::vector<uint64_t>(b.buf.keys, b.buf.keys + n);
}

// layer:pairs' banded path through a buffer of `cap` pairs, then of what it asked for.
std::vector<uint64_t> banded_in_id_order(World& w, const KernelTable* k, uint64_t cap, bool* asked_enough) {
    sweep_prepare(w.s, w.sw, true);
    const BandPlan plan = band_plan(w.sw.boxes);
    std::vector<unsigned char> block(band_scratch_bytes(plan.entries, plan.bands));
    BandScratch s = band_scratch_carve(block.data(), plan.entries, plan.bands);
    Buffer b(cap);
    uint64_t n = pairs_banded(plan, w.sw, s, k->sweep_complete, b.buf);
    *asked_enough = true;
    if (n > cap) {
        Buffer again(n);
        sweep_prepare(w.s, w.sw, true);
        const uint64_t m = pairs_banded(plan, w.sw, s, k->sweep_complete, again.buf);
        *asked_enough = m <= n;
        return std::vector<uint64_t>(again.buf.keys, again.buf.keys + (m <= n ? m : 0));
    }
    return std::vector<uint64_t>(b.buf.keys, b.buf.keys + n);
}

}  // namespace

TEST_CASE(banded_pairs_come_in_the_plain_paths_order_on_every_target) {
    const Case cases[] = {
        {"uniform 40,000", 40000, 4000, 15, 0, true},
        {"uniform 200,000", 200000, 8944, 15, 0, true},
        {"crowded 40,000 in 600x600", 40000, 600, 15, 0, true},
        {"sparse 40,000 in 5 clusters over +-1e7", 40000, 900, 15, 5, true},
    };
    fixture::Rng g(17);
    for (const Case& c : cases) {
        World w(c.n);
        fill(w, g, c);
        const std::vector<uint64_t> want = plain_in_id_order(w);
        CHECK_MSG(!want.empty() && std::is_sorted(want.begin(), want.end()), "%s", c.name);
        CHECK_MSG(band_plan(w.sw.boxes).bands > 0, "%s", c.name);
        for (const KernelTable* k : fixture::targets()) {
            bool enough = false;
            std::vector<uint64_t> got = banded_in_id_order(w, k, want.size() + 64, &enough);
            CHECK_MSG(got == want, "%s %s: %zu vs %zu pairs", k->name, c.name, got.size(), want.size());
            got = banded_in_id_order(w, k, 100, &enough);
            CHECK_MSG(enough && got == want, "%s %s through a small buffer", k->name, c.name);
        }
        // Entities removed and moved (ids and ranks change; slots reused by swap-remove).
        for (uint32_t i = 0; i < c.n / 10; ++i) store_remove(w.s, w.s.col.id[g.below(w.s.n)]);
        for (uint32_t i = 0; i < w.s.n; i += 3) w.s.col.x[i] += static_cast<float>(g.uniform(-20, 20));
        const std::vector<uint64_t> want2 = plain_in_id_order(w);
        bool enough = false;
        CHECK_MSG(banded_in_id_order(w, fixture::targets().back(), want2.size() + 1, &enough) == want2,
                  "%s after removals and moves", c.name);
    }
}

TEST_CASE(order_rank_pairs_sorts_as_std_sort) {
    // Rank counts around each change of plan: 16-bit ranks, digits of 11 bits, 4 passes at most,
    // the byte-wise fallback past 2^22 ranks, and ranks using all 32 bits.
    const uint32_t counts[] = {2, 3, 1000, 65536, 65537, 1u << 20, (1u << 22) - 1, 1u << 22, (1u << 22) + 1,
                               0xffffffffu};
    fixture::Rng g(23);
    for (uint32_t n_ranks : counts) {
        for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(5000)}) {
            Buffer b(n + 1);
            std::vector<uint64_t> want;
            for (uint64_t i = 0; i < n; ++i) {
                uint32_t x = g.below(n_ranks), y = g.below(n_ranks);
                if (x == y) y = x ? x - 1 : 1;
                if (i % 7 == 0 && n_ranks > 2) x = n_ranks - 1, y = g.below(n_ranks - 1);  // the top rank
                b.buf.a[i] = x;
                b.buf.b[i] = y;
                want.push_back(x < y ? (uint64_t(x) << 32) | y : (uint64_t(y) << 32) | x);
            }
            std::sort(want.begin(), want.end());
            order_rank_pairs(b.buf, n, n_ranks);
            CHECK_MSG(std::vector<uint64_t>(b.buf.keys, b.buf.keys + n) == want, "%u ranks, %llu pairs", n_ranks,
                      static_cast<unsigned long long>(n));
        }
    }
}

namespace {

// Two layers for pairs_between: `a` as fill() makes it, `b` every other entity of a moved by up
// to 10 units (on a lattice world, kept on the lattice) and resized, plus some of its own.
void split(World& a, World& b, fixture::Rng& g, bool lattice) {
    for (uint32_t i = 0; i < a.s.n; i += 2) {
        const float d = lattice ? 8.0f * static_cast<float>(g.below(3)) - 8 : static_cast<float>(g.uniform(-10, 10));
        store_set(b.s, a.s.col.id[i] ^ 1, a.s.col.x[i] + d, a.s.col.y[i] - d, a.s.col.r[i] * (lattice ? 1.0f : 1.25f), 1);
    }
}

// What pairs_between returned before bands: the plain sweep, then order_pairs.
std::vector<uint64_t> plain_between(World& a, World& b) {
    sweep_prepare(a.s, a.sw, true);
    sweep_prepare(b.s, b.sw, true);
    const KernelTable* k = fixture::reference();
    const uint64_t n = k->sweep_between(a.sw.boxes, b.sw.boxes, nullptr, nullptr, 0);
    Buffer buf(n + 1);
    k->sweep_between(a.sw.boxes, b.sw.boxes, buf.buf.a, buf.buf.b, buf.buf.cap);
    order_pairs(buf.buf, n, a.sw, b.sw, false);
    return std::vector<uint64_t>(buf.buf.keys, buf.buf.keys + n);
}

}  // namespace

TEST_CASE(banded_pairs_between_equal_the_plain_path_on_every_target) {
    const Case cases[] = {
        {"uniform 40,000", 40000, 4000, 15, 0, true},
        {"crowded 40,000 in 1200x1200", 40000, 1200, 15, 0, true},
        {"sparse 40,000 in 5 clusters over +-1e7", 40000, 900, 15, 5, true},
        {"radii to 1,000 (tall boxes)", 40000, 4000, 1000, 0, false},
        {"below the threshold", 20000, 3000, 15, 0, false},
    };
    fixture::Rng g(29);
    for (int lattice = 0; lattice < 2; ++lattice) {
        for (const Case& c : cases) {
            if (lattice && &c != cases) continue;
            World a(c.n), b(c.n);
            if (lattice) {  // touching boxes on band edges
                for (uint32_t i = 0; i < c.n; ++i)
                    store_set(a.s, static_cast<int64_t>(i) * 7919, static_cast<float>(g.below(500) * 8),
                              static_cast<float>(g.below(500) * 8), static_cast<float>(g.below(3) * 4), 1);
            } else {
                fill(a, g, c);
            }
            split(a, b, g, lattice);
            sweep_prepare(a.s, a.sw, true);
            sweep_prepare(b.s, b.sw, true);
            uint64_t entries_b = 0;
            const BandPlan plan = band_plan_between(a.sw.boxes, b.sw.boxes, &entries_b);
            CHECK_MSG((plan.bands > 0) == c.bands, "%s: %u bands", c.name, plan.bands);
            if (!plan.bands) continue;
            const std::vector<uint64_t> want = plain_between(a, b);
            CHECK_MSG(!want.empty(), "%s", c.name);
            std::vector<unsigned char> block_a(band_scratch_bytes(plan.entries, plan.bands));
            std::vector<unsigned char> block_b(band_scratch_bytes(entries_b, plan.bands));
            BandScratch sa = band_scratch_carve(block_a.data(), plan.entries, plan.bands);
            BandScratch sb = band_scratch_carve(block_b.data(), entries_b, plan.bands);
            for (const KernelTable* k : fixture::targets()) {
                Buffer small(100);
                sweep_prepare(a.s, a.sw, true);
                sweep_prepare(b.s, b.sw, true);
                const uint64_t asked = pairs_banded_between(plan, a.sw, b.sw, sa, sb, k->sweep_between, small.buf);
                CHECK_MSG(asked > 100 && asked >= want.size(), "%s %s: asked for %llu", k->name, c.name,
                          static_cast<unsigned long long>(asked));
                Buffer buf(asked);
                sweep_prepare(a.s, a.sw, true);
                sweep_prepare(b.s, b.sw, true);
                const uint64_t n = pairs_banded_between(plan, a.sw, b.sw, sa, sb, k->sweep_between, buf.buf);
                CHECK_MSG(n == want.size() && std::vector<uint64_t>(buf.buf.keys, buf.buf.keys + n) == want,
                          "%s %s%s: %llu vs %zu pairs", k->name, c.name, lattice ? " (lattice)" : "",
                          static_cast<unsigned long long>(n), want.size());
            }
        }
    }
    // One side too small a share of the boxes: the plain sweep.
    World a(40000), b(100);
    fill(a, g, cases[0]);
    for (uint32_t i = 0; i < 100; ++i) store_set(b.s, i, static_cast<float>(g.uniform(0, 4000)), 5.0f, 3.0f, 1);
    sweep_prepare(a.s, a.sw, true);
    sweep_prepare(b.s, b.sw, true);
    uint64_t entries_b = 0;
    CHECK(band_plan_between(a.sw.boxes, b.sw.boxes, &entries_b).bands == 0);
}
