// LSD radix sorts over caller-provided scratch (no allocation), for the pairer and AOI.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace soageo {

// Maps a float to a uint32 whose unsigned order is the float's order (-0 before +0; NaN
// never reaches here: layers hold finite values only).
inline uint32_t float_key(float f) noexcept {
    uint32_t b;
    __builtin_memcpy(&b, &f, 4);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
}

// Sorts keys[0..n) ascending, moving vals along; stable. tmp_keys/tmp_vals hold n each.
void radix_sort32(uint32_t* keys, uint32_t* vals, uint32_t* tmp_keys, uint32_t* tmp_vals, size_t n) noexcept;

// The same for 64-bit keys; vals and tmp_vals may be null when there is no payload.
void radix_sort64(uint64_t* keys, uint32_t* vals, uint64_t* tmp_keys, uint32_t* tmp_vals, size_t n) noexcept;

// Pair keys packed as hi << lo_bits | lo, below 2^key_bits (at most 44), sorted ascending by
// an LSD radix sort in as few passes of at most 11 bits as cover them (4 at most: fewer passes
// than the byte-wise sort of hi << 32 | lo, and the sort is memory-bound), the last pass
// unpacking each to hi << 32 | lo. tmp holds n; n below 2^32.
void radix_sort_packed_pairs(uint64_t* keys, uint64_t* tmp, uint64_t n, uint32_t lo_bits, uint32_t key_bits) noexcept;
constexpr uint32_t kPackedPairBits = 44;

// Pair keys hi << 32 | lo (hi below `his`, lo below `los`), as the AOI's events are keyed,
// sorted ascending on the bits they use: packed to 32 bits and radix sorted in packed and
// packed_tmp (packed_cap each) when they fit, else packed in place for radix_sort_packed_pairs
// (tmp holds n). Below 256 keys, and past kPackedPairBits (never in practice), std::sort.
void sort_pair_keys(uint64_t* keys, uint64_t* tmp, uint64_t n, uint32_t his, uint32_t los, uint32_t* packed,
                    uint32_t* packed_tmp, uint64_t packed_cap) noexcept;

// Pair keys ra << 16 | rb (both ranks below 2^16), counted by the caller as it made them
// (by_lo[ra + 1], by_hi[rb + 1]; n_lo + 1 and n_hi + 1 counters): sorted by two counting
// passes, one per rank, then widened in place to ra << 32 | rb (the n 64-bit keys take the
// memory of keys and what follows it: 8n bytes). Two passes over keys half as wide, where the
// packed sort of the same pairs takes up to three. Inline: as a call into radix.cpp it made
// layer:pairs slower at 10,000 entities (bench/ab.lua, pairs_10000).
inline void counting_sort_pairs16(uint32_t* keys, uint32_t* tmp, uint64_t n, uint32_t* by_lo, uint32_t n_lo,
                                  uint32_t* by_hi, uint32_t n_hi) noexcept {
    for (uint32_t r = 1; r <= n_lo; ++r) by_lo[r] += by_lo[r - 1];
    for (uint32_t r = 1; r <= n_hi; ++r) by_hi[r] += by_hi[r - 1];
    for (uint64_t i = 0; i < n; ++i) tmp[by_hi[keys[i] & 0xffffu]++] = keys[i];
    for (uint64_t i = 0; i < n; ++i) keys[by_lo[tmp[i] >> 16]++] = tmp[i];
    auto* bytes = reinterpret_cast<unsigned char*>(keys);
    for (uint64_t i = n; i-- > 0;) {  // from the end: key i moves to 8i >= 4i
        uint32_t k;
        std::memcpy(&k, bytes + 4 * i, 4);
        const uint64_t wide = (uint64_t(k >> 16) << 32) | (k & 0xffffu);
        std::memcpy(bytes + 8 * i, &wide, 8);
    }
}

// Maps an int64 to a uint64 with the same order, and back.
inline uint64_t int_key(int64_t v) noexcept { return static_cast<uint64_t>(v) ^ 0x8000000000000000ull; }
inline int64_t key_int(uint64_t k) noexcept { return static_cast<int64_t>(k ^ 0x8000000000000000ull); }

// Ranks n ids: afterwards id_keys holds int_key(id) ascending, slot_of_rank[r] the slot with
// the r-th smallest id and rank[slot] its inverse. tmp_keys and tmp_vals are scratch (n each).
void rank_ids(const int64_t* ids, uint32_t n, uint64_t* id_keys, uint32_t* slot_of_rank, uint32_t* rank,
              uint64_t* tmp_keys, uint32_t* tmp_vals) noexcept;

// rank_ids, unless the ranks still hold: *ranked_n (the count they describe, ~0u for none)
// is n and every slot's id is still the one at its rank. Ids rarely change between sweeps or
// AOI updates, and this check costs a tenth of the 64-bit radix sort it saves.
void keep_or_rank_ids(const int64_t* ids, uint32_t n, uint64_t* id_keys, uint32_t* slot_of_rank, uint32_t* rank,
                      uint64_t* tmp_keys, uint32_t* tmp_vals, uint32_t* ranked_n) noexcept;

// A few adds and removes since a ranking: which ranks went (ascending), the added keys
// (ascending, none equal to a kept one) and each one's place, added_at[i] = how many of the
// ranked keys are below it (ascending too). vals: a payload per added key, or null.
struct RankChanges {
    const uint32_t* removed_rank;
    uint32_t n_removed;
    const uint64_t* added_key;
    const uint32_t* added_at;
    const uint32_t* added_val;
    uint32_t n_added;
};

// The ranking after `ch` without a sort: the ranked keys[0, n) (ascending, vals along unless
// null) copied in runs between the removed and the added into out_keys/out_vals; remap[r] gets
// rank r's new one (kNoSlot: removed), added_rank[i] (unless null) the added i's. Returns the
// new count. Keys are only copied, never compared: ids or int_key's of them alike. Rather than a
// radix sort of every id (bench/bench_pairs_lua.lua, contacts with deaths and spawns).
uint32_t rerank(const uint64_t* keys, const uint32_t* vals, uint32_t n, const RankChanges& ch, uint64_t* out_keys,
                uint32_t* out_vals, uint32_t* remap, uint32_t* added_rank) noexcept;

// The same over ids themselves (the AOI's ranking keeps them as they are): int64_t and
// uint64_t may alias each other.
inline uint32_t rerank(const int64_t* ids, uint32_t n, const RankChanges& ch, int64_t* out_ids, uint32_t* remap,
                       uint32_t* added_rank) noexcept {
    return rerank(reinterpret_cast<const uint64_t*>(ids), nullptr, n, ch, reinterpret_cast<uint64_t*>(out_ids), nullptr,
                  remap, added_rank);
}

}  // namespace soageo
