#include "store.hpp"

#include <algorithm>
#include <cstring>

#include "carve.hpp"

namespace soageo {
namespace {

Columns lay_columns(Carver& k, uint32_t cap) noexcept {
    Columns c;
    c.cap = padded(cap);
    k.take_zeroed_each(c.cap, &c.x, &c.y, &c.r, &c.mask, &c.hits, &c.id, &c.order);
    return c;
}

// Where `id` sits in bucket k (kIdBucket: not there), and the bucket's first free position
// (kIdBucket: full; a full bucket means an id may have probed past it).
struct InBucket {
    uint32_t at, free;
};
InBucket find_in_bucket(const IdMap::Bucket& k, int64_t id) noexcept {
    InBucket r{kIdBucket, kIdBucket};
    for (uint32_t p = 0; p < kIdBucket; ++p) {
        if (k.slot[p] == kNoSlot) {
            if (r.free == kIdBucket) r.free = p;
        } else if (k.id[p] == id) {
            r.at = p;
        }
    }
    return r;
}

// Puts `id` in the first free position from its home, or finds it on the way: false then, and
// its slot becomes `slot` when `overwrite`.
bool idmap_place(IdMap& m, int64_t id, uint32_t slot, bool overwrite) noexcept {
    for (uint32_t b = idmap_home(m, id);; b = (b + 1) & (m.cap - 1)) {
        IdMap::Bucket& k = m.buckets[b];
        const InBucket f = find_in_bucket(k, id);
        if (f.at < kIdBucket) {
            if (overwrite) k.slot[f.at] = slot;
            return false;
        }
        if (f.free < kIdBucket) {  // no id went past a bucket with room: `id` is new
            k.id[f.free] = id;
            k.slot[f.free] = slot;
            return true;
        }
    }
}

MoveBatch lay_moves(Carver& k, uint32_t cap) noexcept {
    MoveBatch m;
    m.held_cap = k.take<uint64_t>(1);
    k.take_each(cap, &m.ids, &m.ids2);
    k.take_each(2 * size_t(cap), &m.xy, &m.xy2);
    k.take_each(cap, &m.home2, &m.slots);
    return m;
}

void feed_push(MemberFeed& f, uint32_t slot, uint32_t last) noexcept {
    f.op[f.seq % kMaxMembersBehind] = MemberOp{slot, last};
    ++f.seq;
}

void log_member(Store& s, uint32_t slot, uint32_t last) noexcept {
    MemberFeed& f = s.feed;
    feed_push(f, slot, last);
    s.stale |= kChanged | kStaleMembers;
    if (f.seq - s.query_seen > kMaxMembersBehind) s.stale |= kChangedAll;
    if (!feed_holds(f, s.index_seen)) s.stale |= kStaleAll;  // the index starts from scratch
}

}  // namespace

size_t columns_bytes(uint32_t cap) noexcept { return layout_bytes(lay_columns, cap); }

Columns columns_carve(void* block, uint32_t cap) noexcept { return layout_carve(block, lay_columns, cap); }

void columns_copy(Columns& to, const Columns& from, uint32_t n) noexcept {
    move_rows(to, 0, from, 0, n, &Columns::x, &Columns::y, &Columns::r, &Columns::mask, &Columns::id);
}

uint32_t idmap_cap_for(uint32_t entities) noexcept {
    uint32_t c = 4;
    while (uint64_t(c) * 4 < entities) c *= 2;  // entities <= 4/5 of c * kIdBucket positions
    return c;
}

size_t idmap_bytes(uint32_t cap) noexcept { return sizeof(IdMap::Bucket) * size_t(cap) + kAlign; }

IdMap idmap_init(void* block, uint32_t cap) noexcept {
    IdMap m{reinterpret_cast<IdMap::Bucket*>(align_up(reinterpret_cast<uintptr_t>(block))), cap};
    idmap_clear(m);
    return m;
}

void idmap_clear(IdMap& m) noexcept {
    static_assert(sizeof(IdMap::Bucket) == kAlign, "a bucket is one cache line");
    std::memset(static_cast<void*>(m.buckets), 0xff, sizeof(IdMap::Bucket) * size_t(m.cap));  // slots kNoSlot
}

void idmap_put(IdMap& m, int64_t id, uint32_t slot) noexcept { idmap_place(m, id, slot, true); }

bool idmap_insert_new(IdMap& m, int64_t id, uint32_t slot) noexcept { return idmap_place(m, id, slot, false); }

// No tombstones, so lookups never slow down after many removals: the freed position takes an
// id from a later bucket that probed past it (whose position is then the one freed), until a
// bucket with room ends the chain.
void idmap_erase(IdMap& m, int64_t id) noexcept {
    const uint32_t mask = m.cap - 1;
    uint32_t hole = idmap_home(m, id);
    for (;; hole = (hole + 1) & mask) {
        IdMap::Bucket& k = m.buckets[hole];
        const InBucket f = find_in_bucket(k, id);
        if (f.at < kIdBucket) k.slot[f.at] = kNoSlot;
        if (f.free < kIdBucket) return;  // the bucket had room: no id probed past it (or `id` is absent)
        if (f.at < kIdBucket) break;
    }
    for (uint32_t j = (hole + 1) & mask;; j = (j + 1) & mask) {
        IdMap::Bucket& k = m.buckets[j];
        bool full = true;
        uint32_t back = kIdBucket;  // an id whose home is cyclically at or before the hole
        for (uint32_t p = 0; p < kIdBucket; ++p) {
            if (k.slot[p] == kNoSlot) {
                full = false;
            } else if (back == kIdBucket && ((j - idmap_home(m, k.id[p])) & mask) >= ((j - hole) & mask)) {
                back = p;
            }
        }
        if (back < kIdBucket) {
            IdMap::Bucket& h = m.buckets[hole];
            uint32_t q = 0;
            while (h.slot[q] != kNoSlot) ++q;  // the hole's bucket was full but for the hole
            h.id[q] = k.id[back];
            h.slot[q] = k.slot[back];
            k.slot[back] = kNoSlot;
            hole = j;
        }
        if (!full) return;  // this bucket had room before: no id probed past it
    }
}

size_t move_batch_bytes(uint32_t cap) noexcept { return layout_bytes(lay_moves, cap); }

size_t move_batch_bytes_per_move() noexcept {
    // A multiple of 64 moves fills whole lines in every array: the difference is exact.
    constexpr uint32_t kProbe = 1u << 12;
    return (move_batch_bytes(kProbe) - move_batch_bytes(0)) / kProbe;
}

MoveBatch move_batch_carve(void* block, uint32_t cap) noexcept {
    MoveBatch m = layout_carve(block, lay_moves, cap);
    *m.held_cap = cap;
    return m;
}

MovePlan move_batch_lookup(const IdMap& m, const MoveBatch& b, uint32_t n) noexcept {
    // Regions of the map: the counting pass writes three streams per region (ids, xy, homes),
    // and 2^8 regions keep those 768 streams' lines in the L1 cache, while a region (64 KB of
    // the map of a million entities) stays in the L2 while its lookups run. At 1,000,000 moves
    // 2^8 regions beat 2^7 and 2^10 (measured with the map twice its size; move_many at
    // 1,000,000 in bench/bench_moves_lua.lua).
    constexpr uint32_t kRegionBits = 8;
    // Below these the map stays cached (2^16 buckets: 4 MB) or the batch is too short to pay
    // for the extra pass; lookups then go in order, each line asked for kAhead lookups early.
    constexpr uint32_t kSortedMapFrom = 1u << 17, kSortedBatchFrom = 1u << 14, kAhead = 16;
    uint32_t first_absent = n;
    if (m.cap < kSortedMapFrom || n < kSortedBatchFrom) {
        for (uint32_t i = 0; i < n && i < kAhead; ++i) __builtin_prefetch(&m.buckets[b.slots[i]], 0);
        for (uint32_t i = 0; i < n; ++i) {
            if (i + kAhead < n) __builtin_prefetch(&m.buckets[b.slots[i + kAhead]], 0);
            b.slots[i] = idmap_find_from(m, b.slots[i], b.ids[i]);
            if (b.slots[i] == kNoSlot && first_absent == n) first_absent = i;
        }
        return MovePlan{b.slots, b.xy, first_absent};
    }
    uint32_t shift = 0;
    while ((m.cap >> shift) > (1u << kRegionBits)) ++shift;
    uint32_t start[(1u << kRegionBits) + 1] = {};
    for (uint32_t i = 0; i < n; ++i) ++start[(b.slots[i] >> shift) + 1];
    for (uint32_t r = 1; r <= (1u << kRegionBits); ++r) start[r] += start[r - 1];
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t home = b.slots[i];
        const uint32_t k = start[home >> shift]++;
        b.ids2[k] = b.ids[i];
        std::memcpy(b.xy2 + 2 * k, b.xy + 2 * i, 8);
        b.home2[k] = home;
    }
    // Within a region the lines are met in no order, which no hardware prefetcher follows. When
    // the batch has a lookup for most of the map's lines, the regions, which come in address
    // order, are asked for line by line, a region ahead of the lookups (at the pace they go
    // through the map), and most lookups find their line cached. A sparser batch would fetch
    // mostly lines it never reads: each of its lines is asked for kAhead lookups early.
    const char* map = reinterpret_cast<const char*>(m.buckets);
    const uint64_t map_bytes = uint64_t(m.cap) * sizeof(IdMap::Bucket);
    const bool stream = uint64_t(n) * 64 >= map_bytes / 2;  // a lookup for every other line or more
    const uint64_t step = (map_bytes << 16) / n;  // bytes of map a lookup, in 16.16 fixed point
    uint64_t ahead = (map_bytes >> kRegionBits) << 16, asked = 0;
    bool absent = false;
    for (uint32_t k = 0; k < n; ++k) {
        if (stream) {
            ahead += step;
            for (const uint64_t want = std::min(ahead >> 16, map_bytes); asked < want; asked += 64)
                __builtin_prefetch(map + asked, 0);
        } else if (k + kAhead < n) {
            __builtin_prefetch(&m.buckets[b.home2[k + kAhead]], 0);
        }
        b.slots[k] = idmap_find_from(m, b.home2[k], b.ids2[k]);
        absent |= b.slots[k] == kNoSlot;
    }
    // Which absent id comes first in the caller's order (an error: nothing is written).
    if (absent)
        for (uint32_t i = 0; i < n && first_absent == n; ++i)
            if (idmap_find(m, b.ids[i]) == kNoSlot) first_absent = i;
    return MovePlan{b.slots, b.xy2, first_absent};
}

uint32_t store_set(Store& s, int64_t id, float x, float y, float r, uint32_t mask) noexcept {
    SOAGEO_ASSERT(s.n < s.col.cap || idmap_find(s.map, id) != kNoSlot);  // room for a new id
    uint32_t slot = idmap_find(s.map, id);
    if (slot == kNoSlot) {
        slot = s.n++;
        s.col.id[slot] = id;
        idmap_put(s.map, id, slot);
        log_member(s, slot, kMemberAdded);
        s.since_commit |= kCommitShape;
    } else {
        // Bit for bit: a radius of 0 set again as -0.0 is another radius to get, each and dump,
        // so the history must copy the radii for it (kCommitShape).
        const bool same = std::memcmp(&s.col.r[slot], &r, sizeof r) == 0 && s.col.mask[slot] == mask;
        s.stale |= (same ? kStaleMoved : kStaleMoved | kStaleShape) | kChanged;
        s.since_commit |= same ? kCommitMoved : kCommitShape;
    }
    s.col.x[slot] = x;
    s.col.y[slot] = y;
    s.col.r[slot] = r;
    s.col.mask[slot] = mask;
    return slot;
}

void store_move_many(Store& s, const uint32_t* slots, const float* xy, uint32_t n) noexcept {
    // Random slots: every store may miss the cache twice (x and y columns); asking for the
    // lines of the move kDist ahead keeps several misses in flight.
    constexpr uint32_t kDist = 16;
    if (n) {
        s.stale |= kStaleMoved | kChanged;
        s.since_commit |= kCommitMoved;
    }
    float* x = s.col.x;
    float* y = s.col.y;
    for (uint32_t i = 0; i < n; ++i) {
        if (i + kDist < n) {
            __builtin_prefetch(x + slots[i + kDist], 1);
            __builtin_prefetch(y + slots[i + kDist], 1);
        }
        x[slots[i]] = xy[2 * i];
        y[slots[i]] = xy[2 * i + 1];
    }
}

bool store_remove(Store& s, int64_t id) noexcept {
    uint32_t slot = idmap_find(s.map, id);
    if (slot == kNoSlot) return false;
    idmap_erase(s.map, id);
    uint32_t last = --s.n;
    log_member(s, slot, last);
    s.since_commit |= kCommitShape;
    if (slot != last) {
        move_rows(s.col, slot, s.col, last, 1, &Columns::x, &Columns::y, &Columns::r, &Columns::mask, &Columns::id);
        idmap_put(s.map, s.col.id[slot], slot);
    }
    // The vacated slot becomes padding again.
    s.col.x[last] = s.col.y[last] = s.col.r[last] = 0.0f;
    s.col.mask[last] = 0;
    return true;
}

void store_clear(Store& s) noexcept {
    if (s.n) feed_push(s.feed, kMembersCleared, s.n);
    idmap_clear(s.map);
    for (float* c : {s.col.x, s.col.y, s.col.r}) std::memset(c, 0, s.n * sizeof(float));
    std::memset(s.col.mask, 0, s.n * sizeof(uint32_t));
    s.n = 0;
    s.stale |= kStaleAll | kChanged | kChangedAll;
    s.since_commit |= kCommitShape;
}

void store_rehome(Store& s, const Columns& col, const IdMap& map) noexcept {
    Columns to = col;
    columns_copy(to, s.col, s.n);
    IdMap m = map;
    for (uint32_t i = 0; i < s.n; ++i) idmap_put(m, to.id[i], i);
    s.col = to;
    s.map = m;
    s.stale |= kStaleAll | kChanged | kChangedAll;
}

}  // namespace soageo
