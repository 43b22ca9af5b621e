#include "bands.hpp"

#include <cmath>
#include <cstring>

#include "carve.hpp"

namespace soageo {
namespace {

// Band entries per band beyond its boxes: its start rounded to whole blocks of the widest
// target (aligned loads) and kMaxWidth NaN sentinels after its last box (the kernel's stop).
constexpr uint64_t kBandPad = 2 * kMaxWidth;

uint32_t band_of(const BandPlan& p, float y) noexcept {
    double t = (static_cast<double>(y) - p.y0) * p.inv_h;
    if (!(t > 0)) return 0;
    if (t >= p.bands - 1) return p.bands - 1;
    return static_cast<uint32_t>(t);
}

uint64_t round_block(uint64_t c) noexcept { return (c + (kMaxWidth - 1)) & ~uint64_t(kMaxWidth - 1); }

}  // namespace

// Below kBandMinBoxes the plain sweep's window is short already and the copies do not pay
// (measured: the same time at 10,000 and 20,000 uniform boxes, 1.1x faster at 40,000).
BandPlan band_plan(const SweepBoxes& b, uint32_t min_boxes) noexcept {
    const BandPlan none{0, 0, 0, 0};
    const uint32_t n = b.n;
    if (n < min_boxes || n < 2) return none;
    double lo = b.miny[0], hi = b.maxy[0], sum_h = 0;
    for (uint32_t i = 0; i < n; ++i) {
        lo = b.miny[i] < lo ? b.miny[i] : lo;
        hi = b.maxy[i] > hi ? b.maxy[i] : hi;
        sum_h += static_cast<double>(b.maxy[i]) - b.miny[i];
    }
    const double span = hi - lo;
    if (!std::isfinite(span) || !std::isfinite(sum_h) || !(span > 0)) return none;
    // Bands eight mean box heights tall (about 140 units for boxes of radius 2.5 to 15): an
    // eighth of the boxes touch two bands, and a box's x window inside its band holds a few
    // boxes, not a column of the world (4 and 16 heights measured within noise of 8 at
    // 1,000,000). At most n / 64 bands, so a huge sparse world costs O(n) memory, never O(area).
    double h = 8 * sum_h / n;
    const double min_h = span / (n / 64.0);
    if (h < min_h) h = min_h;
    for (int attempt = 0; attempt < 4; ++attempt, h *= 2) {
        const double count = std::floor(span / h) + 1;
        if (count < 2) return none;
        BandPlan p{lo, 1.0 / h, static_cast<uint32_t>(count), 0};
        uint64_t copies = 0;
        for (uint32_t i = 0; i < n; ++i) copies += band_of(p, b.maxy[i]) - band_of(p, b.miny[i]) + 1;
        // Tall boxes touch many bands: past n / 2 extra copies, taller bands (or no bands).
        if (copies <= n + n / 2) {
            p.entries = copies + uint64_t(p.bands) * kBandPad;
            return p;
        }
    }
    return none;
}

namespace {

BandScratch lay_band_scratch(Carver& k, uint64_t entries, uint32_t bands) noexcept {
    BandScratch s;
    s.held = k.take<uint64_t>(2);
    s.minx = k.take<float>(entries);
    s.maxx = k.take<float>(entries);
    s.miny = k.take<float>(entries);
    s.maxy = k.take<float>(entries);
    s.pos = k.take<uint32_t>(entries);
    s.start = k.take<uint32_t>(size_t(bands) + 1);
    s.fill = k.take<uint32_t>(size_t(bands) + 1);
    s.entries = entries;
    s.bands = bands;
    return s;
}

}  // namespace

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

uint64_t sweep_banded(const BandPlan& plan, const SweepBoxes& b, BandScratch& s, SweepFn sweep, uint32_t* out_a,
                      uint32_t* out_b, uint64_t cap, const uint32_t* tag) noexcept {
    const uint32_t n = b.n, nb = plan.bands;
    // Boxes per band, then each band's first entry (block-aligned, sentinels after its boxes).
    uint32_t* count = s.fill;
    std::memset(count, 0, nb * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t k = band_of(plan, b.miny[i]), last = band_of(plan, b.maxy[i]); k <= last; ++k) ++count[k];
    uint64_t at = 0;
    for (uint32_t k = 0; k < nb; ++k) {
        s.start[k] = static_cast<uint32_t>(at);
        at += round_block(count[k]) + kMaxWidth;
    }
    s.start[nb] = static_cast<uint32_t>(at);
    const float nan = std::nanf("");
    for (uint32_t k = 0; k < nb; ++k) {
        for (uint32_t e = s.start[k] + count[k]; e < s.start[k + 1]; ++e) {
            s.minx[e] = s.maxx[e] = s.miny[e] = s.maxy[e] = nan;
            s.pos[e] = 0;
        }
        count[k] = s.start[k];  // from here on: where the band's next box goes
    }
    // In sorted order, so each band's boxes are sorted by min-x too.
    for (uint32_t i = 0; i < n; ++i) {
        for (uint32_t k = band_of(plan, b.miny[i]), last = band_of(plan, b.maxy[i]); k <= last; ++k) {
            uint32_t e = count[k]++;
            s.minx[e] = b.minx[i];
            s.maxx[e] = b.maxx[i];
            s.miny[e] = b.miny[i];
            s.maxy[e] = b.maxy[i];
            s.pos[e] = tag ? tag[i] : i;
        }
    }
    uint64_t kept = 0, found = 0;
    bool overflow = false;
    for (uint32_t k = 0; k < nb; ++k) {
        const uint32_t base = s.start[k];
        const SweepBoxes band{s.minx + base, s.maxx + base, s.miny + base, s.maxy + base, s.pos + base, count[k] - base};
        if (band.n < 2) continue;
        const uint64_t room = overflow ? 0 : cap - kept;
        const uint64_t f = sweep(band, room ? out_a + kept : out_a, room ? out_b + kept : out_b, room);
        found += f;
        if (f > room) overflow = true;
        if (overflow) continue;
        // Keep a pair in the band of the larger min-y of its two boxes (a band both touch:
        // band_of is monotonic and each box spans the bands from its min-y to its max-y).
        uint64_t w = kept;
        for (uint64_t t = kept; t < kept + f; ++t) {
            const uint32_t i = out_a[t], j = out_b[t];
            const float y = band.miny[i] > band.miny[j] ? band.miny[i] : band.miny[j];
            if (band_of(plan, y) != k) continue;
            out_a[w] = band.slot[i];
            out_b[w] = band.slot[j];
            ++w;
        }
        kept = w;
    }
    return overflow ? found : kept;
}

uint64_t pairs_banded(const BandPlan& plan, SweepScratch& s, BandScratch& bs, SweepFn sweep, PairBuffer& buf) noexcept {
    SOAGEO_ASSERT(s.use == SweepScratch::Use::ordering);
    const uint32_t n = s.boxes.n;
    uint32_t* rank_at = s.rank_at_pos;
    for (uint32_t p = 0; p < n; ++p) rank_at[p] = s.rank[s.boxes.slot[p]];
    const uint64_t m = sweep_banded(plan, s.boxes, bs, sweep, buf.a, buf.b, buf.cap, rank_at);
    if (m > buf.cap) return m;
    order_rank_pairs(buf, m, n);
    return m;
}

}  // namespace soageo
