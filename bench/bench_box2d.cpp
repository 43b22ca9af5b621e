// Natively, no Lua: soageo's walls_cast against Box2D v3's b2World_CastRayClosest over the same
// 100,000 static segments (2-10 long, a third horizontal, a third vertical, one per 100 square
// units, all on one static body) and the same rays (5-50 long, from anywhere): CPU ns per ray
// (std::clock, as the Lua benchmarks' os.clock), median of timed rounds, the two in turn, each
// timed round after an untimed one. Both find the
// closest contact; the hits are compared (count, and the parameter within 1e-4). Built by
// `make bench-box2d BOX2D=<a Box2D v3 source directory>` against a Box2D compiled there
// (Release, SIMD as its CMake defaults); `make bench BOX2D=<dir>` runs it too. No Box2D code is
// in this repository.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <vector>

#include "box2d/box2d.h"
#include "core/walls.hpp"

namespace {

struct Rng {
    uint64_t s = 0x9e3779b97f4a7c15ull;
    double uniform() {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return double((s * 2685821657736338717ull) >> 11) * 0x1p-53;
    }
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main() {
    const uint32_t n = 100000, q = 200000;
    const double side = std::sqrt(100.0 * n), pi = 3.14159265358979323846;
    Rng g;
    std::vector<soageo::Seg> seg(n);
    for (uint32_t i = 0; i < n; ++i) {
        const double x = g.uniform() * side, y = g.uniform() * side, len = 2 + g.uniform() * 8;
        double dx = 0, dy = 0;
        if (i % 3 == 0) dx = len;
        else if (i % 3 == 1) dy = len;
        else {
            const double a = g.uniform() * 2 * pi;
            dx = len * std::cos(a), dy = len * std::sin(a);
        }
        seg[i] = {float(x), float(y), float(x + dx), float(y + dy)};
    }
    std::vector<float> ray(4 * size_t(q));
    for (uint32_t k = 0; k < q; ++k) {
        const double x = g.uniform() * side, y = g.uniform() * side;
        const double len = 5 + g.uniform() * 45, a = g.uniform() * 2 * pi;
        ray[4 * k] = float(x), ray[4 * k + 1] = float(y);
        ray[4 * k + 2] = float(x + len * std::cos(a)), ray[4 * k + 3] = float(y + len * std::sin(a));
    }

    // soageo: the index in plain memory.
    std::clock_t t0 = std::clock();
    const soageo::WallPlan plan = soageo::walls_plan(seg.data(), n);
    std::vector<uint32_t> block(soageo::walls_index_bytes(plan) / 4 + 1);
    soageo::Walls w{};
    soageo::walls_build(w, seg.data(), n, plan, block.data());
    const double build_soageo = double(std::clock() - t0) / CLOCKS_PER_SEC;

    // Box2D: one static body holding every segment.
    t0 = std::clock();
    b2WorldDef wd = b2DefaultWorldDef();
    wd.gravity = b2Vec2{0, 0};
    const b2WorldId world = b2CreateWorld(&wd);
    b2BodyDef bd = b2DefaultBodyDef();
    const b2BodyId body = b2CreateBody(world, &bd);
    b2ShapeDef sd = b2DefaultShapeDef();
    for (uint32_t i = 0; i < n; ++i) {
        b2Segment s{{seg[i].ax, seg[i].ay}, {seg[i].bx, seg[i].by}};
        b2CreateSegmentShape(body, &sd, &s);
    }
    b2World_Step(world, 1.0f / 60.0f, 4);
    b2World_RebuildStaticTree(world);  // its best static tree for the rays (Box2D's own call for static geometry)
    const double build_box2d = double(std::clock() - t0) / CLOCKS_PER_SEC;
    const b2QueryFilter filter = b2DefaultQueryFilter();

    std::vector<double> ts(q), tb(q);
    std::vector<char> hs(q), hb(q);
    auto run_soageo = [&] {
        for (uint32_t k = 0; k < q; ++k) {
            double t;
            uint32_t wall;
            hs[k] = soageo::walls_cast(w, ray[4 * k], ray[4 * k + 1], ray[4 * k + 2], ray[4 * k + 3], &t, &wall);
            ts[k] = hs[k] ? t : 2;
        }
    };
    auto run_box2d = [&] {
        for (uint32_t k = 0; k < q; ++k) {
            const b2Vec2 o{ray[4 * k], ray[4 * k + 1]};
            const b2Vec2 d{ray[4 * k + 2] - ray[4 * k], ray[4 * k + 3] - ray[4 * k + 1]};
            const b2RayResult r = b2World_CastRayClosest(world, o, d, filter);
            hb[k] = r.hit;
            tb[k] = r.hit ? r.fraction : 2;
        }
    };
    std::vector<double> rs, rb;
    for (int round = 0; round < 7; ++round) {
        run_soageo();
        std::clock_t a = std::clock();
        run_soageo();
        rs.push_back(double(std::clock() - a) / CLOCKS_PER_SEC / q);
        run_box2d();
        a = std::clock();
        run_box2d();
        rb.push_back(double(std::clock() - a) / CLOCKS_PER_SEC / q);
    }
    uint32_t hits_s = 0, hits_b = 0, differ = 0;
    for (uint32_t k = 0; k < q; ++k) {
        hits_s += hs[k];
        hits_b += hb[k];
        if (hs[k] != hb[k] || (hs[k] && std::fabs(ts[k] - tb[k]) > 1e-4)) ++differ;
    }
    const double s = median(rs), b = median(rb);
    std::printf("closest ray cast, natively, %u static segments, %u rays 5-50 long (ns per ray, median of 7 rounds):\n", n, q);
    std::printf("  Box2D v3 b2World_CastRayClosest %8.1f ns\n", b * 1e9);
    std::printf("  soageo walls_cast (exact)        %8.1f ns   %.2fx Box2D's speed\n", s * 1e9, b / s);
    std::printf("  hits: soageo %u, Box2D %u; rays whose answers differ (hit, or t by more than 1e-4): %u\n", hits_s, hits_b,
                differ);
    std::printf("  building: soageo %.1f ms, Box2D (shapes on one static body, one step, the tree rebuilt) %.1f ms\n", build_soageo * 1e3,
                build_box2d * 1e3);
    b2DestroyWorld(world);
    return 0;
}
