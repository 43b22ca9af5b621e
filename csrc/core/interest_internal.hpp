// What interest.cpp, interest_select.cpp and interest_schedule.cpp share inside the interest
// pass (interest.hpp is the pass's own interface): a watcher's last view, the cap's keys, the
// selection, the pair arrays and the schedule's periods and steps.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "interest.hpp"

namespace soageo {
namespace interest_detail {

// A capped watcher's edge when it counted no more candidates than its cap (it sees them all).
constexpr uint32_t kAllChosen = 0xffffffffu;

// What one affected watcher saw at the last update: its special list (interest.cpp's choose
// rebuilds one for a watcher that was not special).
struct OldView {
    const int64_t* target;      // null: none yet
    const uint32_t* deadline;   // its pairs' schedules (InterestLists' pair arrays)
    const uint32_t* period;
    const uint32_t* since;
    const uint32_t* pos;        // its pairs' positions then (InterestLists::pos)
    uint32_t n;
    uint32_t edge;              // the cap's boundary key then (ordered bits; 0: none)
    uint32_t pivot;             // the selection's next pivot (0: none)
    bool has(int64_t t) const noexcept {
        uint32_t lo = 0, hi = n;
        while (lo < hi) {
            uint32_t mid = (lo + hi) / 2;
            if (target[mid] < t) lo = mid + 1; else hi = mid;
        }
        return lo < n && target[lo] == t;
    }
};

// The order of float32 keys as unsigned integers (negative ones included).
inline uint32_t ordered_bits(float f) noexcept {
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b & 0x80000000u ? ~b : b | 0x80000000u;
}

// The cap's key of a counted candidate, as ordered bits: d2, or with a margin sqrt(d2), minus
// the margin for a target the watcher saw at the last update.
inline uint32_t cap_key(float d2, float margin, bool seen) noexcept {
    float key = d2;
    if (margin > 0) {
        key = std::sqrt(key);
        if (seen) key = key - margin;
    }
    return ordered_bits(key);
}

// One watcher's pairs in the pair arrays (interest.hpp): pair b is target[b], deadline[b]...
struct PairRun {
    int64_t* target;
    uint32_t* deadline;
    uint32_t* period;
    uint32_t* since;
};

inline PairRun run_at(InterestLists& l, uint64_t off) noexcept {
    return PairRun{l.target + off, l.deadline + off, l.period + off, l.since + off};
}

// The offsets a first listing of period p may take, c pairs of period p in the watcher's list:
// [1, min(p, c + 1)], as among c pairs some offset in [1, c + 1] has none due.
inline uint32_t first_span(uint32_t p, uint32_t c) noexcept { return p < c + 1 ? p : c + 1; }

// The periods of one watcher's pairs: p = 1 + the thresholds (k * band)^2 <= d2, read from a
// table of the first ones (a watcher's max_period is usually small), computed beyond it. d2 is a
// float32: (k * band)^2 <= d2 in double holds exactly when the smallest float32 at or above the
// threshold is <= d2, so the table holds those and compares floats, a fixed 8 (or 32) at a time
// (padded with NaN, which no d2 reaches): a loop the compiler turns into a few wide compares.
struct PeriodTable {
    static constexpr uint32_t kMax = 32;
    float limit[kMax];
    // again()'s bounds: bound[p - 1] and bound[p] enclose the d2 of period p. Below period 1,
    // -inf; above the last threshold, +inf when the table holds every threshold below
    // max_period, else NaN (no d2 is below it: of() answers).
    float bound[kMax + 2];
    uint32_t n = 0;
    bool banded = false, built = false;
    double band = 0;  // the options the table was built for
    uint32_t max_period = 0;
    const InterestOptions* opt = nullptr;
    static float at_least(double x) noexcept {
        float f = float(x);
        if (double(f) < x) f = std::nextafter(f, HUGE_VALF);
        return f;
    }
    // Builds the table for o, unless it holds o's already (watchers most often share options:
    // the table lives through an update, and its thresholds cost a rounding check each).
    void build(const InterestOptions& o) noexcept {
        opt = &o;
        if (built && o.band == band && o.max_period == max_period) return;
        built = true, band = o.band, max_period = o.max_period;
        n = 0;
        banded = o.band > 0;
        bound[0] = -HUGE_VALF;
        bound[1] = HUGE_VALF;  // unbanded: every period is 1
        if (!banded) {
            std::fill(limit, limit + kMax, std::numeric_limits<float>::quiet_NaN());  // the kernel counts none
            return;
        }
        const uint32_t want = o.max_period - 1 < kMax ? o.max_period - 1 : kMax;
        for (uint32_t k = 1; k <= want; ++k) limit[n++] = at_least((double(k) * o.band) * (double(k) * o.band));
        for (uint32_t k = n; k < kMax; ++k) limit[k] = std::numeric_limits<float>::quiet_NaN();
        for (uint32_t k = 0; k < n; ++k) bound[k + 1] = limit[k];
        bound[n + 1] = n == o.max_period - 1 ? HUGE_VALF : std::numeric_limits<float>::quiet_NaN();
    }
    // Whether the kernels' interest_schedule counts the periods: its kScheduleLimits thresholds
    // hold every one of the table's (NaN past them), as of() counts them.
    bool in_lanes() const noexcept { return n <= uint32_t(kScheduleLimits); }
    uint32_t of(float d2) const noexcept {
        if (!banded) return 1;
        uint32_t k = 0;
        if (n <= 8) {
            for (uint32_t i = 0; i < 8; ++i) k += limit[i] <= d2;
            return 1 + k;
        }
        for (uint32_t i = 0; i < kMax; ++i) k += limit[i] <= d2;
        return k < kMax ? 1 + k : interest_period(*opt, d2);
    }
    // of(d2) for a pair whose period was p: most often still p, which the two (ascending)
    // bounds around it confirm. Without a branch on p (periods vary from pair to pair at random).
    uint32_t again(uint32_t p, float d2) const noexcept {
        const uint32_t at = p - 1;  // wraps for p == 0: not in the table
        if (at <= n && ((bound[at] <= d2) & (d2 < bound[at + 1]))) return p;
        return of(d2);
    }
};

// A pair kept from the last view, now of period p: a change of period brings its deadline to
// at most its last listing + p.
inline void keep_pair(const PairRun& r, uint32_t b, uint32_t p) noexcept {
    const uint32_t since = r.since[b];
    if (p != r.period[b] && since) {
        const uint32_t last = r.deadline[b] - since;
        if (int32_t(last + p - r.deadline[b]) < 0) r.deadline[b] = last + p;  // the sooner
        r.since[b] = r.deadline[b] - last;
    }
    r.period[b] = p;
}

// A watcher's schedule left to the kernels' interest_schedule (PeriodTable::in_lanes): its n new
// pairs at `off`, their d2 in s.pair_d2, the k-th list of `after`. It runs before the next list's
// pairs are written (just before open_list, a turn or more later, after that watcher's
// selection) or at the end of the update: the kernel's block loads read what the
// merge has just stored pair by pair, and right after the merge they waited for those stores.
struct Deferred {
    bool on = false;
    uint64_t off = 0;
    uint32_t n = 0, k = 0;
    const uint32_t* deadline_in = nullptr;  // the schedule read (null: the list's own)
    const uint32_t* period_in = nullptr;
    const uint32_t* since_in = nullptr;
    float limit[kScheduleLimits];  // the table may be rebuilt for the next watcher before it runs
};

inline void defer_schedule(Deferred& d, const PeriodTable& periods, const InterestLists& after, uint64_t off,
                    uint32_t n, const OldView* whole = nullptr) noexcept {
    d.on = true, d.off = off, d.n = n, d.k = after.n - 1;
    d.deadline_in = whole ? whole->deadline : nullptr;
    d.period_in = whole ? whole->period : nullptr;
    d.since_in = whole ? whole->since : nullptr;
    std::memcpy(d.limit, periods.limit, sizeof d.limit);
}

// The schedule's steps (interest_schedule.cpp).
void place_group(const PairRun& r, uint32_t tick, const uint32_t* tmp, uint32_t g, uint32_t h, uint32_t span,
                 uint32_t* count) noexcept;
void first_listings(const PairRun& r, uint32_t n, uint32_t tick, uint32_t* tmp, uint32_t first,
                    uint32_t* count) noexcept;
uint32_t follow_all(const PairRun& r, uint32_t n, uint32_t tick, int64_t* due, uint32_t* firsts,
                    uint32_t* n_first) noexcept;
void schedule_budget(const InterestOptions& o, uint32_t tick, InterestScratch& s, InterestLists& after,
                     uint64_t off, uint32_t n) noexcept;
void run_deferred(const InterestInput& in, InterestScratch& s, InterestLists& after, Deferred& d) noexcept;

// Picks a capped watcher's view among its m candidates (m > opt.max): the always-seen and pinned
// ones, then the opt.max smallest keys. In the usual case (the key is the d2: no margin, no
// always-seen bits or pins) among at most kSelectLanesMost candidates, the kernels'
// interest_select counts each one's smaller d2 in lanes, unless a tie straddles the boundary.
// Else a partial selection on packed keys (pack_keys): the ties at the
// boundary key, rare, are then settled by d2 and id. The last update's pivot, a little above its
// boundary key, splits the keys first: the boundary moves little from one update to the next,
// so most often n or more keys are below it, a few more than n, and only those are selected
// from. *edge_io and *pivot_io hold the last selection's boundary key and pivot, and get this
// one's. Leaves the chosen indices first in s.order and returns their count.
uint32_t select_nearest(const InterestInput& in, InterestScratch& s, const InterestOptions& opt, int64_t w,
                        const uint32_t* list, uint32_t m, uint32_t seen, uint32_t* edge_io,
                        uint32_t* pivot_io) noexcept;

}  // namespace interest_detail
}  // namespace soageo
