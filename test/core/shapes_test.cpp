// The other shape kernels: every target against the scalar reference, and the exactness of the
// triangle predicate.
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

void compare_all_shapes(const Cloud& c, fixture::Rng& g, Filter f, double span) {
    auto u = [&](double lo, double hi) { return static_cast<float>(g.uniform(lo, hi)); };
    Circle circle{u(-span, span), u(-span, span), u(0, span)};
    agree(&KernelTable::in_circle, "in_circle", c, circle, f);
    agree(&KernelTable::touch_circle, "touch_circle", c, circle, f);
    float x0 = u(-span, span), y0 = u(-span, span);
    Box box{x0, y0, x0 + u(0, span), y0 + u(0, span)};
    agree(&KernelTable::in_box, "in_box", c, box, f);
    agree(&KernelTable::touch_box, "touch_box", c, box, f);
    float dx = u(-span, span), dy = u(-span, span);
    if (g.below(5) == 0) dx = 0;
    Capsule cap{x0, y0, dx, dy, dx * dx + dy * dy, u(0, span / 4)};
    if (cap.len2 > 0) agree(&KernelTable::touch_capsule, "touch_capsule", c, cap, f);
    Triangle t{u(-span, span), u(-span, span), u(-span, span), u(-span, span), u(-span, span), u(-span, span)};
    if (g.below(4) == 0) {  // degenerate: c on the line a-b
        t.cx = t.ax + (t.bx - t.ax) * 0.5f;
        t.cy = t.ay + (t.by - t.ay) * 0.5f;
    }
    agree(&KernelTable::in_triangle, "in_triangle", c, t, f);
    agree(&KernelTable::touch_triangle, "touch_triangle", c, t, f);
    Segment seg{x0, y0, g.below(4) == 0 ? 0.0f : u(-span, span), g.below(4) == 0 ? 0.0f : u(-span, span)};
    agree(&KernelTable::cast_segment, "cast_segment", c, seg, f);
}

}  // namespace

TEST_CASE(every_shape_target_equals_scalar_on_random_scenes) {
    fixture::Rng g(11);
    fixture::on_random_scenes(g, [&](const Cloud& c, Filter f) { compare_all_shapes(c, g, f, 100); });
}

TEST_CASE(every_shape_target_equals_scalar_on_hostile_floats) {
    Cloud c(fixture::hostile_size(2));
    fixture::fill_hostile(c, 2);
    fixture::Rng g(5);
    for (int rep = 0; rep < 100; ++rep) compare_all_shapes(c, g, Filter{0, false}, rep % 2 ? 1e30 : 10);
}

TEST_CASE(orient_exact_agrees_with_integer_arithmetic_at_every_scale) {
    fixture::Rng g(17);
    for (int rep = 0; rep < 200000; ++rep) {
        int64_t v[6];
        for (int64_t& x : v) x = static_cast<int64_t>(g.below(1u << 21)) - (1 << 20);
        if (rep % 3 == 0) {  // nearly or exactly collinear: p = a + k (b - a) / 8, nudged
            int64_t k = static_cast<int64_t>(g.below(17)) - 8;
            v[4] = v[0] + ((v[2] - v[0]) * k) / 8 + static_cast<int64_t>(g.below(3)) - 1;
            v[5] = v[1] + ((v[3] - v[1]) * k) / 8 + static_cast<int64_t>(g.below(3)) - 1;
        }
        int64_t det = (v[2] - v[0]) * (v[5] - v[1]) - (v[3] - v[1]) * (v[4] - v[0]);
        int want = det > 0 ? 1 : det < 0 ? -1 : 0;
        int e = static_cast<int>(g.below(240)) - 140;  // scaling by 2^e is exact for these floats
        float f[6];
        for (int k = 0; k < 6; ++k) f[k] = std::ldexp(static_cast<float>(v[k]), e);
        CHECK_MSG(orient_exact(f[0], f[1], f[2], f[3], f[4], f[5]) == want, "rep %d e %d", rep, e);
    }
}

TEST_CASE(triangle_decides_the_recast_case_exactly_and_degenerate_hulls) {
    // The recast triangle case's "inside" point is about 8e-7 outside edge b-c, on the decimals and on floats.
    Triangle t{261.137939f, 8.13000488f, 73.6379318f, 8.13000488f, 76.9379349f, 10.2300053f};
    CHECK(orient_exact(t.ax, t.ay, t.bx, t.by, t.cx, t.cy) < 0);             // clockwise
    CHECK(orient_exact(t.bx, t.by, t.cx, t.cy, 74.4069519f, 8.6193819f) > 0);  // so p is outside b-c
    CHECK(!in_triangle_exact(t, 74.4069519f, 8.6193819f));
    Triangle flat{0, 0, 4, 4, 2, 2};
    CHECK(in_triangle_exact(flat, 1, 1));
    CHECK(in_triangle_exact(flat, 4, 4));
    CHECK(!in_triangle_exact(flat, 5, 5));
    CHECK(!in_triangle_exact(flat, 1, 1.0000001f));
    Triangle dot{3, 3, 3, 3, 3, 3};
    CHECK(in_triangle_exact(dot, 3, 3));
    CHECK(!in_triangle_exact(dot, 3, 3.0000002f));
    for (const KernelTable* k : fixture::targets()) {
        Cloud c(3);
        c.x[0] = 74.4069519f, c.y[0] = 8.6193819f;   // outside (the recast triangle case)
        c.x[1] = 100.0f, c.y[1] = 9.0f;              // inside
        c.x[2] = 73.6379318f, c.y[2] = 8.13000488f;  // a vertex: closed
        std::vector<uint32_t> got = run(k->in_triangle, c, t, Filter{0, false});
        CHECK_MSG((got == std::vector<uint32_t>{1, 2}), "%s", k->name);
    }
}

TEST_CASE(segment_cast_handles_parallel_and_zero_length_segments) {
    for (const KernelTable* k : fixture::targets()) {
        Cloud c(4);
        c.x[0] = 5, c.y[0] = 0, c.r[0] = 1;   // straddles the x axis
        c.x[1] = 5, c.y[1] = 1, c.r[1] = 0;   // a point box exactly on y = 1
        c.x[2] = 5, c.y[2] = 3, c.r[2] = 1;   // above the segment
        c.x[3] = 0, c.y[3] = 0, c.r[3] = 0.5; // contains the start
        std::vector<uint32_t> got = run(k->cast_segment, c, Segment{0, 0, 10, 0}, Filter{0, false});
        CHECK_MSG((got == std::vector<uint32_t>{0, 3}), "%s horizontal", k->name);
        got = run(k->cast_segment, c, Segment{0, 1, 10, 0}, Filter{0, false});
        CHECK_MSG((got == std::vector<uint32_t>{0, 1}), "%s touching edges", k->name);
        got = run(k->cast_segment, c, Segment{0, 0, 0, 0}, Filter{0, false});
        CHECK_MSG((got == std::vector<uint32_t>{3}), "%s zero length", k->name);
        got = run(k->cast_segment, c, Segment{5, -5, 0, 10}, Filter{0, false});
        CHECK_MSG((got == std::vector<uint32_t>{0, 1, 2}), "%s vertical", k->name);
        got = run(k->cast_segment, c, Segment{0, 0, 4, 0}, Filter{0, false});
        CHECK_MSG((got == std::vector<uint32_t>{0, 3}), "%s ends on a box edge", k->name);
    }
    Segment s{0, 0, 10, 0};
    CHECK(segment_entry(s, 5, 0, 1) == 0.4f);
    CHECK(segment_entry(s, 0, 0, 0.5f) == 0.0f);
    CHECK(segment_entry(Segment{0, 0, 4, 0}, 5, 0, 1) == 1.0f);
}
