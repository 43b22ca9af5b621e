// Walls and tiles in the core: the grid's answers against a scan of every wall, the exact
// edges of tiles, and coordinates far apart in magnitude. (The exact reference for every rule
// is the Lua one, test/walls_reference.lua.)
#include <cmath>
#include <cstring>
#include <vector>

#include "check.hpp"
#include "core/tiles.hpp"
#include "core/walls.hpp"
#include "fixtures.hpp"

using namespace soageo;

namespace {

struct Built {
    std::vector<Seg> seg;
    std::vector<uint32_t> block;
    Walls w{};
    explicit Built(std::vector<Seg> s) : seg(std::move(s)) {
        const uint32_t n = static_cast<uint32_t>(seg.size());
        WallPlan p = walls_plan(seg.data(), n);
        block.resize(walls_index_bytes(p) / sizeof(uint32_t) + 1);
        walls_build(w, seg.data(), n, p, block.data());
    }
};

// Integer points on a small lattice, so that collinear walls, shared ends and touching
// contacts are common.
Seg random_seg(fixture::Rng& g, int span, int len) {
    float ax = float(int(g.below(2 * span + 1)) - span), ay = float(int(g.below(2 * span + 1)) - span);
    if (g.below(8) == 0) return Seg{ax, ay, ax, ay};
    return Seg{ax, ay, ax + float(int(g.below(2 * len + 1)) - len), ay + float(int(g.below(2 * len + 1)) - len)};
}

}  // namespace

TEST_CASE(walls_index_matches_a_scan_of_every_wall) {
    fixture::Rng g(33);
    for (int scene = 0; scene < 40; ++scene) {
        std::vector<Seg> seg;
        const uint32_t n = g.below(60);
        for (uint32_t i = 0; i < n; ++i) seg.push_back(random_seg(g, 12, 1 + scene % 6));
        Built b(seg);
        for (int k = 0; k < 300; ++k) {
            const Seg q = random_seg(g, 14, 10);
            bool meets = false, blocks = false;
            uint32_t first_meeting = n;
            for (uint32_t i = 0; i < n; ++i) {
                if (seg_meets(q, seg[i])) {
                    meets = true;
                    if (first_meeting == n) first_meeting = i;
                }
                blocks = blocks || seg_blocks_open(q, seg[i]);
            }
            CHECK(walls_blocked(b.w, q.ax, q.ay, q.bx, q.by) == meets);
            CHECK(walls_visible(b.w, q.ax, q.ay, q.bx, q.by) == !blocks);
            double t = -1;
            uint32_t wall = n;
            const bool hit = walls_cast(b.w, q.ax, q.ay, q.bx, q.by, &t, &wall);
            CHECK(hit == meets);
            if (hit) {
                CHECK(wall < n && seg_meets(q, seg[wall]));
                CHECK(t >= 0 && t <= 1);
            }
        }
    }
}

TEST_CASE(walls_cast_ties_go_to_the_lowest_wall) {
    // Walls 1 and 2 share the end (5, 0) on the ray; wall 0 is behind it.
    Built b({Seg{8, -1, 8, 1}, Seg{5, 0, 5, 3}, Seg{5, 0, 7, -2}, Seg{5, -4, 5, 4}});
    double t;
    uint32_t wall;
    CHECK(walls_cast(b.w, 0, 0, 10, 0, &t, &wall));
    CHECK(wall == 1 && t == 0.5);
    // A collinear wall: the first point of the overlap.
    Built c({Seg{9, 0, 3, 0}});
    CHECK(walls_cast(c.w, 0, 0, 10, 0, &t, &wall) && wall == 0 && t == 0.3);
    CHECK(walls_cast(c.w, 10, 0, 0, 0, &t, &wall) && wall == 0 && std::fabs(t - 0.1) < 1e-15);
    // Seen from the collinear wall's end: open at the viewer, but the wall goes on along the line.
    CHECK(walls_visible(c.w, 3, 0, 0, 0));
    CHECK(!walls_visible(c.w, 9, 0, 5, 0));
    CHECK(walls_visible(c.w, 2, 0, 3, 0));
    CHECK(walls_visible(c.w, 9, 0, 12, 0));
}

TEST_CASE(walls_decide_exactly_far_from_the_origin) {
    // A wall whose line passes within rounding of a query end: only exact arithmetic knows.
    const float big = 16777216.0f;  // 2^24: ulp 2
    Built b({Seg{-big, 1, big, 1}, Seg{1e30f, 1e30f, 1e30f, 1e30f}});
    double t;
    uint32_t wall;
    CHECK(walls_cast(b.w, 0, 0, 0, 1, &t, &wall) && wall == 0 && t == 1.0);
    CHECK(!walls_blocked(b.w, 0, 0, 0, 0.99999994f));
    CHECK(walls_visible(b.w, 0, 0, 0, 1));  // the wall only touches the target
    CHECK(walls_blocked(b.w, 1e30f, 1e30f, 1e30f, 1e30f));
    CHECK(walls_cast(b.w, -1e30f, -1e30f, 1e30f, 1e30f, &t, &wall) && wall == 0);
    CHECK(std::fabs(t - 0.5) < 1e-9);
}

TEST_CASE(tiles_edges_are_exact_sums) {
    // Edges at x0 + col * cell as real numbers: 0.1f + 3 * 0.1f is not a float32.
    uint64_t bits[1] = {};
    TileMap m = tiles_make(bits, 8, 1, 0.1f, 0.0f, 0.1f);  // 8 x 1: only col 3 blocked
    tile_set(m, 3, 0, true);
    const double edge = double(0.1f) + 3.0 * double(0.1f);
    const float below = std::nextafter(float(edge), 0.0f) , above = std::nextafter(float(edge), 1.0f);
    const float lo = float(edge) < edge ? float(edge) : below, hi = float(edge) > edge ? float(edge) : above;
    CHECK(double(lo) < edge && double(hi) > edge);
    CHECK(!tiles_blocked(m, lo, 0.05f, lo, 0.05f));
    CHECK(tiles_blocked(m, hi, 0.05f, hi, 0.05f));
    double t;
    uint32_t c;
    CHECK(tiles_cast(m, 0.1f, 0.05f, 0.9f, 0.05f, &t, &c) && c == 3);
    CHECK(std::fabs(t - (edge - double(0.1f)) / (double(0.9f) - double(0.1f))) < 1e-12);
}

TEST_CASE(tiles_rays_along_edges_and_through_corners_touch) {
    // 4 x 4 of unit cells; only (2, 2) blocked.
    uint64_t bits[1] = {};
    TileMap m = tiles_make(bits, 4, 4, 0, 0, 1);
    tile_set(m, 2, 2, true);
    double t;
    uint32_t c;
    CHECK(tiles_blocked(m, 0, 2, 4, 2));           // along its lower edge
    CHECK(tiles_blocked(m, 0, 0, 2, 2));           // ending at its corner
    CHECK(!tiles_visible(m, 0, 2, 4, 2));
    CHECK(tiles_visible(m, 0, 0, 2, 2));           // the corner is the target
    CHECK(tiles_visible(m, 2, 2, 0, 0));           // the corner is the viewer
    CHECK(tiles_cast(m, 0, 4, 4, 0, &t, &c) && c == 10 && t == 0.5);  // through its corner (2, 2)
    CHECK(!tiles_blocked(m, 0, 1.5f, 4, 1.5f));
    CHECK(tiles_cast(m, 2.5f, 2.5f, 9, 9, &t, &c) && c == 10 && t == 0);
    CHECK(!tiles_visible(m, 2.5f, 2.5f, 9, 9));    // standing inside a blocked cell
}

TEST_CASE(walls_long_rays_past_the_listed_cells_match_a_scan) {
    // Short walls over a wide map: rays across it cross more cells than any_wall lists first.
    fixture::Rng g(34);
    std::vector<Seg> seg;
    for (int i = 0; i < 3000; ++i) {
        const float x = float(int(g.below(800))), y = float(int(g.below(800)));
        seg.push_back(Seg{x, y, x + float(int(g.below(3))) - 1, y + float(int(g.below(3))) - 1});
    }
    Built b(seg);
    CHECK(b.w.frame.cols > 40 && b.w.frame.rows > 40);
    int long_hits = 0;
    for (int k = 0; k < 400; ++k) {
        const Seg q{float(int(g.below(800))), 0, float(int(g.below(800))), 800};
        bool meets = false, blocks = false;
        for (const Seg& s : seg) {
            meets = meets || seg_meets(q, s);
            blocks = blocks || seg_blocks_open(q, s);
        }
        CHECK(walls_blocked(b.w, q.ax, q.ay, q.bx, q.by) == meets);
        CHECK(walls_visible(b.w, q.ax, q.ay, q.bx, q.by) == !blocks);
        long_hits += meets;
    }
    CHECK(long_hits > 0 && long_hits < 400);
}
