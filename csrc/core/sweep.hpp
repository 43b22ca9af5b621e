// Sort-and-sweep (the sweep-line article) over entity boxes (centre +- r): the boxes sorted by min-x in
// SoA form, the sweeps (kernels, see kernel_sweep.inl) and the ordering of the pairs they find.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels.hpp"
#include "store.hpp"

namespace soageo {

// Boxes sorted by minx. Past n, kMaxWidth sentinel entries have minx = NaN: every comparison
// with NaN is false, so a sweep stops there without a bounds check even when a box reaches
// +inf (x + r overflows float32 for huge coordinates, which a +inf sentinel would not stop).
struct SweepBoxes {
    float* minx;
    float* maxx;
    float* miny;
    float* maxy;
    uint32_t* slot;
    uint32_t n;
};

// Scratch of one layer for sweeping: the sorted boxes, radix-sort buffers and id ranks. keys,
// tmp_keys and tmp_vals (sweep_prepare's) are free once it returns; order_pairs then uses them
// under its names: `use` says which.
struct SweepScratch {
    SweepBoxes boxes;
    uint32_t* keys;
    uint32_t* tmp_keys;
    uint32_t* tmp_vals;
    uint32_t* rank_at_pos;  // = keys: the rank of the box at each sorted position
    uint32_t* lo_counts;    // = tmp_keys: counting-sort counters by the lower rank
    uint32_t* hi_counts;    // = tmp_vals: and by the higher rank
    enum class Use : uint8_t { sorting, ordering } use;
    uint64_t* id_keys;   // ranks: ids sorted, with their slots
    uint64_t* tmp_id_keys;
    uint32_t* rank;          // rank[slot] = position of the slot's id in id order
    uint32_t* slot_of_rank;  // the inverse
    uint32_t* ranked_n;      // entities the ranks describe (kNoSlot: none); kept in the block
    // Once ranked, the incremental contacts update's renumbering (contacts.cpp) reranks into
    // tmp_id_keys and tmp_keys and keeps its map in tmp_vals, until its commit (the same memory):
    uint64_t* reranked_keys;  // = tmp_id_keys
    uint32_t* reranked_slots; // = tmp_keys
    uint32_t* rank_remap;     // = tmp_vals: each last update's rank's new one (kNoSlot: removed)
    uint64_t* held_cap;      // the block's first word: the cap it was carved for (carved_cap)
    uint32_t cap;
};

size_t sweep_scratch_bytes(uint32_t cap) noexcept;
// `reuse`: the block was carved before with this cap, so its id ranks may still hold.
SweepScratch sweep_scratch_carve(void* block, uint32_t cap, bool reuse = false) noexcept;

// Fills s.boxes with the layer's boxes sorted by minx (radix sort) and s.rank with id ranks.
void sweep_prepare(const Store& st, SweepScratch& s, bool with_ranks) noexcept;

// Pair buffers: positions found by a sweep, then sortable keys.
struct PairBuffer {
    uint32_t* a;
    uint32_t* b;
    uint64_t* keys;
    uint64_t* tmp;
    uint32_t* keys32;  // = keys: order_pairs sorts 32-bit keys there first when ranks fit in 16 bits
    uint32_t* tmp32;   // = tmp
    uint64_t* held_cap;  // the block's first word: the cap it was carved for (carved_cap)
    uint64_t cap;
};

size_t pair_buffer_bytes(uint64_t cap) noexcept;
struct Carver;  // carve.hpp
// The pair buffer's arrays, for a block that holds one among others (contacts.cpp).
PairBuffer lay_pair_buffer(Carver& k, uint64_t cap) noexcept;
PairBuffer pair_buffer_carve(void* block, uint64_t cap) noexcept;

// Fills s.rank_at_pos (the id rank of each sorted position's box, s ranked); returns it.
uint32_t* ranks_at_positions(const SweepScratch& s) noexcept;

// Turns the n sweep positions in buf.a/buf.b into keys rank_lo << 32 | rank_hi ascending
// (`sa`/`sb`: the scratch they index; the same one for complete pairs).
void order_pairs(PairBuffer& buf, uint64_t n, const SweepScratch& sa, const SweepScratch& sb, bool complete) noexcept;

// The same for pairs given as id ranks (below n_ranks); without `complete`, the keys are
// rank_a << 32 | rank_b.
void order_rank_pairs(PairBuffer& buf, uint64_t n, uint32_t n_ranks, bool complete = true) noexcept;

}  // namespace soageo
