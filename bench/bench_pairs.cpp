// Pairs: soageo's sort-and-sweep (radix sort + SIMD sweep, per target) against two plain C++
// references built with the same flags, both std::sort on min-x: a branchy sweep pushing back
// each pair, and a branchless sweep (the strongest plain C++ we know, the one ratios are of).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../test/core/fixtures.hpp"
#include "bench.hpp"
#include "core/bands.hpp"
#include "core/dispatch.hpp"
#include "core/sweep.hpp"

using namespace soageo;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Scene : fixture::SweepWorld {
    std::vector<unsigned char> pairs;
    PairBuffer buf;
    explicit Scene(uint32_t n) : SweepWorld(n) {}
    void make_room(uint64_t cap) {  // the binding grows its buffer the same way
        pairs.assign(pair_buffer_bytes(cap) + kAlign, 0);
        buf = pair_buffer_carve(pairs.data(), cap);
    }
};

// The plain reference: an array of boxes, std::sort by min-x, a branchy sweep.
struct Plain {
    float minx, maxx, miny, maxy;
    uint32_t slot;
};

uint64_t plain_pairs(const Store& st, std::vector<Plain>& boxes, std::vector<std::pair<uint32_t, uint32_t>>& out) {
    boxes.clear();
    out.clear();
    for (uint32_t i = 0; i < st.n; ++i) {
        float x = st.col.x[i], y = st.col.y[i], r = st.col.r[i];
        boxes.push_back({x - r, x + r, y - r, y + r, i});
    }
    std::sort(boxes.begin(), boxes.end(), [](const Plain& a, const Plain& b) { return a.minx < b.minx; });
    for (size_t i = 0; i < boxes.size(); ++i)
        for (size_t j = i + 1; j < boxes.size() && boxes[j].minx <= boxes[i].maxx; ++j)
            if (boxes[j].miny <= boxes[i].maxy && boxes[i].miny <= boxes[j].maxy) out.push_back({boxes[i].slot, boxes[j].slot});
    return out.size();
}

// The branchless reference: the same sorted boxes, but the sweep stores every candidate pair
// into a buffer sized in advance (as soageo's is) and advances by the y-overlap test, so no
// branch depends on the data but the end of each run (2.5-4x faster than the branchy one here).
uint64_t branchless_pairs(const Store& st, std::vector<Plain>& boxes, std::vector<uint32_t>& a, std::vector<uint32_t>& b) {
    boxes.clear();
    for (uint32_t i = 0; i < st.n; ++i) {
        float x = st.col.x[i], y = st.col.y[i], r = st.col.r[i];
        boxes.push_back({x - r, x + r, y - r, y + r, i});
    }
    std::sort(boxes.begin(), boxes.end(), [](const Plain& p, const Plain& q) { return p.minx < q.minx; });
    const Plain* bx = boxes.data();
    const size_t n = boxes.size();
    uint32_t* oa = a.data();
    uint32_t* ob = b.data();
    uint64_t k = 0;  // a.size() > the pair count: the store at k never overruns
    for (size_t i = 0; i < n; ++i) {
        const Plain p = bx[i];
        for (size_t j = i + 1; j < n && bx[j].minx <= p.maxx; ++j) {
            oa[k] = p.slot;
            ob[k] = bx[j].slot;
            k += static_cast<uint64_t>((bx[j].miny <= p.maxy) & (p.miny <= bx[j].maxy));
        }
    }
    return k;
}

void run(const char* name, uint32_t n, double span, double rmin, double rmax) {
    fixture::Rng g(n);
    Scene sc(n);
    for (uint32_t i = 0; i < n; ++i)
        store_set(sc.s, i, static_cast<float>(g.uniform(0, span)), static_cast<float>(g.uniform(0, span)),
                  static_cast<float>(g.uniform(rmin, rmax)), 1);
    std::vector<Plain> boxes;
    std::vector<std::pair<uint32_t, uint32_t>> out;
    sweep_prepare(sc.s, sc.sw, false);
    uint64_t count = fixture::reference()->sweep_complete(sc.sw.boxes, nullptr, nullptr, 0);
    sc.make_room(count + 1);
    out.reserve(count);
    boxes.reserve(n);
    const int reps = n > 50000 ? 5 : 20;
    double plain = 1e30;
    uint64_t plain_n = 0;
    for (int r = 0; r < reps; ++r) {
        Clock::time_point t0 = Clock::now();
        plain_n = plain_pairs(sc.s, boxes, out);
        plain = std::min(plain, seconds_since(t0));
    }
    std::vector<uint32_t> ba(count + 1), bb(count + 1);
    double branchless = 1e30;
    uint64_t branchless_n = 0;
    for (int r = 0; r < reps; ++r) {
        Clock::time_point t0 = Clock::now();
        branchless_n = branchless_pairs(sc.s, boxes, ba, bb);
        branchless = std::min(branchless, seconds_since(t0));
    }
    std::printf("\n%s: %u boxes, %llu pairs; plain C++ std::sort + branchy push_back sweep: %.3f ms;"
                " std::sort + branchless sweep: %.3f ms%s\n", name, n, static_cast<unsigned long long>(plain_n),
                plain * 1e3, branchless * 1e3, branchless_n == plain_n ? "" : "  COUNT MISMATCH");
    std::printf("  ratios below are of the branchless plain C++ sweep (the branchy one is %.2fx slower)\n",
                plain / branchless);
    for (const KernelTable* k : fixture::targets()) {
        double best = 1e30, with_order = 1e30;
        uint64_t total = 0;
        for (int r = 0; r < reps; ++r) {
            Clock::time_point t0 = Clock::now();
            sweep_prepare(sc.s, sc.sw, false);
            total = k->sweep_complete(sc.sw.boxes, sc.buf.a, sc.buf.b, sc.buf.cap);
            best = std::min(best, seconds_since(t0));
            t0 = Clock::now();
            sweep_prepare(sc.s, sc.sw, true);
            total = k->sweep_complete(sc.sw.boxes, sc.buf.a, sc.buf.b, sc.buf.cap);
            order_pairs(sc.buf, total, sc.sw, sc.sw, true);
            with_order = std::min(with_order, seconds_since(t0));
        }
        std::printf("  soageo %-7s sweep %.3f ms (%5.2fx branchless)   sweep + pairs sorted by id %.3f ms (%5.2fx branchless)%s\n",
                    k->name, best * 1e3, branchless / best, with_order * 1e3, branchless / with_order,
                    total == plain_n ? "" : "  COUNT MISMATCH");
    }
}

// The alternative the design asked to measure: keep last call's order and insertion-sort it
// after everyone moved a little, instead of radix-sorting from scratch.
void sort_choice(uint32_t n, double span) {
    fixture::Rng g(7);
    Scene sc(n);
    for (uint32_t i = 0; i < n; ++i)
        store_set(sc.s, i, static_cast<float>(g.uniform(0, span)), static_cast<float>(g.uniform(0, span)),
                  static_cast<float>(g.uniform(2.5, 15)), 1);
    std::vector<uint32_t> order(n);
    std::vector<float> key(n);
    for (uint32_t i = 0; i < n; ++i) order[i] = i;
    double radix = 1e30, insertion = 1e30;
    for (int tick = 0; tick < 10; ++tick) {
        for (uint32_t i = 0; i < n; ++i) sc.s.col.x[i] += static_cast<float>(g.uniform(-2, 2));  // a tick's moves
        Clock::time_point t0 = Clock::now();
        sweep_prepare(sc.s, sc.sw, false);
        radix = std::min(radix, seconds_since(t0));
        t0 = Clock::now();
        for (uint32_t i = 0; i < n; ++i) key[i] = sc.s.col.x[order[i]] - sc.s.col.r[order[i]];
        for (uint32_t i = 1; i < n; ++i) {
            float k = key[i];
            uint32_t o = order[i], j = i;
            for (; j > 0 && key[j - 1] > k; --j) key[j] = key[j - 1], order[j] = order[j - 1];
            key[j] = k, order[j] = o;
        }
        insertion = std::min(insertion, seconds_since(t0));
    }
    std::printf("  sorting %u boxes by min-x after a tick of moves (up to 2 units): radix sort + box gather %.3f ms,"
                " insertion sort of last order (keys only) %.3f ms\n", n, radix * 1e3, insertion * 1e3);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// What layer:pairs does natively, on the target it dispatches to: the plain path (one sweep of
// the whole layer, as below 32,768 boxes, then order_pairs) against the banded path
// (bands.hpp: sweep_banded alone, then pairs_banded, the sweep with its pairs in id order) on
// the same layer, alternating in each round; both give the pairs as layer:pairs returns them.
void bands_vs_plain(const char* name, uint32_t n, double span, int rounds) {
    fixture::Rng g(n + 1);
    Scene sc(n);
    for (uint32_t i = 0; i < n; ++i)
        store_set(sc.s, i + 1, static_cast<float>(g.uniform(0, span)), static_cast<float>(g.uniform(0, span)),
                  static_cast<float>(g.uniform(2.5, 15)), 1);
    const KernelTable* k = kernels_best();
    sweep_prepare(sc.s, sc.sw, true);
    const uint64_t count = k->sweep_complete(sc.sw.boxes, nullptr, nullptr, 0);
    BandPlan plan = band_plan(sc.sw.boxes);
    const bool forced = !plan.bands;
    if (forced) plan = band_plan(sc.sw.boxes, 0);  // below the threshold: what bands would cost there
    std::vector<unsigned char> band_block(band_scratch_bytes(plan.entries, plan.bands) + kAlign);
    BandScratch bs = band_scratch_carve(band_block.data(), plan.entries, plan.bands);
    Scene other(1);
    other.make_room(count + 1);
    sc.make_room(count + 1);
    // One round: prepare (radix sort of min-x, id ranks kept), sweep, order; each step timed.
    auto plain = [&](double* t) {
        Clock::time_point t0 = Clock::now();
        sweep_prepare(sc.s, sc.sw, true);
        t[0] = seconds_since(t0);
        t0 = Clock::now();
        uint64_t m = k->sweep_complete(sc.sw.boxes, sc.buf.a, sc.buf.b, sc.buf.cap);
        t[1] = seconds_since(t0);
        t0 = Clock::now();
        order_pairs(sc.buf, m, sc.sw, sc.sw, true);
        t[2] = seconds_since(t0);
        return m;
    };
    auto banded = [&](double* t) {
        Clock::time_point t0 = Clock::now();
        sweep_prepare(sc.s, sc.sw, true);
        t[0] = seconds_since(t0);
        t0 = Clock::now();
        const BandPlan p = forced ? band_plan(sc.sw.boxes, 0) : band_plan(sc.sw.boxes);
        uint64_t m = sweep_banded(p, sc.sw.boxes, bs, k->sweep_complete, other.buf.a, other.buf.b, other.buf.cap);
        t[1] = seconds_since(t0);  // the sweep alone: pairs as positions, in band order
        if (m > other.buf.cap) return m;
        t0 = Clock::now();
        // What layer:pairs runs: the sweep again, its pairs keyed by id rank as they are kept,
        // then sorted.
        const BandPlan q = forced ? band_plan(sc.sw.boxes, 0) : band_plan(sc.sw.boxes);
        m = pairs_banded(q, sc.sw, bs, k->sweep_complete, other.buf);
        t[2] = seconds_since(t0);
        return m;
    };
    double warm[3];
    uint64_t np = plain(warm), nb = banded(warm);
    if (nb > other.buf.cap) {  // bands find a pair in each band both boxes touch: room for all
        other.make_room(nb);
        nb = banded(warm);
    }
    const bool same = np == count && nb == count && !std::memcmp(sc.buf.keys, other.buf.keys, count * sizeof(uint64_t));
    std::vector<double> tp[4], tb[4];
    for (int r = 0; r < rounds; ++r) {
        double t[3];
        plain(t);
        tp[0].push_back(t[0]), tp[1].push_back(t[1]), tp[2].push_back(t[2]), tp[3].push_back(t[0] + t[1] + t[2]);
        banded(t);
        tb[0].push_back(t[0]), tb[1].push_back(t[1]), tb[2].push_back(t[2]), tb[3].push_back(t[0] + t[2]);
    }
    double p[4], b[4];
    for (int i = 0; i < 4; ++i) p[i] = median(tp[i]) * 1e3, b[i] = median(tb[i]) * 1e3;
    std::printf("\n%s: %u boxes, %llu pairs, %u bands%s (%s, medians of %d rounds)%s\n", name, n,
                static_cast<unsigned long long>(count), plan.bands, forced ? " (forced: layer:pairs sweeps plain here)" : "",
                k->name, rounds, same ? "" : "  PAIRS DIFFER");
    std::printf("  sort by min-x + id ranks   plain %8.2f ms   banded %8.2f ms\n", p[0], b[0]);
    std::printf("  sweep alone                plain %8.2f ms   banded %8.2f ms   %5.2fx\n", p[1], b[1], p[1] / b[1]);
    std::printf("  sweep + order by id        plain %8.2f ms   banded %8.2f ms   %5.2fx  (plain: order %.2f ms)\n",
                p[1] + p[2], b[2], (p[1] + p[2]) / b[2], p[2]);
    std::printf("  layer:pairs natively       plain %8.2f ms   banded %8.2f ms   %5.2fx  (sort + sweep + order)\n", p[3],
                b[3], p[3] / b[3]);
}

// pair_count and pairs_between, plain against banded on the dispatched target, alternating
// in each round: the count of one layer, and the pairs (ordered) between two layers that share
// a world, `na` and `nb` entities (bands forced when band_plan_between would not choose them).
void count_and_between(const char* name, uint32_t na, uint32_t nb, double span, int rounds) {
    fixture::Rng g(na + nb);
    Scene a(na), b(nb);
    for (uint32_t i = 0; i < na; ++i)
        store_set(a.s, i + 1, static_cast<float>(g.uniform(0, span)), static_cast<float>(g.uniform(0, span)),
                  static_cast<float>(g.uniform(2.5, 15)), 1);
    for (uint32_t i = 0; i < nb; ++i)
        store_set(b.s, i + 1, static_cast<float>(g.uniform(0, span)), static_cast<float>(g.uniform(0, span)),
                  static_cast<float>(g.uniform(2.5, 15)), 1);
    const KernelTable* k = kernels_best();
    sweep_prepare(a.s, a.sw, true);
    sweep_prepare(b.s, b.sw, true);
    uint64_t entries_b = 0;
    BandPlan plan = band_plan_between(a.sw.boxes, b.sw.boxes, &entries_b);
    const bool chosen = plan.bands > 0;
    if (!chosen) plan = band_plan_between(a.sw.boxes, b.sw.boxes, &entries_b, 0);
    const uint64_t between = k->sweep_between(a.sw.boxes, b.sw.boxes, nullptr, nullptr, 0);
    std::vector<unsigned char> block_a(band_scratch_bytes(plan.entries, plan.bands) + kAlign);
    std::vector<unsigned char> block_b(band_scratch_bytes(entries_b, plan.bands) + kAlign);
    BandScratch ba = band_scratch_carve(block_a.data(), plan.entries, plan.bands);
    BandScratch bb = band_scratch_carve(block_b.data(), entries_b, plan.bands);
    const BandPlan count_plan = band_plan(a.sw.boxes, 0);
    std::vector<unsigned char> block_c(band_scratch_bytes(count_plan.count_entries, 2 * count_plan.bands) + kAlign);
    BandScratch bc = band_scratch_carve(block_c.data(), count_plan.count_entries, 2 * count_plan.bands);
    Scene other(1);
    a.make_room(between + 1);
    other.make_room(2 * between + 64);
    uint32_t none = 0;
    auto plain_between = [&] {
        sweep_prepare(a.s, a.sw, true);
        sweep_prepare(b.s, b.sw, true);
        uint64_t m = k->sweep_between(a.sw.boxes, b.sw.boxes, a.buf.a, a.buf.b, a.buf.cap);
        order_pairs(a.buf, m, a.sw, b.sw, false);
        return m;
    };
    auto banded_between = [&] {
        sweep_prepare(a.s, a.sw, true);
        sweep_prepare(b.s, b.sw, true);
        return pairs_banded_between(plan, a.sw, b.sw, ba, bb, k->sweep_between, other.buf);
    };
    auto plain_count = [&] {
        sweep_prepare(a.s, a.sw, false);
        return k->sweep_complete(a.sw.boxes, &none, &none, 0);
    };
    auto banded_count = [&] {
        sweep_prepare(a.s, a.sw, false);
        return count_banded(band_plan(a.sw.boxes, 0), a.sw.boxes, bc, k->sweep_complete);
    };
    const uint64_t pb = plain_between(), bb_n = banded_between(), pc = plain_count(), bc_n = banded_count();
    const bool same = pb == between && bb_n == between && pc == bc_n &&
                      !std::memcmp(a.buf.keys, other.buf.keys, between * sizeof(uint64_t));
    std::vector<double> t[4];
    for (int r = 0; r < rounds; ++r) {
        t[0].push_back(bench::best_of(1, plain_between));
        t[1].push_back(bench::best_of(1, banded_between));
        t[2].push_back(bench::best_of(1, plain_count));
        t[3].push_back(bench::best_of(1, banded_count));
    }
    double m[4];
    for (int i = 0; i < 4; ++i) m[i] = median(t[i]) * 1e3;
    std::printf("\n%s (%s, medians of %d rounds)%s\n", name, k->name, rounds, same ? "" : "  RESULTS DIFFER");
    std::printf("  pairs_between, %llu pairs, %u bands%s   plain %8.2f ms   banded %8.2f ms   %5.2fx\n",
                static_cast<unsigned long long>(between), plan.bands, chosen ? "" : " (forced: plain here)", m[0], m[1],
                m[0] / m[1]);
    std::printf("  pair_count of the first, %llu pairs%s   plain %8.2f ms   banded %8.2f ms   %5.2fx\n",
                static_cast<unsigned long long>(pc), band_plan(a.sw.boxes).bands ? "" : " (forced: plain here)", m[2],
                m[3], m[2] / m[3]);
}

}  // namespace

int main() {
    std::printf("pairs benchmark (best of several runs, one process; radius 2.5..15)\n");
    run("uniform 10,000 in 2000x2000", 10000, 2000, 2.5, 15);
    run("uniform 100,000 in 6325x6325 (same density)", 100000, 6325, 2.5, 15);
    run("clustered 10,000 in 200x200", 10000, 200, 2.5, 15);
    std::printf("\nlayer:pairs in y bands against one sweep of the whole layer (radius 2.5..15, density of 10,000 in 2000x2000)\n");
    bands_vs_plain("uniform 10,000 in 2000x2000", 10000, 2000, 31);
    bands_vs_plain("uniform 1,000,000 in 20000x20000", 1000000, 20000, 5);
    std::printf("\npair_count and pairs_between in y bands against the plain sweep (same density)\n");
    count_and_between("uniform 1,000,000 and 250,000 in 20000x20000", 1000000, 250000, 20000, 3);
    count_and_between("uniform 1,000,000 and 10,000 in 20000x20000 (one layer a hundredth of the other)", 1000000,
                      10000, 20000, 3);
    std::printf("\nradix sort or insertion sort of the previous order?\n");
    sort_choice(10000, 2000);
    sort_choice(100000, 6325);
    return 0;
}
