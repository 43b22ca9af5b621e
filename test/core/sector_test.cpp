// The sector kernels: exact boundary cases on the scalar reference, then every target against
// it on random and hostile data.
#include <cmath>
#include <limits>

#include "check.hpp"
#include "fixtures.hpp"

using namespace soageo;
using fixture::Cloud;

namespace {

const Filter no_filter{0, false};

std::vector<uint32_t> run(uint32_t (*k)(const Points&, const Sector&, Filter, uint32_t*) noexcept,
                          const Cloud& c, const Sector& s, Filter f) {
    std::vector<uint32_t> out(c.cap + kMaxWidth, 0xdeadbeef);
    uint32_t n = k(c.points(), s, f, out.data());
    out.resize(n);
    return out;
}

bool in1(const KernelTable* k, float x, float y, const Sector& s) {
    Cloud c(1);
    c.x[0] = x;
    c.y[0] = y;
    return run(k->in_sector, c, s, no_filter).size() == 1;
}

bool touch1(const KernelTable* k, float x, float y, float r, const Sector& s) {
    Cloud c(1);
    c.x[0] = x;
    c.y[0] = y;
    c.r[0] = r;
    return run(k->touch_sector, c, s, no_filter).size() == 1;
}

}  // namespace

TEST_CASE(point_in_sector_boundaries) {
    for (const KernelTable* k : fixture::targets()) {
        Sector s = make_sector(0, 0, 1, 0, 10, M_PI / 4);
        CHECK(in1(k, 5, 0, s));
        CHECK(!in1(k, 10, 0, s));           // on the arc
        CHECK(!in1(k, 0, 0, s));            // the apex
        CHECK(!in1(k, 5, 5, s));            // on the left edge ray
        CHECK(!in1(k, 5, -5, s));           // on the right edge ray
        CHECK(in1(k, 5, 4.99f, s));
        CHECK(!in1(k, -1, 0, s));
        Sector half = make_sector(0, 0, 1, 0, 10, M_PI / 2);
        CHECK(!in1(k, 0, 5, half));         // the half-plane's edge
        CHECK(!in1(k, 0, -5, half));
        CHECK(in1(k, 1e-30f, 5, half));
        CHECK(!in1(k, -1e-30f, 5, half));
        Sector full = make_sector(0, 0, 1, 0, 10, M_PI);
        CHECK(in1(k, 0, 0, full));          // full disk: apex inside
        CHECK(in1(k, -9.99f, 0, full));     // straight behind
        CHECK(!in1(k, -10, 0, full));
        Sector pac = make_sector(0, 0, 1, 0, 10, 3 * M_PI / 4);
        CHECK(in1(k, 0, 5, pac));
        CHECK(!in1(k, -5, 0, pac));
        CHECK(!in1(k, -5, 5, pac));         // on an edge of the reflex sector
        CHECK(in1(k, -5, 5.01f, pac));
        CHECK(!in1(k, -5, 4.99f, pac));
    }
}

TEST_CASE(disk_touch_sector_boundaries) {
    for (const KernelTable* k : fixture::targets()) {
        Sector s = make_sector(0, 0, 1, 0, 10, M_PI / 2);
        CHECK(touch1(k, 12, 0, 2, s));      // tangent to the arc
        CHECK(!touch1(k, 12.01f, 0, 2, s));
        CHECK(touch1(k, -3, 5, 3, s));      // tangent to the left edge (x = 0)
        CHECK(!touch1(k, -3.01f, 5, 3, s));
        CHECK(touch1(k, -3, 0, 3, s));      // tangent at the apex, from behind
        CHECK(!touch1(k, -3.01f, 0, 3, s));
        CHECK(touch1(k, 0, 13, 3, s));      // tangent at the edge's far end
        CHECK(!touch1(k, 0, 13.01f, 3, s));
        CHECK(touch1(k, 5, 0, 0, s));       // zero radius is the closed point test
        CHECK(touch1(k, 10, 0, 0, s));
        CHECK(touch1(k, 0, 0, 0, s));
        Sector narrow = make_sector(0, 0, 0, 1, 10, M_PI / 4);
        CHECK(touch1(k, 0, -1, 1, narrow)); // touches the apex from below
        CHECK(!touch1(k, 0, -1.01f, 1, narrow));
        Sector full = make_sector(0, 0, 1, 0, 10, M_PI);
        CHECK(touch1(k, -15, 0, 5, full));
        CHECK(!touch1(k, -15.01f, 0, 5, full));
    }
}

namespace {

// Every target must return exactly the reference's slots, in the same order.
void compare_all(const Cloud& c, const Sector& s, Filter f, const char* what) {
    const KernelTable* ref = fixture::reference();
    std::vector<uint32_t> want_in = run(ref->in_sector, c, s, f);
    std::vector<uint32_t> want_touch = run(ref->touch_sector, c, s, f);
    for (const KernelTable* k : fixture::targets()) {
        CHECK_MSG(run(k->in_sector, c, s, f) == want_in, "%s in_sector n=%u", k->name, c.n);
        CHECK_MSG(run(k->touch_sector, c, s, f) == want_touch, "%s touch_sector n=%u (%s)", k->name, c.n, what);
    }
}

Sector random_sector(fixture::Rng& g) {
    double half = g.uniform(0.01, M_PI);
    if (g.below(8) == 0) half = M_PI;
    if (g.below(8) == 0) half = M_PI / 2;
    return make_sector(g.uniform(-100, 100), g.uniform(-100, 100), g.uniform(-1, 1), g.uniform(-1, 1),
                       g.uniform(0, 150), half);
}

}  // namespace

TEST_CASE(every_target_equals_scalar_on_random_scenes) {
    fixture::Rng g(42);
    const uint32_t sizes[] = {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 100000};
    for (uint32_t n : sizes) {
        Cloud c(n);
        fixture::scatter(c, g, 200, 10, 4);
        for (int rep = 0; rep < (n > 1000 ? 10 : 50); ++rep) {
            Sector s = random_sector(g);
            compare_all(c, s, no_filter, "random");
            compare_all(c, s, Filter{3u, true}, "filtered");
        }
    }
}

TEST_CASE(every_target_equals_scalar_on_hostile_floats) {
    const std::vector<float> specials = fixture::hostile_floats();
    const uint32_t m = static_cast<uint32_t>(specials.size());
    Cloud c(fixture::hostile_size(3));
    fixture::fill_hostile(c, 3);
    fixture::Rng g(7);
    for (int rep = 0; rep < 200; ++rep) {
        Sector s = random_sector(g);
        if (rep % 3 == 0) s.radius = specials[g.below(m)];
        if (rep % 5 == 0) s.cx = specials[g.below(m)];
        compare_all(c, s, no_filter, "hostile");
    }
}
