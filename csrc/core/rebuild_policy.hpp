// When the spatial index is rebuilt. The binding asks at every query of a layer whose index is
// stale; nothing here knows about Lua or the index itself, only about work, in "entities
// tested by the scan" units: what a query would save through a fresh index, what a rebuild
// costs.
//
// A period runs from the first query after a change of the layer to the next change. A game
// server ticks: it changes the layer, then queries it, and a tick queries about as much as the
// last one did. So a period that follows one whose queries saved at least a rebuild rebuilds
// at its first query, and one that follows a period that did not keeps the scan. Only the
// first period, and a period that queries far more than the last (twice a rebuild forgone),
// fall back to ski rental: scan while the savings forgone stay below the bound, then rebuild.
// The forgone savings are counted per period: an index built now serves only until the next
// change, so savings forgone before it do not pay for it (counted across periods, a layer
// queried once per tick rebuilt every ~40 ticks, twice the cost of always scanning).
//
// Except where a build is an investment: after a full build, periods whose changes a refresh
// takes (moves, up to kMaxMembersBehind adds and removes, radius and mask changes: "moves-only" below) cost a
// refresh each (`upkeep`), far less than the build. A layer that ticks like that, queried each
// period for more than a refresh but less than a full build (100 small queries a tick at
// 1,000,000 entities), would otherwise scan forever. So over consecutive moves-only periods
// the savings beyond the upkeep that scanning forwent add up, and once they reach what the
// build costs beyond a refresh, the next period builds (ski rental over periods).
#pragma once

#include <cstdint>

namespace soageo {

struct RebuildPolicy {
    double saving;  // what the index saved, or would have saved, in this period
    double last;    // the same for the last period
    double debt;    // what scanning has forgone in this period
    double invested;  // savings beyond the upkeep forgone over consecutive moves-only periods
    bool has_last;  // a period has ended: `last` predicts this one
};

// What a period that changed the layer asks of the index: `cost`, what bringing it up to date
// costs now; `upkeep`, what a period that only moves entities costs once it is built (a
// refresh); `moves_only`, whether this period's changes were all such that a refresh takes
// them (no more than kMaxMembersBehind adds and removes, no clear).
struct StaleCost {
    double cost, upkeep;
    bool moves_only;
};

// The index's costs, in "entities tested by the scan" units per entity: what build/bench_index
// prints per entity, divided by a small query's scan per entity after a tick of moves from Lua
// (bench/bench_index_lua.lua). A full build costs more per entity past a few hundred thousand
// entities, where its scattered writes leave the cache and the scan's reads do not. After moves
// only, most refreshes stay loose (grid_refresh) and a rebuild from the last order comes every
// few ticks, which costs less per entity than a build at 1,000,000 and more at 100,000 (the
// scan is cheaper there).
struct IndexCosts {
    double upkeep_small, upkeep_big;  // a period of moves once built (a refresh), per entity
    double build_small, build_big;    // a full build, per entity
    uint32_t big_above;               // layers of more entities use the *_big costs
};
constexpr IndexCosts kIndexCosts{60.0, 45.0, 80.0, 130.0, 262144};

// What a period that changed a layer of n entities asks: a full build when `full` (the index
// was never built, its size no longer fits, or a change a refresh does not take), else the
// upkeep. `moves_only` is the caller's to set.
inline StaleCost index_stale_cost(const IndexCosts& c, uint32_t n, bool full) noexcept {
    const bool big = n > c.big_above;
    const double upkeep = (big ? c.upkeep_big : c.upkeep_small) * n;
    return StaleCost{full ? (big ? c.build_big : c.build_small) * n : upkeep, upkeep, false};
}

// A query of a layer whose index is stale: `new_period` when the layer changed since a query
// last asked, `saved` > 0 what this query would save through a fresh index. True: rebuild now.
inline bool policy_stale_query(RebuildPolicy& p, bool new_period, double saved, const StaleCost& c) noexcept {
    if (new_period) {
        p.has_last = p.has_last || p.saving > 0;
        p.last = p.saving;
        p.saving = 0;
        p.debt = 0;
        const bool steady = c.moves_only && p.has_last && p.last > c.upkeep;
        p.invested = steady ? p.invested + (p.last - c.upkeep) : 0;
    }
    p.saving += saved;
    if (new_period && p.has_last && (p.last >= c.cost || (p.invested > 0 && p.invested >= c.cost - c.upkeep))) {
        p.invested = 0;
        return true;
    }
    p.debt += saved;
    return p.debt >= (p.has_last ? 2.0 * c.cost : c.cost);
}

// A query through a fresh index, which saved `saved`.
inline void policy_fresh_query(RebuildPolicy& p, double saved) noexcept { p.saving += saved; }

}  // namespace soageo
