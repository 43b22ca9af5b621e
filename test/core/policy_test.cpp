// The index's rebuild policy over ticks: a tick changes the layer, then queries it Q times.
#include "check.hpp"
#include "core/rebuild_policy.hpp"

using namespace soageo;

namespace {

// Runs `ticks` ticks of `queries` queries each saving `saved` (the index stale at the start of
// every tick, fresh after a rebuild); returns the rebuilds, and in *scans the queries that
// scanned.
int run_ticks(RebuildPolicy& p, int ticks, int queries, double saved, double cost, int* scans = nullptr) {
    int rebuilds = 0, scanned = 0;
    for (int t = 0; t < ticks; ++t) {
        bool fresh = false;
        for (int q = 0; q < queries; ++q) {
            if (fresh) {
                policy_fresh_query(p, saved);
            } else if (policy_stale_query(p, q == 0, saved, cost)) {
                ++rebuilds;
                fresh = true;
            } else {
                ++scanned;
            }
        }
    }
    if (scans) *scans = scanned;
    return rebuilds;
}

}  // namespace

TEST_CASE(policy_keeps_the_scan_for_a_tick_of_few_queries) {
    // One query a tick, and ticks of a fifth of a rebuild: never a rebuild, however long.
    RebuildPolicy p{};
    CHECK(run_ticks(p, 10000, 1, 1.0, 60.0) == 0);
    RebuildPolicy q{};
    CHECK(run_ticks(q, 10000, 12, 1.0, 60.0) == 0);
}

TEST_CASE(policy_rebuilds_at_the_first_query_of_a_tick_that_queries_much) {
    RebuildPolicy p{};
    int scans = 0;
    // The first tick has no history: ski rental, 60 scans forgone, then a rebuild.
    CHECK(run_ticks(p, 1, 1000, 1.0, 60.0, &scans) == 1);
    CHECK(scans == 59);
    // Every later tick rebuilds at once.
    CHECK(run_ticks(p, 100, 1000, 1.0, 60.0, &scans) == 100);
    CHECK(scans == 0);
}

TEST_CASE(policy_follows_a_tick_that_changes_its_pace) {
    RebuildPolicy p{};
    int scans = 0;
    run_ticks(p, 5, 10, 1.0, 60.0);
    // Far more queries than the last tick: scan until twice a rebuild is forgone, then rebuild;
    // the next tick like it rebuilds at once.
    CHECK(run_ticks(p, 1, 1000, 1.0, 60.0, &scans) == 1);
    CHECK(scans == 119);
    CHECK(run_ticks(p, 1, 1000, 1.0, 60.0, &scans) == 1);
    CHECK(scans == 0);
    // Back to few queries: one rebuild too many (the prediction), then the scan again.
    CHECK(run_ticks(p, 1, 10, 1.0, 60.0) == 1);
    CHECK(run_ticks(p, 50, 10, 1.0, 60.0) == 0);
}

TEST_CASE(policy_rebuilds_when_a_tick_saved_exactly_a_rebuild) {
    RebuildPolicy p{};
    run_ticks(p, 1, 60, 1.0, 60.0);  // first tick: rebuilt at its 60th query
    int scans = 0;
    CHECK(run_ticks(p, 3, 60, 1.0, 60.0, &scans) == 3);  // saved 60 >= 60: at once
    CHECK(scans == 0);
    RebuildPolicy q{};
    run_ticks(q, 1, 59, 1.0, 60.0);
    CHECK(run_ticks(q, 3, 59, 1.0, 60.0) == 0);  // 59 < 60: the scan
}
