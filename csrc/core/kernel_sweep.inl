// The sweeps of sort-and-sweep, written once against wide.hpp: for each box in min-x order, the
// following boxes whose min-x is within its max-x are tested on y, W at a time, branch-free
// inside a block. Touching counts (<=).

namespace soageo {
namespace SOAGEO_TARGET {

// Tests boxes [j, j + W) against box (hix, loy, hiy) and records the overlapping ones as
// (i, j + lane). Returns false once a lane's min-x is past hix: the boxes are sorted, so no
// later box can overlap (a NaN sentinel also fails the test and ends the sweep).
// With Aligned, j is a multiple of W and the lanes below bit `keep` are not reported (they
// lie at or before box i, and pass the min-x test since min-x ascends).
template <bool Aligned>
inline bool sweep_block(const SweepBoxes& b, uint32_t i, uint32_t j, wf hix, wf loy, wf hiy, uint32_t* out_a,
                        uint32_t* out_b, uint64_t cap, uint64_t& k, uint32_t keep = ~0u) {
    wm inx = le(Aligned ? load(b.minx + j) : loadu(b.minx + j), hix);
    wm hit = mand(inx, mand(le(Aligned ? load(b.miny + j) : loadu(b.miny + j), hiy),
                            le(loy, Aligned ? load(b.maxy + j) : loadu(b.maxy + j))));
    uint32_t bits_hit = bits(hit) & keep;
    if (k + W <= cap) {  // branch-free: hits are few and scattered, a per-hit loop mispredicts
        store_splat(out_a + k, i);
        k += emit(out_b + k, j, bits_hit);
        return bits(inx) == live_lanes(W);
    }
    while (bits_hit) {  // near the end of the buffer: count everything, store what fits
        uint32_t lane = static_cast<uint32_t>(__builtin_ctz(bits_hit));
        bits_hit &= bits_hit - 1;
        if (k < cap) {
            out_a[k] = i;
            out_b[k] = j + lane;
        }
        ++k;
    }
    return bits(inx) == live_lanes(W);
}

// All overlapping pairs (i < j) of one sorted set. Writes at most `cap`, returns how many exist.
inline uint64_t sweep_complete(const SweepBoxes& boxes, uint32_t* out_a, uint32_t* out_b, uint64_t cap) noexcept {
    const SweepBoxes b = boxes;
    uint64_t k = 0;
    for (uint32_t i = 0; i < b.n; ++i) {
        const wf hix = splat(b.maxx[i]), loy = splat(b.miny[i]), hiy = splat(b.maxy[i]);
        // Aligned blocks from the one holding i + 1: unaligned wide loads split cache lines.
        const uint32_t first = (i + 1) & ~uint32_t(W - 1);
        const uint32_t keep = ~0u << ((i + 1) - first);
        if (!sweep_block<true>(b, i, first, hix, loy, hiy, out_a, out_b, cap, k, keep)) continue;
        for (uint32_t j = first + W; sweep_block<true>(b, i, j, hix, loy, hiy, out_a, out_b, cap, k); j += W) {
        }
    }
    return k;
}

// Pairs (i in a, j in b) of two sorted sets. Each pair is found once: from the a side when
// a.minx <= b.minx, from the b side when b.minx < a.minx.
inline uint64_t sweep_between(const SweepBoxes& sa, const SweepBoxes& sb, uint32_t* out_a, uint32_t* out_b,
                              uint64_t cap) noexcept {
    const SweepBoxes a = sa, b = sb;
    uint64_t k = 0;
    uint32_t start = 0;
    for (uint32_t i = 0; i < a.n; ++i) {
        while (start < b.n && b.minx[start] < a.minx[i]) ++start;
        const wf hix = splat(a.maxx[i]), loy = splat(a.miny[i]), hiy = splat(a.maxy[i]);
        for (uint32_t j = start; j < b.n && sweep_block<false>(b, i, j, hix, loy, hiy, out_a, out_b, cap, k); j += W) {
        }
    }
    // From the b side the roles swap: out_b receives the b index, out_a the a index.
    start = 0;
    for (uint32_t j = 0; j < b.n; ++j) {
        while (start < a.n && !(a.minx[start] > b.minx[j])) ++start;
        const wf hix = splat(b.maxx[j]), loy = splat(b.miny[j]), hiy = splat(b.maxy[j]);
        for (uint32_t i = start; i < a.n && sweep_block<false>(a, j, i, hix, loy, hiy, out_b, out_a, cap, k); i += W) {
        }
    }
    return k;
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo
