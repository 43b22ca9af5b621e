// The index's rebuild policy over ticks: a tick changes the layer, then queries it Q times.
#include "check.hpp"
#include "core/rebuild_policy.hpp"

using namespace soageo;

namespace {

// Runs `ticks` ticks of `queries` queries each saving `saved` (the index stale at the start of
// every tick, fresh after a rebuild) at the costs `c` of every tick; returns the rebuilds, and
// in *scans the queries that scanned.
int run_ticks(RebuildPolicy& p, int ticks, int queries, double saved, const StaleCost& c, int* scans = nullptr) {
    int rebuilds = 0, scanned = 0;
    for (int t = 0; t < ticks; ++t) {
        bool fresh = false;
        for (int q = 0; q < queries; ++q) {
            if (fresh) {
                policy_fresh_query(p, saved);
            } else if (policy_stale_query(p, q == 0, saved, c)) {
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

// Ticks that move entities only, a refresh costing what a rebuild does.
int run_ticks(RebuildPolicy& p, int ticks, int queries, double saved, double cost, int* scans = nullptr) {
    return run_ticks(p, ticks, queries, saved, StaleCost{cost, cost, true}, scans);
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

TEST_CASE(policy_builds_once_for_ticks_that_a_refresh_pays_but_a_build_does_not) {
    // Ticks that only move, each saving 100 where the first build costs 130 and a refresh 45:
    // the savings beyond the refreshes scanning forwent pay for the build on the third tick.
    RebuildPolicy p{};
    int scans = 0;
    CHECK(run_ticks(p, 1, 100, 1.0, StaleCost{130.0, 45.0, false}, &scans) == 0);  // the entities set
    CHECK(scans == 100);
    CHECK(run_ticks(p, 1, 100, 1.0, StaleCost{130.0, 45.0, true}) == 0);   // forgone 55 beyond the upkeep
    CHECK(run_ticks(p, 1, 100, 1.0, StaleCost{130.0, 45.0, true}, &scans) == 1);  // 110 >= 85: built
    CHECK(scans == 0);
    // Built: every later tick refreshes at its first query.
    CHECK(run_ticks(p, 20, 100, 1.0, StaleCost{45.0, 45.0, true}, &scans) == 20);
    CHECK(scans == 0);
}

TEST_CASE(policy_keeps_the_scan_when_every_tick_needs_a_full_build_or_a_refresh_would_not_pay) {
    // Entities added or removed every tick: every tick needs the full build, which one tick's
    // savings never pay.
    RebuildPolicy p{};
    CHECK(run_ticks(p, 200, 100, 1.0, StaleCost{130.0, 45.0, false}) == 0);
    // Moves only, but ticks that save less than a refresh costs.
    RebuildPolicy q{};
    CHECK(run_ticks(q, 200, 40, 1.0, StaleCost{130.0, 45.0, true}) == 0);
    // A tick of membership changes among moves-only ones starts the count again.
    RebuildPolicy r{};
    run_ticks(r, 2, 100, 1.0, StaleCost{130.0, 45.0, true});  // forgone 55
    CHECK(run_ticks(r, 1, 100, 1.0, StaleCost{130.0, 45.0, false}) == 0);
    CHECK(run_ticks(r, 1, 100, 1.0, StaleCost{130.0, 45.0, true}) == 0);  // 55 again, not 165
    CHECK(run_ticks(r, 1, 100, 1.0, StaleCost{130.0, 45.0, true}) == 1);
}

TEST_CASE(index_costs_follow_the_layer_size_and_the_kind_of_change) {
    // The cost model takes its figures as parameters: a layer at or below big_above pays the
    // small costs, above it the big ones; a full build costs the build, any other change the
    // upkeep; moves_only stays the caller's.
    const IndexCosts c{2.0, 1.0, 10.0, 20.0, 100};
    const StaleCost small_full = index_stale_cost(c, 100, true);
    CHECK(small_full.cost == 1000.0 && small_full.upkeep == 200.0 && !small_full.moves_only);
    const StaleCost small_moves = index_stale_cost(c, 100, false);
    CHECK(small_moves.cost == 200.0 && small_moves.upkeep == 200.0);
    const StaleCost big_full = index_stale_cost(c, 101, true);
    CHECK(big_full.cost == 2020.0 && big_full.upkeep == 101.0);
    // The shipped costs: a build always costs more than the upkeep it makes possible, so the
    // policy's investment rule (build once, then refresh) can pay back.
    for (uint32_t n : {1000u, kIndexCosts.big_above, kIndexCosts.big_above + 1, 4000000u}) {
        const StaleCost full = index_stale_cost(kIndexCosts, n, true);
        CHECK(full.cost > full.upkeep);
    }
    // A policy fed the shipped costs of a moving 1,000,000-entity layer queried for more than a
    // refresh but less than a build each tick builds once, then keeps refreshing.
    RebuildPolicy p{};
    const StaleCost moves = index_stale_cost(kIndexCosts, 1000000, true);
    StaleCost steady = moves;
    steady.moves_only = true;
    CHECK(run_ticks(p, 1, 10, moves.upkeep * 0.2, moves) == 0);
    int rebuilds = run_ticks(p, 40, 10, moves.upkeep * 0.2, steady);
    CHECK(rebuilds >= 1);
}
