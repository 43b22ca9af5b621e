// The schedule of due pairs (interest_internal.hpp): each listed pair's next deadline, the first
// listings spread over the offsets of their period, a budget's order, and the kernels'
// interest_schedule for a list whose schedule was deferred.
#include "interest_internal.hpp"
#include "invariant.hpp"

#include <algorithm>
#include <cstring>

namespace soageo {
namespace interest_detail {
namespace {

// Counts, in one pass over a watcher's n pairs, the c of period p and, into count, the listed
// ones by the offset s - 1 at which they are due next; returns the span min(p, c + 1): among c
// pairs some offset in [1, c + 1] has none, so the fewest lies within it. Offsets below
// min(p, n + 1), which holds the span, are counted; count (n + 2 of them) has a sink past them.
uint32_t count_period(const PairRun& r, uint32_t n, uint32_t tick, uint32_t p, uint32_t* count) noexcept {
    const uint32_t lim = p < n + 1 ? p : n + 1;
    std::fill(count, count + lim + 1, 0u);
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const bool same = r.period[i] == p;
        c += same;
        const uint32_t ahead = r.deadline[i] - tick;  // wraps when the deadline is past: not counted
        const uint32_t counted = same & (r.since[i] != 0) & (ahead - 1 < lim);
        ++count[lim + ((ahead - 1 - lim) & (0u - counted))];  // a select, not a branch
    }
    return first_span(p, c);
}

// The periods up to which first_listings counts every period's pairs in one pass.
constexpr uint32_t kFewPeriods = 8;

// Without a budget every due pair is listed: a listed pair due now is listed again, p updates
// on; one never listed goes to `firsts` (first_listings places it). Returns whether it is due,
// listed either way. Branch-free, about half the pairs being due: the new fields are blended in
// through a mask, as the compiler made a branch of the conditional form.
inline bool follow_schedule(const PairRun& r, uint32_t b, uint32_t tick, uint32_t* firsts, uint32_t& n_first) noexcept {
    const uint32_t deadline = r.deadline[b], since = r.since[b];
    const bool due = deadline_due(deadline, tick), listed = since != 0;
    const uint32_t again = 0u - uint32_t(due && listed);  // all ones when listed again
    r.deadline[b] = (deadline & ~again) | ((tick + r.period[b]) & again);
    r.since[b] = (since & ~again) | (r.period[b] & again);
    firsts[n_first] = b;
    n_first += due && !listed;
    return due;
}

}  // namespace

// Places the first listings of a group of pairs of period p (tmp[g, h)): each at the offset s in
// [1, span] with the fewest pairs of period p due next (count[s - 1], which it then joins).
void place_group(const PairRun& r, uint32_t tick, const uint32_t* tmp, uint32_t g, uint32_t h, uint32_t span,
                 uint32_t* count) noexcept {
    for (; g < h; ++g) {
        uint32_t best = 0;
        for (uint32_t s = 1; s < span; ++s)
            if (count[s] < count[best]) best = s;
        ++count[best];
        r.deadline[tmp[g]] = tick + best + 1;
        r.since[tmp[g]] = best + 1;
    }
}

// Gives each pair due its first listing (tmp: `first` indices, ascending) the offset s in [1, p]
// at which the fewest pairs of its period p are due next: its next deadline is tick + s. A
// single first listing (the usual case) counts its own period (count_period). Of several, when
// every such period is at most kFewPeriods (the usual case: max_period is 8 unless given), one
// branch-free pass over the watcher's pairs counts each period's pairs and their offsets at once
// (a pair of period p is due within p updates), where a pass per period would read them once per
// period among the first listings.
void first_listings(const PairRun& r, uint32_t n, uint32_t tick, uint32_t* tmp, uint32_t first,
                    uint32_t* count) noexcept {
    const uint32_t* period = r.period;
    if (first == 1) {
        place_group(r, tick, tmp, 0, 1, count_period(r, n, tick, period[tmp[0]], count), count);
        return;
    }
    std::sort(tmp, tmp + first, [period](uint32_t a, uint32_t b) {
        return period[a] != period[b] ? period[a] < period[b] : a < b;
    });
    constexpr uint32_t kSlots = (kFewPeriods + 1) * kFewPeriods;  // by period and offset; one more: not counted
    uint32_t of_period[kFewPeriods + 2] = {};
    uint32_t at[kSlots + 1] = {};
    const bool few = period[tmp[first - 1]] <= kFewPeriods;
    for (uint32_t i = 0; few && i < n; ++i) {
        const uint32_t p = period[i] <= kFewPeriods ? period[i] : kFewPeriods + 1;
        ++of_period[p];
        const uint32_t ahead = r.deadline[i] - tick;  // wraps when the deadline is past: not counted
        const bool counted = (p <= kFewPeriods) & (r.since[i] != 0) & (ahead - 1 < p);
        ++at[counted ? p * kFewPeriods + (ahead - 1) : kSlots];
    }
    for (uint32_t g = 0; g < first;) {
        const uint32_t p = period[tmp[g]];
        uint32_t h = g;
        while (h < first && period[tmp[h]] == p) ++h;
        // count_period's span, from the table's count when it has one (p <= kFewPeriods).
        const uint32_t c = few ? of_period[p] : 0;
        const uint32_t span = few ? first_span(p, c) : count_period(r, n, tick, p, count);
        place_group(r, tick, tmp, g, h, span, few ? at + p * kFewPeriods : count);
        g = h;
    }
}

// Follows the schedule of a watcher's n pairs without a budget, each pair's period already set
// (a new pair's deadline this update): every due pair is listed, its target into `due`. Pairs
// due their first listing go to `firsts`, *n_first their count. Returns how many are due.
// try_keep's (a few movers' periods changed) and choose's when the periods are counted in the
// merge; choose's usual case has the kernels' interest_schedule instead (run_deferred).
uint32_t follow_all(const PairRun& r, uint32_t n, uint32_t tick, int64_t* due, uint32_t* firsts,
                    uint32_t* n_first) noexcept {
    uint32_t n_due = 0, first = 0;
    for (uint32_t t = 0; t < n; ++t) {
        due[n_due] = r.target[t];
        n_due += follow_schedule(r, t, tick, firsts, first);
    }
    *n_first = first;
    return n_due;
}

// With a budget: at most o.budget of the due pairs of the last watcher of `after` (its n pairs
// from `off`) are listed, earliest deadline first, then by d2 (s.pair_d2) and target id; the
// others stay due. Its due targets go apart, in order: aoi:due then writes them without a search.
void schedule_budget(const InterestOptions& o, uint32_t tick, InterestScratch& s, InterestLists& after,
                     uint64_t off, uint32_t n) noexcept {
    const PairRun r = run_at(after, off);
    uint32_t* const tmp = s.order;
    uint32_t* const listed = s.rank;  // free in choose: whether each pair is listed now
    const float* const d2 = s.pair_d2;
    uint32_t due = 0;
    for (uint32_t i = 0; i < n; ++i) {
        listed[i] = 0;
        if (deadline_due(r.deadline[i], tick)) tmp[due++] = i;
    }
    if (due > o.budget) {
        std::nth_element(tmp, tmp + o.budget, tmp + due, [&r, d2, tick](uint32_t a, uint32_t b) {
            const int32_t x = int32_t(r.deadline[a] - tick), y = int32_t(r.deadline[b] - tick);
            if (x != y) return x < y;
            if (d2[a] != d2[b]) return d2[a] < d2[b];
            return r.target[a] < r.target[b];
        });
        due = o.budget;
    }
    // The pairs listed before first: their next deadlines are fixed, and the first listings
    // (gathered in place in tmp) spread around them.
    uint32_t first = 0;
    for (uint32_t j = 0; j < due; ++j) {
        const uint32_t b = tmp[j];
        listed[b] = 1;
        follow_schedule(r, b, tick, tmp, first);
    }
    if (first) first_listings(r, n, tick, tmp, first, s.count);
    int64_t* const targets = after.due + off;
    uint32_t n_due = 0;
    for (uint32_t t = 0; t < n; ++t) {
        targets[n_due] = r.target[t];
        n_due += listed[t];
    }
    after.due_len[after.n - 1] = n_due;
}

// Runs the deferred schedule, if any: the periods, their changes and every due pair's listing in
// the kernel, then the due targets and the first listings here.
void run_deferred(const InterestInput& in, InterestScratch& s, InterestLists& after, Deferred& d) noexcept {
    if (!d.on) return;
    d.on = false;
    SOAGEO_ASSERT(d.off + d.n <= after.pairs && after.pairs <= after.pair_cap);  // + kMaxWidth of room past it
    const PairRun r = run_at(after, d.off);
    const uint32_t tick = uint32_t(in.tick);
    const bool whole = d.deadline_in != nullptr;
    ScheduleLanes lanes{s.pair_d2, whole ? d.deadline_in : r.deadline, whole ? d.period_in : r.period,
                        whole ? d.since_in : r.since, r.deadline, r.period, r.since, d.limit, d.n, tick,
                        s.due_at, s.first_at, 0, 0, 0, {}};
    in.kernels->interest_schedule(lanes);
    int64_t* const due = after.due + d.off;
    for (uint32_t j = 0; j < lanes.n_due; ++j) due[j] = r.target[s.due_at[j]];
    after.due_len[d.k] = lanes.n_due;
    if (lanes.n_first == 1) {
        // count_period's span, from the kernel's counts.
        const uint32_t p = r.period[s.first_at[0]];
        place_group(r, tick, s.first_at, 0, 1, first_span(p, lanes.same), lanes.at_offset);
    } else if (lanes.n_first) {
        first_listings(r, d.n, tick, s.first_at, lanes.n_first, s.count);
    }
}

}  // namespace interest_detail
}  // namespace soageo
