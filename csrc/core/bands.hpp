// layer:pairs in horizontal bands: a sweep's x window spans a square world's height (about 875
// candidates per box at 1,000,000 uniform entities), a band a few box heights tall a handful.
// A box is copied into every band it touches; a pair is kept only in the band of the larger of
// its two min-y (one both boxes touch), so the pairs equal the plain sweep's, each once.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels.hpp"
#include "sweep.hpp"

namespace soageo {

// How the boxes are cut: band of y = floor((y - y0) * inv_h), clamped to [0, bands).
struct BandPlan {
    double y0;
    double inv_h;
    uint32_t bands;          // 0: do not band (too few boxes, or boxes too tall for bands to pay)
    uint64_t entries;        // band entries sweep_banded needs, sentinels and alignment included
    uint64_t count_entries;  // and count_banded, which needs 2 * bands of BandScratch's bands
};

// Plans bands for the sorted boxes of a sweep: none below min_boxes (benchmarks and tests may
// ask for less), at most O(n) bands however large or sparse the world, copies under 1.5n.
constexpr uint32_t kBandMinBoxes = 32768;
BandPlan band_plan(const SweepBoxes& b, uint32_t min_boxes = kBandMinBoxes) noexcept;

// One cut for the pairs between two sorted sets: the plan's entries are a's, *entries_b b's.
// Bands when both sets reach min_boxes together and the smaller holds at least a sixteenth
// of them (min_boxes 0: whenever the cut allows).
BandPlan band_plan_between(const SweepBoxes& a, const SweepBoxes& b, uint64_t* entries_b,
                           uint32_t min_boxes = kBandMinBoxes) noexcept;

// Scratch for `entries` band entries and `bands` bands.
struct BandScratch {
    float* minx;
    float* maxx;
    float* miny;
    float* maxy;
    uint32_t* pos;    // the entry's position in the sorted boxes
    uint32_t* start;  // first entry of each band (bands + 1 of them)
    uint32_t* fill;   // per band: its box count, then where its next box goes
    uint64_t* held;   // carved first: the block's entries and bands, read back by band_scratch_held
    uint64_t entries;
    uint32_t bands;
};
size_t band_scratch_bytes(uint64_t entries, uint32_t bands) noexcept;
BandScratch band_scratch_carve(void* block, uint64_t entries, uint32_t bands) noexcept;
// What a block carved by band_scratch_carve was carved for.
void band_scratch_held(const void* block, uint64_t* entries, uint32_t* bands) noexcept;

using SweepFn = uint64_t (*)(const SweepBoxes&, uint32_t*, uint32_t*, uint64_t) noexcept;
using SweepBetweenFn = uint64_t (*)(const SweepBoxes&, const SweepBoxes&, uint32_t*, uint32_t*, uint64_t) noexcept;

// The pairs of the sorted boxes `b`, band by band with `sweep` (a target's sweep_complete), as
// positions into b (or, given `tag`, tag[position]), each pair once. Writes at most `cap`;
// returns the pairs or, past cap, the capacity to retry with.
uint64_t sweep_banded(const BandPlan& plan, const SweepBoxes& b, BandScratch& s, SweepFn sweep, uint32_t* out_a,
                      uint32_t* out_b, uint64_t cap, const uint32_t* tag = nullptr) noexcept;

// The number of pairs sweep_banded finds, without writing them: s holds plan.count_entries
// entries and 2 * plan.bands bands.
uint64_t count_banded(const BandPlan& plan, const SweepBoxes& b, BandScratch& s, SweepFn sweep) noexcept;

// layer:pairs' banded path, for s prepared by sweep_prepare with ranks: the pairs in buf.keys
// as order_pairs leaves them. The band entries carry id ranks, so no pair needs a lookup after.
// Returns the count, or past buf.cap the capacity to retry with (buf then holds nothing).
uint64_t pairs_banded(const BandPlan& plan, SweepScratch& s, BandScratch& bs, SweepFn sweep, PairBuffer& buf) noexcept;
// layer:pairs under band_plan's plan: banded when it bands, else one sweep of the whole layer
// and order_pairs. The same keys either way; returns as pairs_banded.
uint64_t pairs_ordered(const BandPlan& plan, SweepScratch& s, BandScratch& bs, SweepFn sweep, PairBuffer& buf) noexcept;
// The same for pairs_between (sweep: a target's sweep_between; bsa and bsb hold the entries
// band_plan_between gives a and b): keys rank_in_a << 32 | rank_in_b, ascending.
uint64_t pairs_banded_between(const BandPlan& plan, SweepScratch& sa, SweepScratch& sb, BandScratch& bsa,
                              BandScratch& bsb, SweepBetweenFn sweep, PairBuffer& buf) noexcept;

}  // namespace soageo
