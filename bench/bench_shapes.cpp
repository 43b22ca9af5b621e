// Kernel benchmark of every shape: tests/s per target and the ratio to the scalar reference,
// then the 1000 sectors x 100,000 points benchmark (1e8 tests) run the way the batch API runs
// it, next to the 2013 figures of the point-in-sector write-up that proposed it.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <vector>

#include "../test/core/fixtures.hpp"
#include "bench.hpp"

using namespace soageo;
using bench::Clock;

namespace {

using bench::seconds_since;

template <class Shape>
using Kernel = uint32_t (*)(const Points&, const Shape&, Filter, uint32_t*) noexcept;

// Best of `reps` passes over all shapes; returns seconds per pass.
template <class Shape>
double time_shapes(Kernel<Shape> k, const fixture::Cloud& c, const std::vector<Shape>& shapes,
                   std::vector<uint32_t>& out, int reps, uint64_t* hits) {
    return bench::best_of(reps, [&] {
        uint64_t h = 0;
        for (const Shape& s : shapes) h += k(c.points(), s, Filter{0, false}, out.data());
        *hits = h;
    });
}

template <class Shape>
void report(const char* name, Kernel<Shape> KernelTable::*which, const fixture::Cloud& c,
            const std::vector<Shape>& shapes, std::vector<uint32_t>& out) {
    double tests = double(c.n) * shapes.size(), scalar = 0;
    for (const KernelTable* k : fixture::targets()) {
        uint64_t hits = 0;
        double t = time_shapes(k->*which, c, shapes, out, 3, &hits);
        if (k == fixture::reference()) scalar = t;
        float sink = 0;
        const bench::Stream probe = bench::stream_of(k);
        double stream = bench::best_of(3, [&] {
            for (size_t i = 0; i < shapes.size(); ++i) sink += probe(c.points());
        });
        std::printf("%-15s %-8s %10.1f Mtests/s %8.2fx scalar %6.2fx ceiling  (hit rate %.2f%%)%s\n", name, k->name,
                    tests / t / 1e6, scalar / t, stream / t, 100.0 * hits / tests, sink == 1.5f ? " " : "");
    }
}

// CPU time of this thread: on a machine shared by many processes, wall time also counts the
// slices other processes ran in, which a 2 ms pass often escapes and a 200 ms one never does
// (wall-clock ratios swung from 6x to 110x between runs that way).
double thread_seconds() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// The skill shapes against their targets. Every target runs one pass in turn, round after
// round (so a burst of load hits all of them alike), after one untimed warm-up pass each; each
// target's figure is the median of its rounds, in thread CPU time.
template <class Shape>
void report_target(const char* name, Kernel<Shape> KernelTable::*which, const fixture::Cloud& c,
                   const std::vector<Shape>& shapes, std::vector<uint32_t>& out, double target) {
    const std::vector<const KernelTable*> ks = fixture::targets();
    const int rounds = 9;
    std::vector<std::vector<double>> t(ks.size());
    std::vector<uint64_t> hits(ks.size(), 0);
    auto pass = [&](size_t i) {
        uint64_t h = 0;
        double t0 = thread_seconds();
        for (const Shape& s : shapes) h += (ks[i]->*which)(c.points(), s, Filter{0, false}, out.data());
        hits[i] = h;
        return thread_seconds() - t0;
    };
    // The ceiling: the same target's loop that only streams x and y (x, y and r for touch
    // kernels read 1.5x as much), over as many entities.
    std::vector<std::vector<double>> st(ks.size());
    float sink = 0;
    auto stream = [&](size_t i) {
        double t0 = thread_seconds();
        for (size_t j = 0; j < shapes.size(); ++j) sink += bench::stream_of(ks[i])(c.points());
        return thread_seconds() - t0;
    };
    for (size_t i = 0; i < ks.size(); ++i) pass(i);
    for (int r = 0; r < rounds; ++r)
        for (size_t i = 0; i < ks.size(); ++i) t[i].push_back(pass(i)), st[i].push_back(stream(i));
    double tests = double(c.n) * shapes.size(), scalar = 0, best_ratio = 0;
    const char* best = "";
    for (size_t i = 0; i < ks.size(); ++i) {
        std::sort(t[i].begin(), t[i].end());
        std::sort(st[i].begin(), st[i].end());
        double m = t[i][rounds / 2];
        if (ks[i] == fixture::reference()) scalar = m;
        if (scalar / m > best_ratio) best_ratio = scalar / m, best = ks[i]->name;
        std::printf("%-15s %-8s %8.3f ms/pass %8.2f ns/test %8.2fx scalar %6.2fx xy-stream ceiling  (hit rate %.2f%%)%s\n",
                    name, ks[i]->name, m * 1e3, m / tests * 1e9, scalar / m, st[i][rounds / 2] / m, 100.0 * hits[i] / tests,
                    sink == 1.5f ? " " : "");
    }
    std::printf("%-15s best %s %.2fx scalar: target >= %.0fx %s\n", name, best, best_ratio, target,
                best_ratio >= target ? "met" : "MISSED");
}

}  // namespace

int main() {
    fixture::Rng g(4);
    const uint32_t n = 100000;
    fixture::Cloud c(n);
    for (uint32_t i = 0; i < n; ++i) {
        c.x[i] = static_cast<float>(g.uniform(0, 2000));
        c.y[i] = static_cast<float>(g.uniform(0, 2000));
        c.r[i] = static_cast<float>(g.uniform(0.5, 3));
        c.mask[i] = 1;
    }
    std::vector<uint32_t> out(c.cap + kMaxWidth);
    auto u = [&](double lo, double hi) { return static_cast<float>(g.uniform(lo, hi)); };
    std::vector<Circle> circles;
    std::vector<Box> boxes;
    std::vector<Capsule> capsules;
    std::vector<Triangle> triangles;
    std::vector<Segment> segments;
    for (int i = 0; i < 100; ++i) {
        circles.push_back({u(0, 2000), u(0, 2000), u(50, 150)});
        float x = u(0, 2000), y = u(0, 2000);
        boxes.push_back({x, y, x + u(50, 250), y + u(50, 250)});
        float dx = u(-200, 200), dy = u(-200, 200);
        capsules.push_back({x, y, dx, dy, dx * dx + dy * dy, u(5, 30)});
        triangles.push_back({x, y, x + u(-250, 250), y + u(-250, 250), x + u(-250, 250), y + u(-250, 250)});
        segments.push_back({x, y, u(-400, 400), u(-400, 400)});
    }
    std::printf("shape kernels, 100 shapes x 100,000 entities uniform in 2000x2000 (best of 3, one run)\n");
    std::printf("x ceiling: kernel speed / speed of a loop that only streams x and y at the same width\n");
    report("in_circle", &KernelTable::in_circle, c, circles, out);
    report("touch_circle", &KernelTable::touch_circle, c, circles, out);
    report("in_box", &KernelTable::in_box, c, boxes, out);
    report("touch_box", &KernelTable::touch_box, c, boxes, out);
    report("touch_capsule", &KernelTable::touch_capsule, c, capsules, out);
    report("in_triangle", &KernelTable::in_triangle, c, triangles, out);
    report("touch_triangle", &KernelTable::touch_triangle, c, triangles, out);
    report("cast_segment", &KernelTable::cast_segment, c, segments, out);

    // Skill shapes: rectangles 50-250 long and 20-120 wide in any direction, rings of outer
    // radius 50-150 with a hole of 30-90% of it, octagons (both windings) of radius 50-150.
    std::vector<Rect> rects;
    std::vector<Ring> rings;
    std::vector<Polygon> octagons;
    for (int i = 0; i < 100; ++i) {
        double a = g.uniform(0, 2 * M_PI);
        rects.push_back(make_rect(u(0, 2000), u(0, 2000), std::cos(a), std::sin(a), u(50, 250), u(10, 60)));
        float outer = u(50, 150);
        rings.push_back({u(0, 2000), u(0, 2000), outer * u(0.3f, 0.9f), outer});
        float xs[8], ys[8], cx = u(0, 2000), cy = u(0, 2000), rad = u(50, 150), turn = u(0, 1);
        for (int k = 0; k < 8; ++k) {
            double t = (i % 2 ? -1 : 1) * 2 * M_PI * (k + turn) / 8;
            xs[k] = static_cast<float>(cx + rad * std::cos(t));
            ys[k] = static_cast<float>(cy + rad * 0.7 * std::sin(t));
        }
        Polygon p;
        uint32_t at;
        if (make_polygon(xs, ys, 8, p, &at) == PolygonError::ok) octagons.push_back(p);
    }
    std::printf("\nskill shapes, 100 shapes x 100,000 entities (%zu octagons), median of 9 rounds (targets in turn)\n"
                "after a warm-up, in thread CPU time (the machine is shared); ratios side by side in this run\n",
                octagons.size());
    report_target("in_rect", &KernelTable::in_rect, c, rects, out, 8);
    report_target("touch_rect", &KernelTable::touch_rect, c, rects, out, 8);
    report_target("in_ring", &KernelTable::in_ring, c, rings, out, 8);
    report_target("touch_ring", &KernelTable::touch_ring, c, rings, out, 8);
    report_target("in_polygon", &KernelTable::in_polygon, c, octagons, out, 4);
    report_target("touch_polygon", &KernelTable::touch_polygon, c, octagons, out, 4);

    // The 1000 sectors x 100,000 points benchmark: all random, as in_sector_batch runs them.
    fixture::Cloud pts(n);
    for (uint32_t i = 0; i < n; ++i) {
        pts.x[i] = static_cast<float>(g.uniform(-1, 1));
        pts.y[i] = static_cast<float>(g.uniform(-1, 1));
        pts.mask[i] = 1;
    }
    std::vector<Sector> sectors;
    for (int i = 0; i < 1000; ++i) {
        double a = g.uniform(0, 2 * M_PI);
        sectors.push_back(make_sector(g.uniform(-1, 1), g.uniform(-1, 1), std::cos(a), std::sin(a), g.uniform(0, 2),
                                      g.uniform(0, M_PI)));
    }
    std::printf("\nthe 1000 sectors x 100,000 points benchmark = 1e8 in_sector tests\n");
    std::printf("  the 2013 point-in-sector write-up: naive 3.96 s (39.6 ns/test), SSE SoA v4 0.121 s (1.21 ns/test)\n");
    double scalar = 0;
    for (const KernelTable* k : fixture::targets()) {
        uint64_t hits = 0;
        double t = time_shapes(k->in_sector, pts, sectors, out, 2, &hits);
        if (k == fixture::reference()) scalar = t;
        std::printf("  %-8s %.3f s  %.3f ns/test  %6.2fx scalar  %6.1fx its 2013 SSE  (hit rate %.1f%%)\n", k->name,
                    t, t / 1e8 * 1e9, scalar / t, 0.121 / t, 100.0 * hits / 1e8);
    }
    return 0;
}
