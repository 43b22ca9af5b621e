#include "sweep.hpp"

#include <cmath>
#include <cstring>
#include <utility>

#include "carve.hpp"
#include "radix.hpp"

namespace soageo {

namespace {

SweepScratch lay_sweep(Carver& k, uint32_t cap) noexcept {
    size_t c = size_t(cap) + kMaxWidth;
    SweepScratch s;
    s.held_cap = k.take<uint64_t>(1);
    k.take_each(c, &s.boxes.minx, &s.boxes.maxx, &s.boxes.miny, &s.boxes.maxy, &s.boxes.slot);
    s.boxes.n = 0;
    k.take_each(c, &s.keys, &s.tmp_keys, &s.tmp_vals);
    s.rank_at_pos = s.keys;
    s.lo_counts = s.tmp_keys;
    s.hi_counts = s.tmp_vals;
    s.use = SweepScratch::Use::sorting;
    k.take_each(c, &s.id_keys, &s.tmp_id_keys, &s.rank, &s.slot_of_rank);
    s.ranked_n = k.take<uint32_t>(1);
    s.reranked_keys = s.tmp_id_keys;
    s.reranked_slots = s.tmp_keys;
    s.rank_remap = s.tmp_vals;
    s.cap = cap;
    return s;
}

}  // namespace

PairBuffer lay_pair_buffer(Carver& k, uint64_t cap) noexcept {
    PairBuffer p;
    p.held_cap = k.take<uint64_t>(1);
    k.take_each(cap, &p.a, &p.b, &p.keys, &p.tmp);
    p.keys32 = reinterpret_cast<uint32_t*>(p.keys);
    p.tmp32 = reinterpret_cast<uint32_t*>(p.tmp);
    p.cap = cap;
    return p;
}

size_t sweep_scratch_bytes(uint32_t cap) noexcept { return layout_bytes(lay_sweep, cap); }

SweepScratch sweep_scratch_carve(void* block, uint32_t cap, bool reuse) noexcept {
    SweepScratch s = layout_carve(block, lay_sweep, cap);
    SOAGEO_ASSERT(!reuse || *s.held_cap == cap);
    *s.held_cap = cap;
    if (!reuse) *s.ranked_n = kNoSlot;
    return s;
}

// A radix sort from scratch every call: an insertion sort of last call's order (a tick of
// moves up to 2 units) measured no faster at 10,000 boxes, slower at 100,000 (build/bench_pairs),
// and it degrades without bound when much moves.
void sweep_prepare(const Store& st, SweepScratch& s, bool with_ranks) noexcept {
    SOAGEO_ASSERT(st.n <= s.cap);
    s.use = SweepScratch::Use::sorting;
    const uint32_t n = st.n;
    const Columns& c = st.col;
    SweepBoxes& b = s.boxes;
    for (uint32_t i = 0; i < n; ++i) {
        s.keys[i] = float_key(c.x[i] - c.r[i]);
        b.slot[i] = i;
    }
    radix_sort32(s.keys, b.slot, s.tmp_keys, s.tmp_vals, n);
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t at = b.slot[i];
        float x = c.x[at], y = c.y[at], r = c.r[at];
        b.minx[i] = x - r;
        b.maxx[i] = x + r;
        b.miny[i] = y - r;
        b.maxy[i] = y + r;
    }
    const float nan = std::nanf("");
    for (uint32_t i = n; i < n + kMaxWidth; ++i) {
        b.minx[i] = b.maxx[i] = b.miny[i] = b.maxy[i] = nan;
        b.slot[i] = 0;
    }
    b.n = n;
    if (with_ranks) keep_or_rank_ids(c.id, n, s.id_keys, s.slot_of_rank, s.rank, s.tmp_id_keys, s.tmp_vals, s.ranked_n);
    s.use = SweepScratch::Use::ordering;  // keys, tmp_keys and tmp_vals are free from here
}

size_t pair_buffer_bytes(uint64_t cap) noexcept { return layout_bytes(lay_pair_buffer, cap); }

PairBuffer pair_buffer_carve(void* block, uint64_t cap) noexcept {
    PairBuffer p = layout_carve(block, lay_pair_buffer, cap);
    *p.held_cap = cap;
    return p;
}

uint32_t* ranks_at_positions(const SweepScratch& s) noexcept {
    SOAGEO_ASSERT(s.use == SweepScratch::Use::ordering);
    for (uint32_t p = 0; p < s.boxes.n; ++p) s.rank_at_pos[p] = s.rank[s.boxes.slot[p]];
    return s.rank_at_pos;
}

void order_pairs(PairBuffer& buf, uint64_t n, const SweepScratch& sa, const SweepScratch& sb, bool complete) noexcept {
    SOAGEO_ASSERT(n <= buf.cap);
    SOAGEO_ASSERT(sa.use == SweepScratch::Use::ordering && sb.use == SweepScratch::Use::ordering);
    const uint32_t na = sa.boxes.n, nb = sb.boxes.n;
    if (na > 0x10000u || nb > 0x10000u) {  // the byte-wise sort of rank_lo << 32 | rank_hi
        for (uint64_t i = 0; i < n; ++i) {
            uint64_t ra = sa.rank[sa.boxes.slot[buf.a[i]]];
            uint64_t rb = sb.rank[sb.boxes.slot[buf.b[i]]];
            if (complete && rb < ra) std::swap(ra, rb);
            buf.keys[i] = (ra << 32) | rb;
        }
        radix_sort64(buf.keys, nullptr, buf.tmp, nullptr, n);
        return;
    }
    // Ranks below 2^16 on both sides (up to 65,536 entities): 32-bit keys, counted by each
    // rank as they are made (counting_sort_pairs16).
    uint32_t* keys = buf.keys32;
    uint32_t* by_lo = sa.lo_counts;  // cap + kMaxWidth entries each
    uint32_t* by_hi = sb.hi_counts;
    std::memset(by_lo, 0, (size_t(na) + 1) * sizeof(uint32_t));
    std::memset(by_hi, 0, (size_t(nb) + 1) * sizeof(uint32_t));
    // The rank at each sorted position, so that each pair costs one lookup per side.
    const uint32_t* rank_a = ranks_at_positions(sa);
    const uint32_t* rank_b = sb.rank_at_pos == sa.rank_at_pos ? rank_a : ranks_at_positions(sb);
    for (uint64_t i = 0; i < n; ++i) {
        uint32_t ra = rank_a[buf.a[i]];
        uint32_t rb = rank_b[buf.b[i]];
        if (complete && rb < ra) std::swap(ra, rb);
        keys[i] = (ra << 16) | rb;
        ++by_lo[ra + 1];
        ++by_hi[rb + 1];
    }
    counting_sort_pairs16(keys, buf.tmp32, n, by_lo, na, by_hi, nb);
}

void order_rank_pairs(PairBuffer& buf, uint64_t n, uint32_t n_ranks, bool complete) noexcept {
    SOAGEO_ASSERT(n <= buf.cap);
    uint64_t* keys = buf.keys;
    uint32_t hb = 1;  // bits of a rank
    while (hb < 32 && (uint64_t(1) << hb) < n_ranks) ++hb;
    // Both ranks packed into 2 * hb bits: 4 passes of the packed sort at 1,000,000 entities
    // where the byte-wise sort takes 6 (build/bench_pairs). Past what it packs, the byte-wise sort.
    if (2 * hb > kPackedPairBits || n >= (uint64_t(1) << 32)) {
        for (uint64_t i = 0; i < n; ++i) {
            uint64_t a = buf.a[i], b = buf.b[i];
            keys[i] = a < b || !complete ? (a << 32) | b : (b << 32) | a;
        }
        radix_sort64(keys, nullptr, buf.tmp, nullptr, n);
        return;
    }
    for (uint64_t i = 0; i < n; ++i) {
        // Branch-free: which end is lower is a coin toss for the incremental contacts' pairs.
        const uint64_t a = buf.a[i], b = buf.b[i];
        const uint64_t swap = (a ^ b) & (uint64_t(0) - uint64_t(complete & (b < a)));
        keys[i] = ((a ^ swap) << hb) | (b ^ swap);
    }
    radix_sort_packed_pairs(keys, buf.tmp, n, hb, 2 * hb);
}

}  // namespace soageo
