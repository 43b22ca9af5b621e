// When the spatial index is rebuilt (doc/design.md, "Spatial index"), in "entities tested by
// the scan" units. A period runs from the first query after a change to the next change; a
// game server's tick queries about as much as the last, so a period rebuilds at its first query
// when the last one's queries saved at least a rebuild. Otherwise (the first period, or one
// querying past twice a rebuild forgone) ski rental, with the forgone savings counted per
// period: an index built now serves only until the next change (counted across periods, a
// layer queried once per tick rebuilt every ~40 ticks, twice the cost of always scanning).
// Over consecutive "moves-only" periods (changes a refresh takes) the savings beyond the
// refresh (`upkeep`) add up until they pay for the build: such a layer would scan forever.
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
