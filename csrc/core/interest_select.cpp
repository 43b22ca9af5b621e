// The cap's selection (interest_internal.hpp): in the usual case among few candidates, the
// kernels' interest_select in vector lanes; else (and on a tie across the boundary) the
// candidates packed as keys and the smallest chosen, around the last update's pivot.
#include "interest_internal.hpp"
#include "invariant.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace soageo {
namespace interest_detail {
namespace {

// The usual case's key (no always-seen or pinned target, no margin): the d2 itself, never
// negative (nor NaN: the coordinates are finite), so its ordered bits are its own bits with the
// top one set, and they order like the d2.
inline uint32_t d2_key(float d2) noexcept {
    uint32_t b;
    std::memcpy(&b, &d2, sizeof b);
    return b | 0x80000000u;
}

// The keys of every candidate in s.packed, in the usual case.
void pack_all(InterestScratch& s, uint32_t m) noexcept {
    for (uint32_t t = 0; t < m; ++t) s.packed[t] = uint64_t(d2_key(s.candidate_d2[t])) << 32 | t;
}

// The usual case's split: the keys at or below `cut` packed into s.sel, in one branch-free pass;
// returns their count.
uint32_t split_d2(InterestScratch& s, uint32_t m, uint32_t cut) noexcept {
    SOAGEO_ASSERT(cut & 0x80000000u);
    uint32_t below = 0;
    for (uint32_t t = 0; t < m; ++t) {
        const uint32_t key = d2_key(s.candidate_d2[t]);
        s.sel[below] = uint64_t(key) << 32 | t;
        below += key <= cut;
    }
    return below;
}

// The widened split, in the usual case: the keys above `floor` and at or below `cut` appended to
// s.sel from `at` (those at or below floor are there already); returns the new count.
uint32_t split_d2_above(InterestScratch& s, uint32_t m, uint32_t floor, uint32_t cut, uint32_t at) noexcept {
    for (uint32_t t = 0; t < m; ++t) {
        const uint32_t key = d2_key(s.candidate_d2[t]);
        s.sel[at] = uint64_t(key) << 32 | t;
        at += (key > floor) & (key <= cut);
    }
    return at;
}

// Packs the keys of a capped watcher's m candidates (`list`: their positions) as (key << 32 |
// candidate) into s.packed, and those with a key at or below `pivot` (0: none) into s.sel too:
// the always-seen and pinned ones pass instead, first in s.order (*passed). With a margin,
// whether a candidate was seen comes from the marks (`seen`: the last view's mark). Returns how
// many were packed; *below of them went to s.sel as well. In the usual case with a pivot, only
// s.sel is written (*packed_out false: pack_all writes s.packed when the selection needs it).
uint32_t pack_keys(const InterestInput& in, InterestScratch& s, const InterestOptions& opt, int64_t w,
                   const uint32_t* list, uint32_t m, uint32_t seen, uint32_t pivot,
                   uint32_t* passed_out, uint32_t* below_out, bool* packed_out) noexcept {
    const Pins& pins = *in.pins;
    bool found;
    const bool any_pin = pins_has_watcher(pins, w);
    const uint64_t limit = pivot ? uint64_t(pivot) << 32 | 0xffffffffu : 0;  // no key is 0
    uint32_t passed = 0, counted = 0, below = 0;
    if (!opt.always && !any_pin && !(in.margin > 0)) {
        // The usual case: only the keys below the pivot are packed (split_d2); the others only
        // in the rare case the split does not hold (pack_all).
        if (!pivot) {
            pack_all(s, m);
            *passed_out = 0, *below_out = 0, *packed_out = true;
            return m;
        }
        *passed_out = 0, *below_out = split_d2(s, m, pivot), *packed_out = false;
        return m;
    }
    for (uint32_t t = 0; t < m; ++t) {
        bool pass = opt.always && (in.ms[list[t]] & opt.always) != 0;
        if (!pass && any_pin) {
            pins_find(pins, w, in.visible->ids[in.visible->rank_at[list[t]]], &found);
            pass = found;
        }
        if (pass) {
            s.order[passed++] = t;
            continue;
        }
        const bool was = in.margin > 0 && tag_mark(s.tag[list[t]]) == seen;
        const uint64_t x = uint64_t(cap_key(s.candidate_d2[t], in.margin, was)) << 32 | t;
        s.packed[counted++] = x;
        s.sel[below] = x;
        below += x <= limit;
    }
    *passed_out = passed, *below_out = below, *packed_out = true;
    return counted;
}

// How far past the cap the next selection's pivot lies, in keys: the boundary moves by a few
// places from one update to the next; one key of slack (the smallest key left out) measured
// faster than two, and than none (the boundary itself), on bench/bench_interest_lua.lua.
constexpr uint32_t kPivotSlack = 1;

// Up to 4 keys too many, or up to kFewPasses while the passes read at most kPassesAtMost keys
// in all, the largest go to the end one pass each (branch-free) rather than through
// nth_element, whose partitions mispredict on so few keys; over many keys nth_element's
// linear work wins (a microbenchmark: break-even near a cap of 20, slower passes from 50 up).
constexpr uint32_t kFewPasses = 16;
constexpr uint32_t kPassesAtMost = 16 * 28;

// A bound above `pivot` (ordered bits of a key), for a boundary that moved past it: a quarter
// larger d2, or with a margin a quarter larger distance (at least 1 more either way).
inline uint32_t widened(uint32_t pivot, bool distance) noexcept {
    const uint32_t b = pivot & 0x80000000u ? pivot & 0x7fffffffu : ~pivot;
    float f;
    std::memcpy(&f, &b, sizeof f);
    const float wide = distance ? f + std::max(std::fabs(f) * 0.25f, 1.0f) : f * 1.25f + 1.0f;
    return std::max(pivot, ordered_bits(wide));
}

// Keeps the kPivotSlack smallest keys met, ascending, in `low`: branch-free.
inline void keep_smallest(uint64_t (&low)[kPivotSlack], uint64_t key) noexcept {
    for (uint32_t i = 0; i < kPivotSlack; ++i) {
        const uint64_t lo = std::min(low[i], key);
        key = std::max(low[i], key);
        low[i] = lo;
    }
}

// The lanes' guess of the boundary, in the usual case: halfway between the d2 of the last
// selection's farthest chosen target (its boundary key, `edge`) and its `pivot` (most often its
// nearest one left out), so that either may move by half the gap; 0 (none) when the last update
// chose otherwise.
inline float boundary_guess(uint32_t edge, uint32_t pivot) noexcept {
    if (edge == kAllChosen || !(edge & pivot & 0x80000000u)) return 0.0f;
    const uint32_t e = edge & 0x7fffffffu, p = pivot & 0x7fffffffu;
    float near, far;
    std::memcpy(&near, &e, sizeof near);
    std::memcpy(&far, &p, sizeof far);
    const float guess = near + (far - near) * 0.5f;
    return guess > 0.0f ? guess : 0.0f;  // also none for a NaN (a key from a margin's selection)
}

}  // namespace

uint32_t select_nearest(const InterestInput& in, InterestScratch& s, const InterestOptions& opt, int64_t w,
                        const uint32_t* list, uint32_t m, uint32_t seen, uint32_t* edge_io,
                        uint32_t* pivot_io) noexcept {
    SOAGEO_ASSERT(m > opt.max);  // capped: SelectLanes needs n < m
    if (m <= kSelectLanesMost && !opt.always && !(in.margin > 0) && !pins_has_watcher(*in.pins, w)) {
        // The usual case among few candidates: in lanes, unless a tie straddles the boundary.
        // The next pivot is the smallest key left out, as below with one key of slack.
        static_assert(kPivotSlack == 1, "the lanes give the smallest key left out as the pivot");
        SelectLanes lanes{s.candidate_d2, m, opt.max, boundary_guess(*edge_io, *pivot_io), s.order, 0, 0.0f, 0.0f};
        in.kernels->interest_select(lanes);
        if (lanes.chosen == opt.max) {
            *edge_io = d2_key(lanes.edge);
            *pivot_io = d2_key(lanes.next);
            return opt.max;
        }
    }
    const uint32_t pivot = *pivot_io;
    uint32_t passed, below;
    bool packed;  // s.packed holds every counted key (else only s.sel those below the pivot)
    const uint32_t counted = pack_keys(in, s, opt, w, list, m, seen, pivot, &passed, &below, &packed);
    const auto all_keys = [&s, &packed, m]() {
        if (!packed) pack_all(s, m);
        packed = true;
    };
    const uint32_t n = opt.max;
    if (counted <= n) {
        all_keys();
        for (uint32_t t = 0; t < counted; ++t) s.order[passed + t] = uint32_t(s.packed[t]);
        *edge_io = kAllChosen;
        return passed + counted;
    }
    // `cut`: the split's bound, every key at or below it in s.sel. Fewer than n below the pivot
    // (the boundary moved out past it): a wider bound is tried once, one more branch-free pass
    // that appends the keys between the two bounds, rather than a selection among every key (many
    // in a crowd). The keys below the pivot, keys[0, lo), are then all chosen, and the selection
    // looks only at the few appended after them.
    uint32_t cut = pivot, lo = 0;
    bool split = pivot && below >= n;
    if (pivot && !split) {
        cut = widened(pivot, in.margin > 0);
        lo = below;
        if (!packed) {
            below = split_d2_above(s, m, pivot, cut, below);
        } else {
            const uint64_t floor = uint64_t(pivot) << 32 | 0xffffffffu, limit = uint64_t(cut) << 32 | 0xffffffffu;
            for (uint32_t t = 0; t < counted; ++t) {
                const uint64_t x = s.packed[t];
                s.sel[below] = x;
                below += (x > floor) & (x <= limit);
            }
        }
        split = below >= n;
    }
    if (!split) all_keys(), lo = 0;
    uint64_t* keys = split ? s.sel : s.packed;
    uint32_t len = split ? below : counted;
    const uint32_t span = len - lo;  // the keys the selection looks at
    if (split && (len - n <= 4 || (len - n <= kFewPasses && (len - n) * span <= kPassesAtMost))) {
        // A few too many: the largest go to the end, one pass each (cheaper than nth_element's
        // partitions on so few).
        for (uint32_t end = len; end > n; --end) {
            uint64_t best = keys[lo];
            uint32_t top = lo;
            for (uint32_t t = lo + 1; t < end; ++t) {
                const bool above = keys[t] > best;  // the largest in a register: no load chain
                best = above ? keys[t] : best;
                top = above ? t : top;
            }
            std::swap(keys[top], keys[end - 1]);
        }
    } else {
        std::nth_element(keys + lo, keys + (n - 1), keys + len);
    }
    uint64_t edge = 0;  // past lo when the split widened: the keys before it are below those
    for (uint32_t t = lo; t < n; ++t) edge = std::max(edge, keys[t] >> 32);
    *edge_io = uint32_t(edge);
    // The next pivot: the (n + kPivotSlack)th smallest key, a little above the edge, so that the
    // next split most often keeps n or more below it. Past the split's keys, the others are larger.
    uint64_t low[kPivotSlack];
    std::fill(low, low + kPivotSlack, ~uint64_t(0));
    for (uint32_t t = n; t < len; ++t) keep_smallest(low, keys[t] >> 32);
    // A key left out equal to the boundary key makes a tie across it (none past the split's keys:
    // all above its bound, `cut`, which is at or above the edge). Most often there is none: the
    // n kept are the view, in any order (choose's marks do not depend on it).
    const bool tie = low[0] == edge;
    bool keep_cut = false;
    if (split && len < n + kPivotSlack) {
        // The keys past the split are not at hand in the usual case (only those below it were
        // packed): the pivot stays where it was, exactly n keys below it.
        keep_cut = !packed;
        const uint32_t pivot = cut;
        for (uint32_t t = 0; t < counted && packed; ++t) {
            const uint64_t key = s.packed[t] >> 32;
            keep_smallest(low, key > pivot ? key : ~uint64_t(0));
        }
    }
    *pivot_io = keep_cut ? cut : uint32_t(low[std::min(counted - n, kPivotSlack) - 1]);
    if (!tie) {
        for (uint32_t t = 0; t < n; ++t) s.order[passed + t] = uint32_t(keys[t]);
        return passed + n;
    }
    uint32_t out = passed, ties = 0;
    for (uint32_t t = 0; t < n; ++t) {
        if (keys[t] >> 32 < edge) s.order[out++] = uint32_t(keys[t]);
    }
    // Every candidate with the boundary key is a tie (they lie on both sides of nth).
    for (uint32_t t = 0; t < len; ++t) {
        const uint64_t x = keys[t];
        s.packed[ties] = x;  // keys is s.packed itself or s.sel: in place, or apart
        ties += x >> 32 == edge;
    }
    if (ties > 1) {
        const uint32_t* rank_at = in.visible->rank_at;
        std::sort(s.packed, s.packed + ties, [&s, rank_at, list](uint64_t x, uint64_t y) {
            const uint32_t a = uint32_t(x), b = uint32_t(y);
            if (s.candidate_d2[a] != s.candidate_d2[b]) return s.candidate_d2[a] < s.candidate_d2[b];
            return rank_at[list[a]] < rank_at[list[b]];  // the ids' order
        });
    }
    const uint32_t want = passed + opt.max;
    for (uint32_t t = 0; out < want; ++t) s.order[out++] = uint32_t(s.packed[t]);
    return out;
}


}  // namespace interest_detail
}  // namespace soageo
