// The sweeps: every target finds exactly the scalar reference's pairs (in the same order), and
// the reference finds exactly the brute-force pairs.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "check.hpp"
#include "core/radix.hpp"
#include "core/sweep.hpp"
#include "fixtures.hpp"

using namespace soageo;

namespace {

using Owned = fixture::SweepWorld;

using fixture::Pairs;

Pairs complete(const KernelTable* k, const SweepBoxes& b) {
    uint64_t written = 0;
    Pairs p = fixture::complete_pairs(k, b, &written);
    CHECK(written == p.size());
    return p;
}

Pairs between(const KernelTable* k, const SweepBoxes& x, const SweepBoxes& y) {
    uint64_t total = k->sweep_between(x, y, nullptr, nullptr, 0);
    std::vector<uint32_t> a(total + 1), c(total + 1);
    CHECK(k->sweep_between(x, y, a.data(), c.data(), total) == total);
    Pairs p;
    for (uint64_t i = 0; i < total; ++i) p.push_back({a[i], c[i]});
    return p;
}

bool overlap(const SweepBoxes& a, uint32_t i, const SweepBoxes& b, uint32_t j) {
    return a.minx[i] <= b.maxx[j] && b.minx[j] <= a.maxx[i] && a.miny[i] <= b.maxy[j] && b.miny[j] <= a.maxy[i];
}

void fill(Owned& o, fixture::Rng& g, uint32_t n, double span, double rmax, uint64_t id_base) {
    for (uint32_t i = 0; i < n; ++i)
        store_set(o.s, static_cast<int64_t>(id_base + i * 7), static_cast<float>(g.uniform(0, span)),
                  static_cast<float>(g.uniform(0, span)), g.below(5) == 0 ? 0.0f : static_cast<float>(g.uniform(0, rmax)), 1);
}

}  // namespace

TEST_CASE(sweeps_equal_brute_force_on_every_target) {
    fixture::Rng g(9);
    const uint32_t sizes[] = {0, 1, 2, 15, 16, 17, 40, 700};
    for (uint32_t n : sizes) {
        Owned a(n + 2), b(n + 1);  // a: room for the two extra entities below (the invariant caught it)
        fill(a, g, n, 100, 6, 0);
        fill(b, g, n / 2 + 1, 100, 6, 1000000);
        if (n > 2) {  // identical positions and a box reaching +inf
            store_set(a.s, 999, 5, 5, 1, 1);
            store_set(a.s, 998, 5, 5, 1, 1);
        }
        sweep_prepare(a.s, a.sw, true);
        sweep_prepare(b.s, b.sw, true);
        Pairs want, want_between;
        const SweepBoxes &x = a.sw.boxes, &y = b.sw.boxes;
        for (uint32_t i = 0; i < x.n; ++i)
            for (uint32_t j = i + 1; j < x.n; ++j)
                if (overlap(x, i, x, j)) want.push_back({i, j});
        for (uint32_t i = 0; i < x.n; ++i)
            for (uint32_t j = 0; j < y.n; ++j)
                if (overlap(x, i, y, j)) want_between.push_back({i, j});
        Pairs ref = complete(fixture::reference(), x), ref_between = between(fixture::reference(), x, y);
        Pairs sorted_ref = ref, sorted_between = ref_between;
        std::sort(sorted_ref.begin(), sorted_ref.end());
        std::sort(sorted_between.begin(), sorted_between.end());
        CHECK_MSG(sorted_ref == want, "complete n=%u: %zu vs %zu", n, sorted_ref.size(), want.size());
        CHECK_MSG(sorted_between == want_between, "between n=%u", n);
        for (const KernelTable* k : fixture::targets()) {
            CHECK_MSG(complete(k, x) == ref, "%s complete n=%u", k->name, n);
            CHECK_MSG(between(k, x, y) == ref_between, "%s between n=%u", k->name, n);
        }
    }
}

TEST_CASE(sweep_equals_brute_force_at_20000_entities) {
    fixture::Rng g(20000);
    for (double span : {2000.0, 150.0}) {  // uniform, and clustered
        Owned a(20000);
        fill(a, g, 20000, span, 15, 0);
        sweep_prepare(a.s, a.sw, true);
        const SweepBoxes& x = a.sw.boxes;
        Pairs want;
        for (uint32_t i = 0; i < x.n; ++i)
            for (uint32_t j = i + 1; j < x.n; ++j)
                if (overlap(x, i, x, j)) want.push_back({i, j});
        for (const KernelTable* k : fixture::targets()) {
            Pairs got = complete(k, x);
            std::sort(got.begin(), got.end());
            CHECK_MSG(got == want, "%s span %.0f: %zu vs %zu pairs", k->name, span, got.size(), want.size());
        }
    }
}

TEST_CASE(sweeps_stop_at_the_sentinel_with_infinite_boxes) {
    Owned a(8);
    store_set(a.s, 1, 3e38f, 0, 3e38f, 1);  // x + r overflows to +inf
    store_set(a.s, 2, 3.3e38f, 0, 1, 1);
    store_set(a.s, 3, -3e38f, 0, 3e38f, 1);  // x - r overflows to -inf
    sweep_prepare(a.s, a.sw, true);
    // 1-2 overlap, 1-3 touch at x = 0; 2-3 are apart. The +inf max-x must not run past the end.
    for (const KernelTable* k : fixture::targets()) CHECK_MSG(complete(k, a.sw.boxes).size() == 2, "%s", k->name);
}

TEST_CASE(radix_sorts_agree_with_std_sort) {
    fixture::Rng g(2);
    std::vector<uint32_t> k(5000), v(5000), tk(5000), tv(5000);
    std::vector<std::pair<uint32_t, uint32_t>> want;
    for (uint32_t i = 0; i < 5000; ++i) {
        float f = static_cast<float>(g.uniform(-1e6, 1e6));
        if (i % 7 == 0) f = -0.0f;
        if (i % 11 == 0) f = 0.0f;
        k[i] = float_key(f);
        v[i] = i;
        want.push_back({k[i], i});
    }
    std::stable_sort(want.begin(), want.end(), [](auto a, auto b) { return a.first < b.first; });
    radix_sort32(k.data(), v.data(), tk.data(), tv.data(), k.size());
    bool same = true;
    for (uint32_t i = 0; i < 5000; ++i) same = same && k[i] == want[i].first && v[i] == want[i].second;
    CHECK(same);
    std::vector<uint64_t> w(3000), tw(3000);
    for (auto& x : w) x = int_key(static_cast<int64_t>(g.next()));
    std::vector<uint64_t> ws = w;
    std::sort(ws.begin(), ws.end());
    radix_sort64(w.data(), nullptr, tw.data(), nullptr, w.size());
    CHECK(w == ws);
}
