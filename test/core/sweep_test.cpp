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

// rerank after adds and removes gives the ranking rank_ids makes of the new ids from scratch,
// and maps each old rank to the new rank of the same id (kNoSlot: removed); the payload (a
// slot per id) follows.
TEST_CASE(rerank_equals_ranking_the_new_ids_anew) {
    fixture::Rng g(41);
    for (int rep = 0; rep < 200; ++rep) {
        const uint32_t n = g.below(300);
        std::vector<int64_t> ids;
        while (ids.size() < n) {
            const int64_t id = static_cast<int64_t>(g.next() % 2000) - 1000;
            if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
        }
        std::vector<uint64_t> keys(n + 1), tk(n + 1);
        std::vector<uint32_t> slots(n + 1), rank(n + 1), tv(n + 1);
        rank_ids(ids.data(), n, keys.data(), slots.data(), rank.data(), tk.data(), tv.data());
        // Remove some ranks, add ids not there, each a slot of its own past n.
        std::vector<uint32_t> removed;
        for (uint32_t r = 0; r < n; ++r)
            if (g.below(8) == 0) removed.push_back(r);
        std::vector<int64_t> added;
        for (uint32_t a = g.below(kMaxMembersBehind + 1); added.size() < a;) {
            const int64_t id = static_cast<int64_t>(g.next() % 4000) - 2000;
            if (std::find(ids.begin(), ids.end(), id) == ids.end() &&
                std::find(added.begin(), added.end(), id) == added.end())
                added.push_back(id);
        }
        std::sort(added.begin(), added.end());
        std::vector<uint64_t> added_key;
        std::vector<uint32_t> added_at, added_slot;
        for (size_t a = 0; a < added.size(); ++a) {
            added_key.push_back(int_key(added[a]));
            const auto at = std::lower_bound(keys.begin(), keys.begin() + n, added_key[a]);
            added_at.push_back(uint32_t(at - keys.begin()));
            added_slot.push_back(n + uint32_t(a));
        }
        const uint32_t n_removed = uint32_t(removed.size()), n_added = uint32_t(added.size());
        const RankChanges ch{removed.data(), n_removed, added_key.data(), added_at.data(), added_slot.data(), n_added};
        const size_t cap = n + added.size() + 1;
        std::vector<uint64_t> out_keys(cap);
        std::vector<uint32_t> out_slots(cap), remap(n + 1), added_rank(added.size() + 1);
        const uint32_t m = rerank(keys.data(), slots.data(), n, ch, out_keys.data(), out_slots.data(), remap.data(),
                                  added_rank.data());
        // The same ids, ranked from scratch.
        std::vector<int64_t> now;
        std::vector<uint32_t> now_slot;
        for (uint32_t r = 0; r < n; ++r)
            if (!std::binary_search(removed.begin(), removed.end(), r)) {
                now.push_back(key_int(keys[r]));
                now_slot.push_back(slots[r]);
            }
        for (size_t a = 0; a < added.size(); ++a) now.push_back(added[a]), now_slot.push_back(added_slot[a]);
        std::vector<size_t> order(now.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return now[a] < now[b]; });
        bool same = m == now.size();
        for (uint32_t r = 0; same && r < m; ++r)
            same = key_int(out_keys[r]) == now[order[r]] && out_slots[r] == now_slot[order[r]];
        for (uint32_t r = 0; same && r < n; ++r) {
            const bool gone = std::binary_search(removed.begin(), removed.end(), r);
            same = gone ? remap[r] == kNoSlot : out_keys[remap[r]] == keys[r];
        }
        for (size_t a = 0; same && a < added.size(); ++a) same = out_keys[added_rank[a]] == added_key[a];
        CHECK_MSG(same, "rep %d: %u ids, %zu removed, %zu added", rep, n, removed.size(), added.size());
    }
}
