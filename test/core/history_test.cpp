// What layer:commit relies on: which mutations mark a store as changed since the last commit
// (positions only, or shapes), and the interpolation rule of core/history.cpp.
#include <cmath>
#include <cstring>
#include <vector>

#include "check.hpp"
#include "core/history.hpp"
#include "fixtures.hpp"

using namespace soageo;

TEST_CASE(store_mutations_mark_what_changed_since_the_last_commit) {
    const uint32_t cap = 64;
    std::vector<unsigned char> col(columns_bytes(cap)), map(idmap_bytes(idmap_cap_for(cap)));
    Store s{columns_carve(col.data(), cap), idmap_init(map.data(), idmap_cap_for(cap)), 0, 0, {}, 0, 0, 0};
    store_set(s, 1, 0, 0, 1, 1);
    CHECK(s.since_commit == kCommitShape);  // an add
    s.since_commit = 0;
    store_set(s, 1, 5, 5, 1, 1);
    CHECK(s.since_commit == kCommitMoved);  // same radius and mask: a move
    s.since_commit = 0;
    store_move(s, 0, 2, 2);
    CHECK(s.since_commit == kCommitMoved);
    s.since_commit = 0;
    const uint32_t slot = 0;
    const float xy[2] = {3, 3};
    store_move_many(s, &slot, xy, 1);
    CHECK(s.since_commit == kCommitMoved);
    s.since_commit = 0;
    store_move_many(s, &slot, xy, 0);
    CHECK(s.since_commit == 0);  // an empty batch changes nothing
    store_set(s, 1, 3, 3, 2, 1);
    CHECK(s.since_commit & kCommitShape);  // another radius
    s.since_commit = 0;
    store_set(s, 2, 0, 0, 0, 1);
    s.since_commit = 0;
    CHECK(store_remove(s, 1));
    CHECK(s.since_commit & kCommitShape);
    s.since_commit = 0;
    CHECK(!store_remove(s, 1));
    CHECK(s.since_commit == 0);
    store_clear(s);
    CHECK(s.since_commit & kCommitShape);
}

TEST_CASE(frame_interpolate_follows_ids_and_rounds_once) {
    const uint32_t cap = 64;
    std::vector<unsigned char> col(columns_bytes(cap)), map(idmap_bytes(idmap_cap_for(cap)));
    Store next{columns_carve(col.data(), cap), idmap_init(map.data(), idmap_cap_for(cap)), 0, 0, {}, 0, 0, 0};
    // Tick t: ids 10, 20, 30 at x = 0, 1, 1e7; tick t + 1: 30 and 10 (20 gone), in other slots.
    const float x0[3] = {0.0f, 1.0f, 1e7f}, y0[3] = {0.0f, -1.0f, 0.1f};
    const int64_t id0[3] = {10, 20, 30};
    store_set(next, 30, 1e7f + 1.0f, 0.3f, 0, 1);
    store_set(next, 10, 3.0f, 16777216.0f, 0, 1);
    float x[3], y[3];
    for (double alpha : {0.5, 1.0 / 3.0, 1.0}) {
        frame_interpolate(x0, y0, id0, 3, next.col.x, next.col.y, next.map, false, alpha, x, y);
        CHECK(x[0] == static_cast<float>(0.0 + alpha * 3.0));
        CHECK(y[0] == static_cast<float>(0.0 + alpha * 16777216.0));
        CHECK(x[1] == 1.0f && y[1] == -1.0f);  // only at t: stays
        CHECK(x[2] == static_cast<float>(1e7 + alpha * 1.0));
        CHECK(y[2] == static_cast<float>(double(0.1f) + alpha * (double(0.3f) - double(0.1f))));
    }
    CHECK(x[0] == 3.0f && x[2] == 1e7f + 1.0f && y[2] == 0.3f);  // alpha 1: exactly b
    // Same slots (ticks sharing their ids): no lookup, the same rule.
    const float x1[3] = {2.0f, 4.0f, 6.0f}, y1[3] = {1.0f, 1.0f, 1.0f};
    frame_interpolate(x0, y0, id0, 3, x1, y1, next.map, true, 0.25, x, y);
    CHECK(x[0] == 0.5f && x[1] == 1.75f && y[1] == -0.5f);
}
