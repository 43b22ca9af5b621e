#include "radix.hpp"

#include <algorithm>
#include <cstring>

#include "invariant.hpp"
#include "store.hpp"

namespace soageo {
namespace {

inline uint32_t bits_for(uint32_t n) noexcept { return n ? 32 - uint32_t(__builtin_clz(n)) : 0; }

template <class Key>
void radix_sort(Key* keys, uint32_t* vals, Key* tmp_keys, uint32_t* tmp_vals, size_t n) noexcept {
    constexpr int passes = sizeof(Key);
    // Only bytes that differ between keys need a pass (ids 1..n, ranks below 2^16 and
    // coordinates of one region leave most bytes constant); one pass over the keys finds them.
    Key differ = 0;
    for (size_t i = 0; i < n; ++i) differ |= keys[i] ^ keys[0];
    int active[passes], n_active = 0;
    for (int p = 0; p < passes; ++p)
        if ((differ >> (8 * p)) & 0xff) active[n_active++] = p;
    size_t count[passes][256];
    std::memset(count, 0, sizeof(size_t) * 256 * size_t(n_active));
    for (size_t i = 0; i < n; ++i)
        for (int a = 0; a < n_active; ++a) ++count[a][(keys[i] >> (8 * active[a])) & 0xff];
    Key* src = keys;
    Key* dst = tmp_keys;
    uint32_t* vsrc = vals;
    uint32_t* vdst = tmp_vals;
    for (int a = 0; a < n_active; ++a) {
        const int p = active[a];
        size_t* c = count[a];
        size_t sum = 0;
        for (int b = 0; b < 256; ++b) {
            size_t v = c[b];
            c[b] = sum;
            sum += v;
        }
        for (size_t i = 0; i < n; ++i) {
            size_t at = c[(src[i] >> (8 * p)) & 0xff]++;
            dst[at] = src[i];
            if (vsrc) vdst[at] = vsrc[i];
        }
        std::swap(src, dst);
        std::swap(vsrc, vdst);
    }
    if (src != keys) {
        std::memcpy(keys, src, n * sizeof(Key));
        if (vals) std::memcpy(vals, vsrc, n * sizeof(uint32_t));
    }
}

}  // namespace

void radix_sort32(uint32_t* keys, uint32_t* vals, uint32_t* tmp_keys, uint32_t* tmp_vals, size_t n) noexcept {
    radix_sort(keys, vals, tmp_keys, tmp_vals, n);
}

void radix_sort_packed_pairs(uint64_t* keys, uint64_t* tmp, uint64_t n, uint32_t lo_bits, uint32_t key_bits) noexcept {
    SOAGEO_ASSERT(key_bits <= kPackedPairBits && n < (uint64_t(1) << 32));
    const uint32_t passes = key_bits ? (key_bits + 10) / 11 : 1;
    const uint32_t d = (key_bits + passes - 1) / passes, digit = (1u << d) - 1;
    uint32_t count[4][1u << 11];
    std::memset(count, 0, sizeof(count[0]) * passes);
    for (uint64_t i = 0; i < n; ++i)
        for (uint32_t p = 0; p < passes; ++p) ++count[p][(keys[i] >> (p * d)) & digit];
    for (uint32_t p = 0; p < passes; ++p) {
        uint32_t sum = 0;
        for (uint32_t v = 0; v <= digit; ++v) {
            const uint32_t c = count[p][v];
            count[p][v] = sum;
            sum += c;
        }
    }
    const uint64_t low = (uint64_t(1) << lo_bits) - 1;
    uint64_t* src = keys;
    uint64_t* dst = tmp;
    for (uint32_t p = 0; p < passes; ++p) {
        uint32_t* c = count[p];
        const uint32_t shift = p * d;
        if (p + 1 < passes) {
            for (uint64_t i = 0; i < n; ++i) {
                const uint64_t k = src[i];
                dst[c[(k >> shift) & digit]++] = k;
            }
        } else {
            for (uint64_t i = 0; i < n; ++i) {
                const uint64_t k = src[i];
                dst[c[(k >> shift) & digit]++] = ((k >> lo_bits) << 32) | (k & low);
            }
        }
        std::swap(src, dst);
    }
    if (src != keys) std::memcpy(keys, src, n * sizeof(uint64_t));
}

// A radix sort, not std::sort, which weighed on every incremental update of the AOI. The packed
// sort takes the number of passes of at most 11 bits that costs least for the keys' number (a
// tick holds a few hundred keys, for which 2048-bucket passes cost more than the keys). A
// counting pass on the top bits and then an insertion pass ran slower: the insertion's exits
// mispredict (bench/bench_pairs_lua.lua, the AOI lines).
void sort_pair_keys(uint64_t* keys, uint64_t* tmp, uint64_t n, uint32_t watchers, uint32_t ranks, uint32_t* packed,
                    uint32_t* packed_tmp, uint64_t packed_cap) noexcept {
    if (n < 256) {
        std::sort(keys, keys + n);
        return;
    }
    const uint32_t rank_bits = bits_for(ranks), total = rank_bits + bits_for(watchers);
    const uint64_t low = (uint64_t(1) << rank_bits) - 1;
    uint32_t count[2048];
    if (total <= 32 && n <= packed_cap) {
        uint32_t passes = 1, digit_bits = 32;
        double best = 0;
        for (uint32_t p = 1; p <= 4; ++p) {  // p = 3 always fits: 32 bits in digits of 11
            const uint32_t d = (total + p - 1) / p;
            if (d > 11) continue;
            const double cost = double(p) * (3.0 * double(n) + double(2u << d));
            if (digit_bits == 32 || cost < best) best = cost, passes = p, digit_bits = d;
        }
        uint32_t *from = packed, *to = packed_tmp;
        for (uint64_t i = 0; i < n; ++i) from[i] = uint32_t((keys[i] >> 32) << rank_bits | (keys[i] & low));
        const uint32_t buckets = 1u << digit_bits, digit_mask = buckets - 1;
        for (uint32_t pass = 0, shift = 0; pass < passes; ++pass, shift += digit_bits) {
            std::memset(count, 0, buckets * sizeof(uint32_t));
            for (uint64_t i = 0; i < n; ++i) ++count[(from[i] >> shift) & digit_mask];
            for (uint32_t d = 0, sum = 0; d < buckets; ++d) {
                const uint32_t c = count[d];
                count[d] = sum, sum += c;
            }
            for (uint64_t i = 0; i < n; ++i) to[count[(from[i] >> shift) & digit_mask]++] = from[i];
            std::swap(from, to);
        }
        for (uint64_t i = 0; i < n; ++i) keys[i] = uint64_t(from[i] >> rank_bits) << 32 | (from[i] & low);
        return;
    }
    if (total <= kPackedPairBits) {  // wider: packed in place, then the packed pair sort
        for (uint64_t i = 0; i < n; ++i) keys[i] = (keys[i] >> 32) << rank_bits | (keys[i] & low);
        radix_sort_packed_pairs(keys, tmp, n, rank_bits, total);
        return;
    }
    std::sort(keys, keys + n);  // more than 2^44 (watcher, rank) pairs possible: never in practice
}

void rank_ids(const int64_t* ids, uint32_t n, uint64_t* id_keys, uint32_t* slot_of_rank, uint32_t* rank,
              uint64_t* tmp_keys, uint32_t* tmp_vals) noexcept {
    for (uint32_t i = 0; i < n; ++i) {
        id_keys[i] = int_key(ids[i]);
        slot_of_rank[i] = i;
    }
    radix_sort(id_keys, slot_of_rank, tmp_keys, tmp_vals, n);
    for (uint32_t i = 0; i < n; ++i) rank[slot_of_rank[i]] = i;
}

void keep_or_rank_ids(const int64_t* ids, uint32_t n, uint64_t* id_keys, uint32_t* slot_of_rank, uint32_t* rank,
                      uint64_t* tmp_keys, uint32_t* tmp_vals, uint32_t* ranked_n) noexcept {
    uint64_t changed = *ranked_n == n ? 0 : 1;
    if (!changed)
        for (uint32_t i = 0; i < n; ++i) changed |= id_keys[rank[i]] ^ int_key(ids[i]);
    if (!changed) return;
    *ranked_n = ~0u;  // while the ranks are rebuilt they describe nothing
    rank_ids(ids, n, id_keys, slot_of_rank, rank, tmp_keys, tmp_vals);
    *ranked_n = n;
}

uint32_t rerank(const uint64_t* keys, const uint32_t* vals, uint32_t n, const RankChanges& ch, uint64_t* out_keys,
                uint32_t* out_vals, uint32_t* remap, uint32_t* added_rank) noexcept {
    const uint32_t na = ch.n_added, nr = ch.n_removed;
    uint32_t e = 0, out = 0, a = 0, r = 0;
    for (;;) {
        uint32_t next = n;
        if (a < na) next = std::min(next, ch.added_at[a]);
        if (r < nr) next = std::min(next, ch.removed_rank[r]);
        std::memcpy(out_keys + out, keys + e, size_t(next - e) * sizeof(uint64_t));
        if (vals) std::memcpy(out_vals + out, vals + e, size_t(next - e) * sizeof(uint32_t));
        for (; e < next; ++e) remap[e] = out++;
        if (a < na && ch.added_at[a] == e) {
            if (added_rank) added_rank[a] = out;
            if (vals) out_vals[out] = ch.added_val[a];
            out_keys[out++] = ch.added_key[a++];
        } else if (r < nr && ch.removed_rank[r] == e) {
            remap[e++] = kNoSlot;
            ++r;
        } else {
            SOAGEO_ASSERT(e == n && a == na && r == nr);
            return out;
        }
    }
}

void radix_sort64(uint64_t* keys, uint32_t* vals, uint64_t* tmp_keys, uint32_t* tmp_vals, size_t n) noexcept {
    radix_sort(keys, vals, tmp_keys, tmp_vals, n);
}

}  // namespace soageo
