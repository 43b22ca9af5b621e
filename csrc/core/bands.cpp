#include "bands.hpp"

#include <cmath>
#include <cstring>

#include "carve.hpp"

namespace soageo {
namespace {

// Band entries per band beyond its boxes: its start rounded to whole blocks of the widest
// target (aligned loads) and kMaxWidth NaN sentinels after its last box (the kernel's stop).
constexpr uint64_t kBandPad = 2 * kMaxWidth;
// pairs_between bands only when the smaller layer holds at least 1/kBetweenMinShare of the
// boxes: against a few, the plain sweep's windows are short, and copying the large side into
// bands costs more than it saves.
constexpr uint64_t kBetweenMinShare = 16;

uint32_t band_of(const BandPlan& p, float y) noexcept {
    double t = (static_cast<double>(y) - p.y0) * p.inv_h;
    if (!(t > 0)) return 0;
    if (t >= p.bands - 1) return p.bands - 1;
    return static_cast<uint32_t>(t);
}

constexpr BandPlan kNoBands{0, 0, 0, 0, 0};

// The cut for the boxes of `sets` (one set, or both sides of pairs_between): bands eight mean
// box heights tall, so an eighth of the boxes touch two bands and a box's x window holds a few
// boxes, not a column of the world (4 and 16 heights measured within noise of 8 at 1,000,000).
// At most n / 64 bands: a huge sparse world costs O(n) memory. Fills copies[s] with the band
// entries set s takes (a box is copied into every band its y extent touches).
BandPlan cut(const SweepBoxes* const* sets, int count, uint64_t* copies) noexcept {
    uint64_t n = 0;
    double lo = HUGE_VAL, hi = -HUGE_VAL, sum_h = 0;
    for (int k = 0; k < count; ++k) {
        const SweepBoxes& b = *sets[k];
        for (uint32_t i = 0; i < b.n; ++i) {
            lo = b.miny[i] < lo ? b.miny[i] : lo;
            hi = b.maxy[i] > hi ? b.maxy[i] : hi;
            sum_h += static_cast<double>(b.maxy[i]) - b.miny[i];
        }
        n += b.n;
    }
    const double span = hi - lo;
    if (n < 2 || !std::isfinite(span) || !std::isfinite(sum_h) || !(span > 0)) return kNoBands;
    double h = 8 * sum_h / n;
    const double min_h = span / (n / 64.0);
    if (h < min_h) h = min_h;
    for (int attempt = 0; attempt < 4; ++attempt, h *= 2) {
        const double bands = std::floor(span / h) + 1;
        if (bands < 2) return kNoBands;
        BandPlan p{lo, 1.0 / h, static_cast<uint32_t>(bands), 0, 0};
        uint64_t total = 0;
        for (int k = 0; k < count; ++k) {
            const SweepBoxes& b = *sets[k];
            uint64_t c = 0;
            for (uint32_t i = 0; i < b.n; ++i) c += band_of(p, b.maxy[i]) - band_of(p, b.miny[i]) + 1;
            copies[k] = c;
            total += c;
        }
        // Tall boxes touch many bands: past n / 2 extra copies, taller bands (or no bands).
        if (total <= n + n / 2) return p;
    }
    return kNoBands;
}

// Entries of the layouts: each band's boxes (sweep_banded), and for count_banded each band's
// boxes followed by those of them that also touch the band before (copies - n of them).
BandPlan with_entries(BandPlan p, uint64_t copies, uint32_t n) noexcept {
    p.entries = copies + uint64_t(p.bands) * kBandPad;
    p.count_entries = copies + (copies - n) + 2 * uint64_t(p.bands) * kBandPad;
    return p;
}

BandScratch lay_band_scratch(Carver& k, uint64_t entries, uint32_t bands) noexcept {
    BandScratch s;
    s.held = k.take<uint64_t>(2);
    k.take_each(entries, &s.minx, &s.maxx, &s.miny, &s.maxy, &s.pos);
    k.take_each(size_t(bands) + 1, &s.start, &s.fill);
    s.entries = entries;
    s.bands = bands;
    return s;
}

}  // namespace

// Below kBandMinBoxes the plain sweep's window is short already and the copies do not pay
// (build/bench_pairs: the same time at 10,000 and 20,000 uniform boxes, ahead from 40,000).
BandPlan band_plan(const SweepBoxes& b, uint32_t min_boxes) noexcept {
    if (b.n < min_boxes) return kNoBands;
    const SweepBoxes* sets[1] = {&b};
    uint64_t copies[1];
    const BandPlan p = cut(sets, 1, copies);
    return p.bands ? with_entries(p, copies[0], b.n) : p;
}

BandPlan band_plan_between(const SweepBoxes& a, const SweepBoxes& b, uint64_t* entries_b, uint32_t min_boxes) noexcept {
    *entries_b = 0;
    const uint64_t small = a.n < b.n ? a.n : b.n;
    if (uint64_t(a.n) + b.n < min_boxes || (min_boxes && small * kBetweenMinShare < uint64_t(a.n) + b.n)) return kNoBands;
    const SweepBoxes* sets[2] = {&a, &b};
    uint64_t copies[2];
    BandPlan p = cut(sets, 2, copies);
    if (!p.bands) return kNoBands;
    *entries_b = with_entries(p, copies[1], b.n).entries;
    return with_entries(p, copies[0], a.n);
}

size_t band_scratch_bytes(uint64_t entries, uint32_t bands) noexcept {
    return layout_bytes(lay_band_scratch, entries, bands);
}

BandScratch band_scratch_carve(void* block, uint64_t entries, uint32_t bands) noexcept {
    BandScratch s = layout_carve(block, lay_band_scratch, entries, bands);
    s.held[0] = entries;
    s.held[1] = bands;
    return s;
}

void band_scratch_held(const void* block, uint64_t* entries, uint32_t* bands) noexcept {
    const uint64_t* held = reinterpret_cast<const uint64_t*>(align_up(reinterpret_cast<uintptr_t>(block)));
    *entries = held[0];
    *bands = static_cast<uint32_t>(held[1]);
}

namespace {

// Lays the boxes of b into segments of s, sorted by min-x: band k in segment k, or with
// `crossing` band k in segment 2k and, in 2k + 1, those of its boxes whose min-y lies in an
// earlier band. Each segment starts on a block and ends with kMaxWidth or more NaN sentinels.
// Entries carry tag[i] (or i) as their slot. Returns the number of segments (s.start, s.fill).
uint32_t lay_bands(const BandPlan& plan, const SweepBoxes& b, BandScratch& s, const uint32_t* tag,
                   bool crossing) noexcept {
    const uint32_t n = b.n, nb = plan.bands, segs = crossing ? 2 * nb : nb;
    SOAGEO_ASSERT(segs <= s.bands);
    // g(segment) for each of box i's segments.
    auto each_segment = [&](uint32_t i, auto g) {
        const uint32_t k0 = band_of(plan, b.miny[i]), last = band_of(plan, b.maxy[i]);
        for (uint32_t k = k0; k <= last; ++k) {
            if (!crossing) {
                g(k);
                continue;
            }
            g(2 * k);
            if (k > k0) g(2 * k + 1);
        }
    };
    uint32_t* count = s.fill;
    std::memset(count, 0, segs * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; ++i) each_segment(i, [&](uint32_t g) { ++count[g]; });
    uint64_t at = 0;
    for (uint32_t g = 0; g < segs; ++g) {
        s.start[g] = static_cast<uint32_t>(at);
        at += padded(count[g]) + kMaxWidth;
    }
    SOAGEO_ASSERT(at <= s.entries);
    s.start[segs] = static_cast<uint32_t>(at);
    const float nan = std::nanf("");
    for (uint32_t g = 0; g < segs; ++g) {
        for (uint32_t e = s.start[g] + count[g]; e < s.start[g + 1]; ++e) {
            s.minx[e] = s.maxx[e] = s.miny[e] = s.maxy[e] = nan;
            s.pos[e] = 0;
        }
        count[g] = s.start[g];  // from here on: where the segment's next box goes
    }
    for (uint32_t i = 0; i < n; ++i) {
        each_segment(i, [&](uint32_t g) {
            const uint32_t e = count[g]++;
            s.minx[e] = b.minx[i];
            s.maxx[e] = b.maxx[i];
            s.miny[e] = b.miny[i];
            s.maxy[e] = b.maxy[i];
            s.pos[e] = tag ? tag[i] : i;
        });
    }
    return segs;
}

SweepBoxes segment(const BandScratch& s, uint32_t g) noexcept {
    const uint32_t base = s.start[g];
    return SweepBoxes{s.minx + base, s.maxx + base, s.miny + base, s.maxy + base, s.pos + base, s.fill[g] - base};
}

// Sweeps band after band: `sweep_band(k, out_a, out_b, room, &A, &B)` returns how many pairs
// band k found (positions into its sides A and B, at most `room` written). A pair is kept only
// in the band of the larger min-y of its two boxes (both touch it: band_of is monotonic), as
// the boxes' slots (or tags). Returns the pairs kept or, past `cap`, the capacity to retry with.
template <class SweepBand>
uint64_t keep_banded(const BandPlan& plan, uint32_t bands, uint32_t* out_a, uint32_t* out_b, uint64_t cap,
                     SweepBand sweep_band) noexcept {
    uint64_t kept = 0, found = 0;
    bool overflow = false;
    for (uint32_t k = 0; k < bands; ++k) {
        const uint64_t room = overflow ? 0 : cap - kept;
        SweepBoxes A, B;
        const uint64_t f = sweep_band(k, room ? out_a + kept : out_a, room ? out_b + kept : out_b, room, &A, &B);
        found += f;
        if (f > room) overflow = true;
        if (overflow) continue;
        uint64_t w = kept;
        for (uint64_t t = kept; t < kept + f; ++t) {
            const uint32_t i = out_a[t], j = out_b[t];
            const float y = A.miny[i] > B.miny[j] ? A.miny[i] : B.miny[j];
            if (band_of(plan, y) != k) continue;
            out_a[w] = A.slot[i];
            out_b[w] = B.slot[j];
            ++w;
        }
        kept = w;
    }
    return overflow ? found : kept;
}

}  // namespace

uint64_t sweep_banded(const BandPlan& plan, const SweepBoxes& b, BandScratch& s, SweepFn sweep, uint32_t* out_a,
                      uint32_t* out_b, uint64_t cap, const uint32_t* tag) noexcept {
    const uint32_t nb = lay_bands(plan, b, s, tag, false);
    return keep_banded(plan, nb, out_a, out_b, cap,
                       [&](uint32_t k, uint32_t* a, uint32_t* o, uint64_t room, SweepBoxes* A, SweepBoxes* B) -> uint64_t {
                           *A = *B = segment(s, k);
                           return A->n < 2 ? 0 : sweep(*A, a, o, room);
                       });
}

uint64_t count_banded(const BandPlan& plan, const SweepBoxes& b, BandScratch& s, SweepFn sweep) noexcept {
    const uint32_t segs = lay_bands(plan, b, s, nullptr, true);
    // A band finds each pair of its boxes; the pairs whose two boxes both began in an earlier
    // band (both are in its second segment) were counted there already.
    uint64_t total = 0;
    uint32_t none = 0;
    for (uint32_t g = 0; g < segs; g += 2) {
        const SweepBoxes band = segment(s, g), again = segment(s, g + 1);
        if (band.n >= 2) total += sweep(band, &none, &none, 0);
        if (again.n >= 2) total -= sweep(again, &none, &none, 0);
    }
    return total;
}

uint64_t pairs_banded(const BandPlan& plan, SweepScratch& s, BandScratch& bs, SweepFn sweep, PairBuffer& buf) noexcept {
    const uint64_t m = sweep_banded(plan, s.boxes, bs, sweep, buf.a, buf.b, buf.cap, ranks_at_positions(s));
    if (m > buf.cap) return m;
    order_rank_pairs(buf, m, s.boxes.n, true);
    return m;
}

uint64_t pairs_ordered(const BandPlan& plan, SweepScratch& s, BandScratch& bs, SweepFn sweep, PairBuffer& buf) noexcept {
    if (plan.bands) return pairs_banded(plan, s, bs, sweep, buf);
    const uint64_t n = sweep(s.boxes, buf.a, buf.b, buf.cap);
    if (n <= buf.cap) order_pairs(buf, n, s, s, true);
    return n;
}

uint64_t pairs_banded_between(const BandPlan& plan, SweepScratch& sa, SweepScratch& sb, BandScratch& bsa,
                              BandScratch& bsb, SweepBetweenFn sweep, PairBuffer& buf) noexcept {
    const uint32_t nb = lay_bands(plan, sa.boxes, bsa, ranks_at_positions(sa), false);
    lay_bands(plan, sb.boxes, bsb, ranks_at_positions(sb), false);
    auto band = [&](uint32_t k, uint32_t* pa, uint32_t* pb, uint64_t room, SweepBoxes* A, SweepBoxes* B) -> uint64_t {
        *A = segment(bsa, k);
        *B = segment(bsb, k);
        return (!A->n || !B->n) ? 0 : sweep(*A, *B, pa, pb, room);
    };
    const uint64_t m = keep_banded(plan, nb, buf.a, buf.b, buf.cap, band);
    if (m > buf.cap) return m;
    order_rank_pairs(buf, m, sa.boxes.n > sb.boxes.n ? sa.boxes.n : sb.boxes.n, false);
    return m;
}

}  // namespace soageo
