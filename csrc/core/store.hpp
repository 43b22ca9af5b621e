// The layer's storage, without Lua: float32 SoA columns carved from one caller-provided block,
// and an open-addressing id -> slot map. The binding owns the memory (Lua userdata blocks, so
// skynet's memory accounting sees every byte); this file only computes sizes and moves data.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels.hpp"

namespace soageo {

constexpr uint32_t kNoSlot = 0xffffffffu;
// Slots are uint32 and result buffers hold one slot per entity; this keeps every size well
// inside size_t and int: 2^28 entities on 64-bit hosts, 2^24 on 32-bit ones, where the columns
// of 2^28 (36 bytes an entity) and its id map would not fit in a 32-bit size_t.
constexpr uint32_t kMaxEntities = sizeof(size_t) >= 8 ? 1u << 28 : 1u << 24;
constexpr const char* kMaxEntitiesText = sizeof(size_t) >= 8 ? "2^28" : "2^24";

// Capacity rounded up to whole blocks of the widest target.
inline uint32_t padded(uint32_t n) noexcept { return (n + (kMaxWidth - 1)) & ~uint32_t(kMaxWidth - 1); }

struct Columns {
    float* x;
    float* y;
    float* r;
    uint32_t* mask;
    int64_t* id;
    uint32_t* hits;  // scratch for kernel output: one slot per entity at most
    uint64_t* order; // scratch for sorting hits (segment casts): one key per entity
    uint32_t cap;    // a multiple of kMaxWidth
};

// Bytes of a block holding columns for `cap` entities (padded), alignment slack included.
size_t columns_bytes(uint32_t cap) noexcept;
// Carves the columns out of `block` (at least columns_bytes(cap) bytes) and zeroes the padding.
Columns columns_carve(void* block, uint32_t cap) noexcept;
void columns_copy(Columns& to, const Columns& from, uint32_t n) noexcept;

// Open addressing by buckets: a bucket is one cache line of kIdBucket ids and their slots; a
// lookup probes from its home until it finds the id or a bucket with a free position (no id
// ever went past a bucket with room). A lookup reads one line nearly always, so the map may be
// 80% full, not half: 16 bytes per entity of capacity, not 32, which keeps the map of 100,000
// entities (2 MB) in this machine's last-level cache share (twice that missed on every layer:move).
constexpr uint32_t kIdBucket = 5;
struct IdMap {
    struct alignas(64) Bucket {
        int64_t id[kIdBucket];
        uint32_t slot[kIdBucket];  // kNoSlot: the position is free (its id is stale)
    };
    Bucket* buckets;
    uint32_t cap;  // buckets: a power of two, with room for a quarter more ids than entities
};

// Where `id`'s probe sequence starts: splitmix64's finaliser, so sequential ids spread evenly.
inline uint32_t idmap_home(const IdMap& m, int64_t id) noexcept {
    uint64_t z = static_cast<uint64_t>(id);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return static_cast<uint32_t>(z ^ (z >> 31)) & (m.cap - 1);
}
// idmap_find from a home already computed (layer:move hashes once, to prefetch the line early).
// No branch inside a bucket: where in its bucket an id sits is random, and branching on it was
// mispredicted on most lookups.
inline uint32_t idmap_find_from(const IdMap& m, uint32_t home, int64_t id) noexcept {
    for (uint32_t b = home;; b = (b + 1) & (m.cap - 1)) {
        const IdMap::Bucket& k = m.buckets[b];
        // A position ANDs in its slot where its id matches, else all ones (a free position's
        // slot is all ones already, whatever stale id it keeps).
        uint32_t slot = kNoSlot, free = 0;
#pragma GCC unroll 8
        for (uint32_t p = 0; p < kIdBucket; ++p) {
            slot &= k.slot[p] | (0u - static_cast<uint32_t>(k.id[p] != id));
            free |= static_cast<uint32_t>(k.slot[p] == kNoSlot);
        }
        // Found decides first: it is what nearly every lookup ends with, while whether a bucket
        // has room is a coin toss, and a mispredicted branch here also cancels the lookups
        // running ahead of it (random lookups took much longer).
        if (__builtin_expect(slot != kNoSlot, 1)) return slot;
        if (free) return kNoSlot;
    }
}

// Fewest buckets for `entities` ids with the map at most 80% full.
uint32_t idmap_cap_for(uint32_t entities) noexcept;
size_t idmap_bytes(uint32_t cap) noexcept;  // alignment slack included
IdMap idmap_init(void* block, uint32_t cap) noexcept;  // all positions free
void idmap_clear(IdMap& m) noexcept;
// Its slot, or kNoSlot.
inline uint32_t idmap_find(const IdMap& m, int64_t id) noexcept { return idmap_find_from(m, idmap_home(m, id), id); }
// Inserts or overwrites; the caller guarantees room (idmap_cap_for of the count).
void idmap_put(IdMap& m, int64_t id, uint32_t slot) noexcept;
void idmap_erase(IdMap& m, int64_t id) noexcept;
// Hints the cache line where `id` will be looked up (bulk inserts run ahead with it).
inline void idmap_prefetch(const IdMap& m, int64_t id) noexcept {
    __builtin_prefetch(&m.buckets[idmap_home(m, id)], 1);
}
// The same for a lookup only (idmap_find), without asking for the line in a writable state.
inline void idmap_prefetch_find(const IdMap& m, int64_t id) noexcept {
    __builtin_prefetch(&m.buckets[idmap_home(m, id)], 0);
}
// Inserts an id that must be new; false (and nothing inserted) when it is already there.
bool idmap_insert_new(IdMap& m, int64_t id, uint32_t slot) noexcept;

// A batch of moves (layer:move_many) in scratch: the caller fills ids, xy (x, y pairs) and
// slots with each id's home in the map (idmap_home: hashed while the ids are read, where the
// hashing hides behind the reading), in its own order; the rest is the lookup's.
struct MoveBatch {
    uint64_t* held_cap;  // the moves the block was carved for (carved_cap reads it back)
    int64_t* ids;
    float* xy;
    int64_t* ids2;     // the batch in the map's order (long batches in large maps)
    float* xy2;
    uint32_t* home2;   // where each of those starts its probe
    uint32_t* slots;   // homes from the caller, slots from the lookup
};
// The scratch for `cap` moves, carved from one block (carve.hpp).
size_t move_batch_bytes(uint32_t cap) noexcept;
// What each move adds to that block, measured on the same layout (so a column added to it is
// counted): move_batch_bytes(cap) <= move_batch_bytes(0) + cap * this + 64 per array.
size_t move_batch_bytes_per_move() noexcept;
MoveBatch move_batch_carve(void* block, uint32_t cap) noexcept;

// What the lookup found: move k goes to slots[k] with xy[2k], xy[2k + 1] (in an order that keeps
// the moves of one id in the caller's order); `first_absent` is the first move (in the caller's
// order) whose id is not in the map, or n.
struct MovePlan {
    const uint32_t* slots;
    const float* xy;
    uint32_t first_absent;
};
// Once the map outgrows the caches, every lookup in a random order is a cache and a TLB miss,
// and prefetching hides only part of it; so a long batch is first put in the order of the map
// (a stable counting pass by region of the map, carrying the moves along), and its lookups then
// sweep the map. Shorter batches and smaller maps are looked up in order, with prefetching.
MovePlan move_batch_lookup(const IdMap& m, const MoveBatch& b, uint32_t n) noexcept;

// What changed since the spatial index (grid.hpp) last caught up: it catches up lazily, so a
// mutation only sets a bit here (adds and removes also go to the change feed below).
constexpr uint8_t kStaleMoved = 1;    // positions
constexpr uint8_t kStaleAll = 2;      // anything the feed cannot tell the index: rebuild from scratch
constexpr uint8_t kChanged = 4;       // any change since a query last asked (rebuild_policy.hpp)
constexpr uint8_t kChangedAll = 8;    // since a query last asked: a clear, a regrow, or too many adds and removes
constexpr uint8_t kStaleMembers = 16; // adds and removes since the index caught up, all in the feed
constexpr uint8_t kStaleShape = 32;   // radii or masks of entities already there
constexpr uint8_t kStaleIndex = kStaleMoved | kStaleAll | kStaleMembers | kStaleShape;

// The change feed (doc/design.md): every change to the set of ids numbered (seq, from 0; 64
// bits never wrap), the last kMaxMembersBehind kept in a ring, from which a consumer no further
// behind patches its copy. An add: a new entity at `slot`, last == kMemberAdded; a remove: it
// freed `slot` and moved the entity at `last` into it; a clear: slot == kMembersCleared, last
// the count it emptied. A tick of a few deaths and spawns stays well below the bound.
constexpr uint32_t kMaxMembersBehind = 64;
static_assert((kMaxMembersBehind & (kMaxMembersBehind - 1)) == 0, "the ring is indexed by seq modulo its length");
constexpr uint32_t kMemberAdded = 0xffffffffu;
constexpr uint32_t kMembersCleared = 0xffffffffu;
struct MemberOp {
    uint32_t slot, last;
};
struct MemberFeed {
    uint64_t seq;  // changes so far; layer:each() raises when it moved between steps
    MemberOp op[kMaxMembersBehind];  // change k at op[k % kMaxMembersBehind]
};
// Whether the feed still holds every change after the first `seen`.
inline bool feed_holds(const MemberFeed& f, uint64_t seen) noexcept {
    return seen <= f.seq && f.seq - seen <= kMaxMembersBehind;
}
// Change k (the feed must hold it).
inline MemberOp feed_at(const MemberFeed& f, uint64_t k) noexcept { return f.op[k % kMaxMembersBehind]; }

// What changed since layer:commit last recorded the layer (history.hpp): positions only, or
// which entities sit in which slot, or their radii and masks. A byte of its own, not bits of
// `stale`, which the index clears whenever it catches up.
constexpr uint8_t kCommitMoved = 1;
constexpr uint8_t kCommitShape = 2;

// The whole layer as the core sees it. Every mutation below assumes the caller has already
// validated its arguments and made room: none of them can fail.
struct Store {
    Columns col;
    IdMap map;
    uint32_t n;
    uint8_t stale;
    MemberFeed feed;
    // The feed's seq when a query last asked or the index caught up: more than
    // kMaxMembersBehind since, kChangedAll (a tick like this one would need a full build even
    // with the index up to date).
    uint64_t query_seen;
    uint64_t index_seen;   // the index's cursor: the feed's seq when it last caught up
    uint8_t since_commit;  // kCommitMoved, kCommitShape (last, so that aggregates listing the rest still fit)
};

// The index has caught up with every change.
inline void store_index_synced(Store& s) noexcept {
    s.stale = 0;
    s.index_seen = s.query_seen = s.feed.seq;
}

inline Points points_of(const Store& s) noexcept { return {s.col.x, s.col.y, s.col.r, s.col.mask, s.n}; }

// Inserts (needs n < col.cap) or updates `id`; returns its slot.
uint32_t store_set(Store& s, int64_t id, float x, float y, float r, uint32_t mask) noexcept;
// Moves the entity at `slot` (a slot the id map gave). Every move goes through here or
// store_move_many, so the spatial index learns of moves in one place.
inline void store_move(Store& s, uint32_t slot, float x, float y) noexcept {
    s.col.x[slot] = x;
    s.col.y[slot] = y;
    s.stale |= kStaleMoved | kChanged;
    s.since_commit |= kCommitMoved;
}
// Moves slots[i] to (xy[2i], xy[2i + 1]) for i < n, in order (a slot listed twice ends at its
// last position).
void store_move_many(Store& s, const uint32_t* slots, const float* xy, uint32_t n) noexcept;
// Swap-removes `id`; false when it is not there.
bool store_remove(Store& s, int64_t id) noexcept;
void store_clear(Store& s) noexcept;
// Moves all entities into new, larger columns and map (both already carved and empty).
void store_rehome(Store& s, const Columns& col, const IdMap& map) noexcept;

}  // namespace soageo
