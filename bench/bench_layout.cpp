// Column layout and 4 KB aliasing: in_circle over a layer of capacity 10,000 and of 10,240
// (whose 40,960-byte columns are a multiple of 4 KB), once on the columns as columns_carve lays
// them out (staggered starts) and once on the same columns packed back to back (the layout
// before the stagger). Prints ns per 16-entity block; the ratio 10,240 / 10,000 should be ~1.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../test/core/fixtures.hpp"
#include "bench.hpp"

using namespace soageo;

namespace {

// x, y, r, mask, hits back to back, each on a 64-byte line: the old columns_carve.
struct Packed {
    void* block;
    float *x, *y, *r;
    uint32_t *mask, *hits;
    explicit Packed(uint32_t cap) {
        size_t col = ((size_t(padded(cap)) * 4 + 63) / 64) * 64;
        block = std::aligned_alloc(kAlign, col * 5);
        std::memset(block, 0, col * 5);
        auto* p = static_cast<unsigned char*>(block);
        x = reinterpret_cast<float*>(p);
        y = reinterpret_cast<float*>(p + col);
        r = reinterpret_cast<float*>(p + 2 * col);
        mask = reinterpret_cast<uint32_t*>(p + 3 * col);
        hits = reinterpret_cast<uint32_t*>(p + 4 * col);
    }
    ~Packed() { std::free(block); }
};

// One timed pass: every circle over the columns, in ns per 16-entity block.
double pass(const KernelTable* k, const Points& p, uint32_t* hits, const std::vector<Circle>& circles, uint64_t* sink) {
    return bench::best_of(1, [&] {
        for (int rep = 0; rep < 10; ++rep)
            for (const Circle& c : circles) *sink += k->in_circle(p, c, Filter{0, false}, hits);
    }) / (10.0 * circles.size() * (padded(p.n) / 16.0)) * 1e9;
}

}  // namespace

int main() {
    const uint32_t n = 10000;
    fixture::Rng g(10240);
    std::vector<float> xs(n), ys(n);
    for (uint32_t i = 0; i < n; ++i) xs[i] = float(g.uniform(0, 1000)), ys[i] = float(g.uniform(0, 1000));
    std::vector<Circle> circles;
    for (int i = 0; i < 50; ++i) circles.push_back({float(g.uniform(0, 1000)), float(g.uniform(0, 1000)), float(g.uniform(100, 600))});
    std::printf("in_circle, %u entities, 50 circles (radius 100..600 in 1000x1000), ns per 16-entity block, best pass of 40 rounds\n", n);
    std::printf("%-8s %22s %22s\n", "", "staggered (now)", "packed (before)");
    std::printf("%-8s %7s %7s %6s %7s %7s %6s\n", "target", "10000", "10240", "ratio", "10000", "10240", "ratio");
    // The four layouts are timed in turns, round after round, each keeping its best pass: a
    // noisy machine then disturbs all four alike.
    std::vector<unsigned char> blocks[2] = {std::vector<unsigned char>(columns_bytes(10000)),
                                            std::vector<unsigned char>(columns_bytes(10240))};
    Columns cols[2] = {columns_carve(blocks[0].data(), 10000), columns_carve(blocks[1].data(), 10240)};
    Packed packed0(10000), packed1(10240);
    Packed* packed[2] = {&packed0, &packed1};
    for (int c = 0; c < 2; ++c)
        for (uint32_t i = 0; i < n; ++i) {
            cols[c].x[i] = packed[c]->x[i] = xs[i];
            cols[c].y[i] = packed[c]->y[i] = ys[i];
            cols[c].mask[i] = packed[c]->mask[i] = 1;
        }
    uint64_t sink = 0;
    for (const KernelTable* k : fixture::targets()) {
        double t[2][2] = {{1e30, 1e30}, {1e30, 1e30}};
        for (int round = 0; round < 40; ++round)
            for (int c = 0; c < 2; ++c) {
                t[0][c] = std::min(t[0][c], pass(k, Points{cols[c].x, cols[c].y, cols[c].r, cols[c].mask, n}, cols[c].hits, circles, &sink));
                const Packed& q = *packed[c];
                t[1][c] = std::min(t[1][c], pass(k, Points{q.x, q.y, q.r, q.mask, n}, q.hits, circles, &sink));
            }
        std::printf("%-8s %7.2f %7.2f %6.2f %7.2f %7.2f %6.2f\n", k->name, t[0][0], t[0][1], t[0][1] / t[0][0], t[1][0],
                    t[1][1], t[1][1] / t[1][0]);
    }
    if (sink == 1) std::printf(" \n");
    return 0;
}
