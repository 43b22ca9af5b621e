// Oriented rectangles, rings and convex polygons: every target against the scalar reference,
// the polygon test against exact integer arithmetic, the validation of polygons, and the
// routing bounds against every hit.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "agree.hpp"
#include "check.hpp"
#include "fixtures.hpp"

using namespace soageo;
using fixture::Cloud;

namespace {

using fixture::run;
using fixture::agree;

// A convex polygon: m points on an ellipse at sorted random angles, rounded to float32, kept
// only if make_polygon accepts it (rounding can make a nearly straight turn reflex).
bool random_polygon(fixture::Rng& g, double cx, double cy, double span, uint32_t m, bool clockwise, Polygon& out) {
    float xs[kMaxPolygon], ys[kMaxPolygon];
    double a[kMaxPolygon];
    for (uint32_t k = 0; k < m; ++k) a[k] = g.uniform(0, 2 * M_PI);
    std::sort(a, a + m);
    double rx = g.uniform(0.1, 1) * span, ry = g.uniform(0.1, 1) * span;
    for (uint32_t k = 0; k < m; ++k) {
        uint32_t at = clockwise ? m - 1 - k : k;
        xs[at] = static_cast<float>(cx + rx * std::cos(a[k]));
        ys[at] = static_cast<float>(cy + ry * std::sin(a[k]));
    }
    uint32_t v;
    return make_polygon(xs, ys, m, out, &v) == PolygonError::ok;
}

void compare_skill_shapes(const Cloud& c, fixture::Rng& g, Filter f, double span) {
    auto u = [&](double lo, double hi) { return g.uniform(lo, hi); };
    double len = g.below(6) == 0 ? 0 : u(0, span), hw = g.below(6) == 0 ? 0 : u(0, span / 2);
    double dx = u(-1, 1), dy = u(-1, 1);
    if (g.below(4) == 0) dy = 0;
    if (dx == 0 && dy == 0) dx = 1;
    Rect r = make_rect(u(-span, span), u(-span, span), dx, dy, len, hw);
    agree(&KernelTable::in_rect, "in_rect", c, r, f);
    agree(&KernelTable::touch_rect, "touch_rect", c, r, f);
    float outer = static_cast<float>(u(0, span)), inner = g.below(5) == 0 ? outer : static_cast<float>(u(0, outer));
    Ring ring{static_cast<float>(u(-span, span)), static_cast<float>(u(-span, span)), inner, outer};
    agree(&KernelTable::in_ring, "in_ring", c, ring, f);
    agree(&KernelTable::touch_ring, "touch_ring", c, ring, f);
    Polygon p;
    uint32_t m = 3 + g.below(g.below(3) == 0 ? 62 : 8);
    if (random_polygon(g, u(-span, span), u(-span, span), span, m, g.below(2) == 0, p)) {
        agree(&KernelTable::in_polygon, "in_polygon", c, p, f);
        agree(&KernelTable::touch_polygon, "touch_polygon", c, p, f);
    }
}

// Exact orientation on integers (|v| < 2^30, so the determinant fits in 64 bits).
int orient_int(int64_t ax, int64_t ay, int64_t bx, int64_t by, int64_t px, int64_t py) {
    int64_t d = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
    return d > 0 ? 1 : (d < 0 ? -1 : 0);
}

}  // namespace

TEST_CASE(skill_shapes_every_target_equals_scalar_on_random_scenes) {
    fixture::Rng g(23);
    fixture::on_random_scenes(g, [&](const Cloud& c, Filter f) { compare_skill_shapes(c, g, f, 100); });
}

TEST_CASE(skill_shapes_every_target_equals_scalar_on_hostile_floats) {
    Cloud c(fixture::hostile_size(2, {1e-30f, 1e7f}));
    fixture::fill_hostile(c, 2, {1e-30f, 1e7f});
    fixture::Rng g(6);
    for (int rep = 0; rep < 100; ++rep) compare_skill_shapes(c, g, Filter{0, false}, rep % 3 == 0 ? 1e30 : (rep % 3 ? 10 : 1e-30));
}

TEST_CASE(rect_and_ring_boundaries_are_as_documented) {
    Cloud c(16);
    const float pts[16][3] = {
        {0, 0, 0}, {10, 0, 0}, {10, 2, 0}, {5, -2, 0}, {std::nextafter(10.0f, 11.0f), 0, 0}, {5, std::nextafter(2.0f, 3.0f), 0},
        {-1, 0, 1}, {13, 6, 5}, {-0.5f, 0, 0}, {13, 6, std::nextafter(5.0f, 0.0f)}, {5, 0, 0}, {3, 4, 0},
        {13, 0, 8}, {13, 0, 8 - 0x1p-20f}, {0, 0, 5}, {0, 0, 5 - 0x1p-21f},
    };
    for (uint32_t i = 0; i < 16; ++i) c.x[i] = pts[i][0], c.y[i] = pts[i][1], c.r[i] = pts[i][2], c.mask[i] = 1;
    Rect r = make_rect(0, 0, 3, 0, 10, 2);
    CHECK(r.ux == 1.0f && r.uy == 0.0f);
    Rect point = make_rect(5, 0, -1, 1, 0, 0);
    Ring ring{0, 0, 5, 5}, donut{0, 0, 5, 10};
    for (const KernelTable* k : fixture::targets()) {
        CHECK_MSG((run(k->in_rect, c, r, Filter{0, false}) == std::vector<uint32_t>{0, 1, 2, 3, 10, 14, 15}), "%s in_rect", k->name);
        CHECK_MSG((run(k->touch_rect, c, r, Filter{0, false}) == std::vector<uint32_t>{0, 1, 2, 3, 6, 7, 10, 12, 13, 14, 15}), "%s touch_rect", k->name);
        CHECK_MSG((run(k->in_rect, c, point, Filter{0, false}) == std::vector<uint32_t>{10}), "%s point rect", k->name);
        CHECK_MSG((run(k->in_ring, c, ring, Filter{0, false}).empty()), "%s inner = outer", k->name);
        CHECK_MSG((run(k->in_ring, c, donut, Filter{0, false}) == std::vector<uint32_t>{3, 5, 10, 11}), "%s in_ring", k->name);
        CHECK_MSG((run(k->touch_ring, c, ring, Filter{0, false}) == std::vector<uint32_t>{10, 11, 12, 14}), "%s touch thin ring", k->name);
    }
}

TEST_CASE(polygon_decides_exactly_on_edges_corners_and_one_step_off_at_every_scale) {
    fixture::Rng g(29);
    for (int rep = 0; rep < 3000; ++rep) {
        // Integer vertices of a convex polygon (a random convex hull is overkill: a skewed
        // octagon with some collinear midpoints), scaled by 2^e, which is exact.
        int64_t cx = static_cast<int64_t>(g.below(1 << 20)) - (1 << 19), cy = static_cast<int64_t>(g.below(1 << 20)) - (1 << 19);
        int64_t s = 1 + g.below(1 << 12);
        const int64_t base[8][2] = {{2, 0}, {4, 0}, {6, 2}, {6, 4}, {4, 6}, {2, 6}, {0, 4}, {0, 2}};
        int64_t vx[16], vy[16];
        uint32_t m = 0;
        for (int k = 0; k < 8; ++k) {
            vx[m] = cx + base[k][0] * s, vy[m] = cy + base[k][1] * s, ++m;
            if (g.below(3) == 0) {  // an exact midpoint: a collinear vertex
                int nx = (k + 1) % 8;
                vx[m] = cx + (base[k][0] + base[nx][0]) * s / 2, vy[m] = cy + (base[k][1] + base[nx][1]) * s / 2, ++m;
            }
        }
        int e = static_cast<int>(g.below(200)) - 140;
        bool clockwise = g.below(2) == 0;
        float xs[16], ys[16];
        for (uint32_t k = 0; k < m; ++k) {
            uint32_t at = clockwise ? m - 1 - k : k;
            xs[at] = std::ldexp(static_cast<float>(vx[k]), e);
            ys[at] = std::ldexp(static_cast<float>(vy[k]), e);
        }
        Polygon p;
        uint32_t bad;
        CHECK_MSG(make_polygon(xs, ys, m, p, &bad) == PolygonError::ok, "rep %d", rep);
        // Points on edges, on corners, and one integer step either side; inside and far.
        Cloud c(64);
        int64_t px[64], py[64];
        for (uint32_t i = 0; i < 64; ++i) {
            uint32_t k = g.below(m), nx = (k + 1) % m;
            int64_t t = g.below(3);  // 0: the corner, 1: the midpoint-ish, 2: the next corner
            int64_t qx = vx[k] + (vx[nx] - vx[k]) * t / 2, qy = vy[k] + (vy[nx] - vy[k]) * t / 2;
            if (((vx[nx] - vx[k]) * t) % 2 || ((vy[nx] - vy[k]) * t) % 2) qx = vx[k], qy = vy[k];
            qx += static_cast<int64_t>(g.below(3)) - 1;
            qy += static_cast<int64_t>(g.below(3)) - 1;
            if (i % 16 == 0) qx = cx + 3 * s, qy = cy + 3 * s;
            px[i] = qx, py[i] = qy;
            c.x[i] = std::ldexp(static_cast<float>(qx), e);
            c.y[i] = std::ldexp(static_cast<float>(qy), e);
            c.r[i] = 0;
            c.mask[i] = 1;
        }
        std::vector<uint32_t> want;
        for (uint32_t i = 0; i < 64; ++i) {
            bool in = true;
            for (uint32_t k = 0; k < m; ++k) {
                uint32_t nx = (k + 1) % m;
                if (orient_int(vx[k], vy[k], vx[nx], vy[nx], px[i], py[i]) < 0) in = false;
            }
            if (in) want.push_back(i);
        }
        for (const KernelTable* k : fixture::targets()) {
            CHECK_MSG(run(k->in_polygon, c, p, Filter{0, false}) == want, "%s rep %d e %d", k->name, rep, e);
            // r = 0: touching is being in, or lying on an edge to within float32 rounding.
            std::vector<uint32_t> touch = run(k->touch_polygon, c, p, Filter{0, false});
            for (uint32_t w : want) CHECK_MSG(std::find(touch.begin(), touch.end(), w) != touch.end(), "%s touch rep %d", k->name, rep);
        }
    }
}

TEST_CASE(polygon_validation_names_the_vertex) {
    auto check = [](std::initializer_list<float> coords, PolygonError want, uint32_t want_vertex) {
        std::vector<float> v(coords), xs, ys;
        for (size_t i = 0; i + 1 < v.size(); i += 2) xs.push_back(v[i]), ys.push_back(v[i + 1]);
        Polygon p;
        uint32_t at = 99;
        PolygonError e = make_polygon(xs.data(), ys.data(), static_cast<uint32_t>(xs.size()), p, &at);
        CHECK_MSG(e == want && (want == PolygonError::ok || want == PolygonError::winds_twice || at == want_vertex),
                  "got error %d at %u, want %d at %u", static_cast<int>(e), at, static_cast<int>(want), want_vertex);
        return p;
    };
    Polygon sq = check({0, 0, 1, 0, 1, 1, 0, 1}, PolygonError::ok, 0);
    CHECK(sq.n == 4 && sq.x[1] == 1 && sq.y[1] == 0);
    Polygon cw = check({0, 0, 0, 1, 1, 1, 1, 0}, PolygonError::ok, 0);  // stored counter-clockwise
    CHECK(cw.n == 4 && cw.x[0] == 1 && cw.y[0] == 0 && cw.x[1] == 1 && cw.y[1] == 1);
    Polygon dup = check({0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0}, PolygonError::ok, 0);
    CHECK(dup.n == 4);
    check({0, 0, 1, 0, 2, 0, 2, 1}, PolygonError::ok, 0);  // collinear vertex
    check({0, 0, 1, 0}, PolygonError::count, 0);
    check({0, 0, 1, 0, 1, 0, 1, 0}, PolygonError::too_few, 2);
    check({0, 0, 1, 1, 0, 0}, PolygonError::too_few, 2);
    check({0, 0, 2, 0, 1, 0, 1, 1}, PolygonError::turns_back, 1);
    check({0, 0, 1, 0, 2, 0}, PolygonError::turns_back, 0);
    check({0, 0, 2, 0, 2, 2, 1, 0.5f, 0, 2}, PolygonError::reflex, 3);
    check({0, 0, 2, 0, 2, 2, 1, 2 - 0x1p-22f, 0, 2}, PolygonError::reflex, 3);  // a hair reflex
    check({0, 0, 2, 0, 2, 2, 1, 2, 0, 2}, PolygonError::ok, 0);              // exactly straight
    // A pentagram: every turn the same way, winding twice.
    float sx[5], sy[5];
    for (int k = 0; k < 5; ++k) sx[k] = static_cast<float>(std::cos(4 * M_PI * k / 5)), sy[k] = static_cast<float>(std::sin(4 * M_PI * k / 5));
    Polygon p;
    uint32_t at;
    CHECK(make_polygon(sx, sy, 5, p, &at) == PolygonError::winds_twice);
    std::vector<float> big(65, 0.0f);
    CHECK(make_polygon(big.data(), big.data(), 65, p, &at) == PolygonError::count);
}

TEST_CASE(routing_bounds_hold_every_hit) {
    fixture::Rng g(31);
    auto inside = [](const Box& b, float x, float y) { return b.minx <= x && x <= b.maxx && b.miny <= y && y <= b.maxy; };
    for (double span : {1e-30, 1.0, 100.0, 1e7}) {
        Cloud c(4000);
        float maxr = 0;
        for (uint32_t i = 0; i < c.n; ++i) {
            c.x[i] = static_cast<float>(g.uniform(-span, span));
            c.y[i] = static_cast<float>(g.uniform(-span, span));
            c.r[i] = static_cast<float>(g.uniform(0, span / 10));
            maxr = std::max(maxr, c.r[i]);
            c.mask[i] = 1;
        }
        const KernelTable* k = fixture::reference();
        for (int rep = 0; rep < 40; ++rep) {
            Rect r = make_rect(g.uniform(-span, span), g.uniform(-span, span), g.uniform(-1, 1), g.uniform(-1, 1),
                               g.uniform(0, span), g.uniform(0, span / 3));
            for (uint32_t s : run(k->in_rect, c, r, Filter{0, false})) CHECK(inside(rect_bounds(r, 0), c.x[s], c.y[s]));
            for (uint32_t s : run(k->touch_rect, c, r, Filter{0, false})) CHECK(inside(rect_bounds(r, maxr), c.x[s], c.y[s]));
            float outer = static_cast<float>(g.uniform(0, span));
            Ring ring{static_cast<float>(g.uniform(-span, span)), static_cast<float>(g.uniform(-span, span)), outer / 2, outer};
            for (uint32_t s : run(k->in_ring, c, ring, Filter{0, false})) CHECK(inside(ring_bounds(ring, 0), c.x[s], c.y[s]));
            for (uint32_t s : run(k->touch_ring, c, ring, Filter{0, false})) CHECK(inside(ring_bounds(ring, maxr), c.x[s], c.y[s]));
            Polygon p;
            if (random_polygon(g, g.uniform(-span, span), g.uniform(-span, span), span, 8, rep % 2, p)) {
                for (uint32_t s : run(k->in_polygon, c, p, Filter{0, false})) CHECK(inside(polygon_bounds(p, 0), c.x[s], c.y[s]));
                for (uint32_t s : run(k->touch_polygon, c, p, Filter{0, false}))
                    CHECK(inside(polygon_bounds(p, maxr), c.x[s], c.y[s]));
            }
        }
    }
}
