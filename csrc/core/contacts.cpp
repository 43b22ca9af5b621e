#include "contacts.hpp"

#include <cstring>

#include "carve.hpp"
#include "radix.hpp"

namespace soageo {

size_t contact_frame_bytes(uint64_t pair_cap, uint32_t id_cap) noexcept {
    return pair_buffer_bytes(pair_cap) + kAlign * 2 + size_t(id_cap) * 8;
}

ContactFrame contact_frame_carve(void* block, uint64_t pair_cap, uint32_t id_cap) noexcept {
    ContactFrame f;
    f.buf = pair_buffer_carve(block, pair_cap);
    Carver k(static_cast<unsigned char*>(block) + pair_buffer_bytes(pair_cap));
    f.ids = k.take<int64_t>(id_cap);
    f.n = 0;
    f.id_count = 0;
    f.id_cap = id_cap;
    return f;
}

namespace {

// Past the capacity, events are only counted: the caller grows the list and diffs again.
inline void push_pair(EventList& e, int64_t a, int64_t b) noexcept {
    if (e.n < e.cap) {
        e.pair[2 * e.n] = a;
        e.pair[2 * e.n + 1] = b;
    }
    ++e.n;
}

}  // namespace

void contacts_diff(const ContactFrame& before, ContactFrame& now, const uint64_t* id_keys, uint32_t n,
                   uint32_t* remap, EventList& began, EventList& ended) noexcept {
    for (uint32_t r = 0; r < n; ++r) now.ids[r] = static_cast<int64_t>(id_keys[r] ^ 0x8000000000000000ull);
    now.id_count = n;
    const int64_t* ids = now.ids;
    const int64_t* old_ids = before.ids;
    const uint64_t* cur = now.buf.keys;
    const uint64_t* old = before.buf.keys;
    const uint64_t nc = now.n, no = before.n;
    // The same ids as last time (the usual tick): ranks carry over, keys compare as they are.
    bool same = before.id_count == n;
    for (uint32_t r = 0; same && r < n; ++r) same = old_ids[r] == ids[r];
    uint64_t i = 0, j = 0;
    if (same) {
        while (i < no && j < nc) {
            const uint64_t a = old[i], b = cur[j];
            if (a == b) {
                ++i, ++j;
            } else if (a < b) {
                push_pair(ended, ids[a >> 32], ids[a & 0xffffffffu]);
                ++i;
            } else {
                push_pair(began, ids[b >> 32], ids[b & 0xffffffffu]);
                ++j;
            }
        }
    } else {
        // Old rank -> new rank (kNoSlot: removed), merging the two ascending id lists. The map
        // keeps order, so mapped old keys still ascend and one merge still does.
        for (uint32_t r = 0, k = 0; r < before.id_count; ++r) {
            while (k < n && ids[k] < old_ids[r]) ++k;
            remap[r] = k < n && ids[k] == old_ids[r] ? k : kNoSlot;
        }
        while (i < no) {
            const uint32_t ra = remap[old[i] >> 32], rb = remap[old[i] & 0xffffffffu];
            if (ra == kNoSlot || rb == kNoSlot) {  // an entity left the layer: its pairs end
                push_pair(ended, old_ids[old[i] >> 32], old_ids[old[i] & 0xffffffffu]);
                ++i;
                continue;
            }
            const uint64_t a = uint64_t(ra) << 32 | rb;
            if (j < nc && cur[j] < a) {
                push_pair(began, ids[cur[j] >> 32], ids[cur[j] & 0xffffffffu]);
                ++j;
            } else if (j < nc && cur[j] == a) {
                ++i, ++j;
            } else {
                push_pair(ended, ids[ra], ids[rb]);
                ++i;
            }
        }
    }
    for (; i < no; ++i) push_pair(ended, old_ids[old[i] >> 32], old_ids[old[i] & 0xffffffffu]);
    for (; j < nc; ++j) push_pair(began, ids[cur[j] >> 32], ids[cur[j] & 0xffffffffu]);
}

size_t touching_bytes(uint32_t id_cap, uint64_t pair_cap) noexcept {
    return kAlign * 3 + (size_t(id_cap) + 2) * 4 + pair_cap * 8;
}

Touching touching_carve(void* block, uint32_t id_cap, uint64_t pair_cap) noexcept {
    Carver k(block);
    Touching t;
    t.off = k.take<uint32_t>(size_t(id_cap) + 2);
    t.nbr = k.take<uint32_t>(pair_cap * 2);
    t.id_cap = id_cap;
    t.pair_cap = pair_cap;
    return t;
}

// A counting sort of both ends of every pair. Pairs ascend by (lower, higher): an entity's
// lower neighbours arrive (ascending) before the pairs it leads, which bring its higher ones
// (ascending), so every list comes out sorted.
void touching_build(const ContactFrame& f, Touching& t) noexcept {
    uint32_t* const off = t.off;
    uint32_t* const nbr = t.nbr;
    const uint64_t* const keys = f.buf.keys;
    std::memset(off, 0, (size_t(f.id_count) + 2) * sizeof(uint32_t));
    for (uint64_t i = 0; i < f.n; ++i) {
        ++off[(keys[i] >> 32) + 2];
        ++off[(keys[i] & 0xffffffffu) + 2];
    }
    for (uint32_t r = 2; r <= f.id_count + 1; ++r) off[r] += off[r - 1];
    uint32_t* const next = off + 1;
    for (uint64_t i = 0; i < f.n; ++i) {
        const uint32_t a = static_cast<uint32_t>(keys[i] >> 32), b = static_cast<uint32_t>(keys[i] & 0xffffffffu);
        nbr[next[a]++] = b;
        nbr[next[b]++] = a;
    }
}

}  // namespace soageo
