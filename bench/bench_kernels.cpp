// Kernel benchmark in the shape of the 1000 sectors x 100,000 points benchmark: S sectors x N
// random points, every target, one run.
// Prints tests/s, the ratio to the scalar reference and to the streaming ceiling (a loop that
// only reads the x and y columns, at the same width: what memory allows).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "../test/core/fixtures.hpp"
#include "bench.hpp"

using namespace soageo;

namespace {

using SectorKernel = uint32_t (*)(const Points&, const Sector&, Filter, uint32_t*) noexcept;

// Best of `reps` runs of all sectors over the cloud; returns seconds and the hit count.
double time_kernel(SectorKernel k, const fixture::Cloud& c, const std::vector<Sector>& sectors,
                   std::vector<uint32_t>& out, int reps, uint64_t* hits) {
    return bench::best_of(reps, [&] {
        uint64_t h = 0;
        for (const Sector& s : sectors) h += k(c.points(), s, Filter{0, false}, out.data());
        *hits = h;
    });
}

double time_stream(const KernelTable* k, const fixture::Cloud& c, size_t passes, int reps, float* sink) {
    const bench::Stream stream = bench::stream_of(k);
    return bench::best_of(reps, [&] {
        for (size_t i = 0; i < passes; ++i) *sink += stream(c.points());
    });
}

void run(uint32_t n, uint32_t sector_count, int reps) {
    fixture::Rng g(2013);
    fixture::Cloud c(n);
    for (uint32_t i = 0; i < n; ++i) {
        c.x[i] = static_cast<float>(g.uniform(-1, 1));
        c.y[i] = static_cast<float>(g.uniform(-1, 1));
        c.r[i] = static_cast<float>(g.uniform(0, 0.01));
        c.mask[i] = 1;
    }
    std::vector<Sector> sectors;
    for (uint32_t i = 0; i < sector_count; ++i) {  // random apex, direction, radius, angle
        double a = g.uniform(0, 2 * M_PI);
        sectors.push_back(make_sector(g.uniform(-1, 1), g.uniform(-1, 1), std::cos(a), std::sin(a),
                                      g.uniform(0, 2), g.uniform(0, M_PI)));
    }
    std::vector<uint32_t> out(c.cap + kMaxWidth);
    double tests = double(n) * sector_count;
    std::printf("\n%u sectors x %u points (%.0e tests)\n", sector_count, n, tests);
    std::printf("%-8s %-13s %12s %10s %12s %10s\n", "target", "query", "Mtests/s", "x scalar", "ns/test", "x ceiling");
    const char* names[] = {"in_sector", "touch_sector"};
    SectorKernel KernelTable::*which[] = {&KernelTable::in_sector, &KernelTable::touch_sector};
    for (int q = 0; q < 2; ++q) {
        double scalar_rate = 0;
        for (const KernelTable* k : fixture::targets()) {
            uint64_t hits = 0;
            double t = time_kernel(k->*which[q], c, sectors, out, reps, &hits);
            float sink = 0;
            double ts = time_stream(k, c, sector_count, reps, &sink);
            double rate = tests / t, ceiling = tests / ts;
            if (k == fixture::reference()) scalar_rate = rate;
            std::printf("%-8s %-13s %12.1f %10.2f %12.4f %10.2f   (hit rate %.1f%%%s)\n", k->name, names[q], rate / 1e6,
                        rate / scalar_rate, 1e9 / rate, rate / ceiling, 100.0 * double(hits) / tests,
                        sink == 12345.0f ? "" : "");
        }
    }
}

}  // namespace

int main() {
    std::printf("soageo kernel benchmark (best of several runs; ratios measured in this one run)\n");
    std::printf("x scalar: speed-up over the scalar reference; x ceiling: kernel speed / speed of a loop\n");
    std::printf("that only streams the same x,y columns at the same width (1.0 = memory-bound)\n");
    run(100000, 100, 5);
    run(1000000, 20, 3);
    return 0;
}
