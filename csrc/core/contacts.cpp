#include "contacts.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "carve.hpp"
#include "cell.hpp"
#include "radix.hpp"

namespace soageo {

namespace {

ContactFrame lay_contact_frame(Carver& k, uint64_t pair_cap, uint32_t id_cap) noexcept {
    ContactFrame f;
    f.buf = lay_pair_buffer(k, pair_cap);
    f.ids = k.take<int64_t>(id_cap);
    f.x = k.take<float>(id_cap);
    f.y = k.take<float>(id_cap);
    f.r = k.take<float>(id_cap);
    f.id_at = k.take<int64_t>(id_cap);
    f.n = 0;
    f.id_count = 0;
    f.id_cap = id_cap;
    return f;
}

struct ContactGrid {
    ContactCell* cell;
    uint32_t* start;
};

ContactGrid lay_contact_grid(Carver& k, uint32_t cap) noexcept {
    ContactGrid g;
    g.cell = k.take<ContactCell>(cap);
    g.start = k.take<uint32_t>(size_t(cap) + 2);  // buckets + 2 <= n + 2
    return g;
}

Touching lay_touching(Carver& k, uint32_t id_cap, uint64_t pair_cap) noexcept {
    Touching t;
    t.off = k.take<uint32_t>(size_t(id_cap) + 2);
    t.nbr = k.take<uint32_t>(pair_cap * 2);
    t.id_cap = id_cap;
    t.pair_cap = pair_cap;
    return t;
}

}  // namespace

size_t contact_frame_bytes(uint64_t pair_cap, uint32_t id_cap) noexcept {
    return layout_bytes(lay_contact_frame, pair_cap, id_cap);
}

ContactFrame contact_frame_carve(void* block, uint64_t pair_cap, uint32_t id_cap) noexcept {
    ContactFrame f = layout_carve(block, lay_contact_frame, pair_cap, id_cap);
    *f.buf.held_cap = pair_cap;
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

void contacts_keep(const Store& st, ContactFrame& now) noexcept {
    if (st.n == 0) return;
    std::memcpy(now.x, st.col.x, st.n * sizeof(float));
    std::memcpy(now.y, st.col.y, st.n * sizeof(float));
    std::memcpy(now.r, st.col.r, st.n * sizeof(float));
    std::memcpy(now.id_at, st.col.id, st.n * sizeof(int64_t));
}

namespace {

inline uint32_t bucket_of(int64_t cx, int64_t cy, uint32_t mask) noexcept { return row_bucket(mask + 1, cx, cy); }

}  // namespace

size_t contact_grid_bytes(uint32_t cap) noexcept { return layout_bytes(lay_contact_grid, cap); }

ContactStep contacts_incremental(const Store& st, SweepScratch& s, bool ranks_current, const ContactFrame& before,
                                 ContactFrame& now,
                                 void* grid_block, uint32_t grid_cap, EventList& began, EventList& ended,
                                 uint64_t* need) noexcept {
    const uint32_t n = st.n;
    const Columns& c = st.col;
    if (n == 0 || !ranks_current || n != before.id_count || *s.ranked_n != n || now.id_cap < n || grid_cap < n)
        return ContactStep::full;
    // Same ids in the same slots as at the last update, whose ranks the scratch holds (the
    // caller says so: checking it here would be a random read per entity, so the checked
    // builds assert it instead).
    uint32_t movers = 0;
    double widest = 0;  // the widest box side, as sweep_prepare's float32 bounds give it
    uint32_t* const mover = now.buf.a;  // slots that changed; room for buf.cap
    for (uint32_t i = 0; i < n; ++i) {
        if (before.id_at[i] != c.id[i]) return ContactStep::full;
        SOAGEO_ASSERT(s.id_keys[s.rank[i]] == int_key(c.id[i]));
        const float x = c.x[i], y = c.y[i], r = c.r[i];
        const double w = std::max(double(x + r) - double(x - r), double(y + r) - double(y - r));
        widest = w > widest ? w : widest;
        const bool changed = x != before.x[i] || y != before.y[i] || r != before.r[i];
        if (changed) {
            if (movers == now.buf.cap) return ContactStep::full;
            mover[movers++] = i;
        }
    }
    // A sweep is cheaper than many searches, and than the grid's passes over a tiny layer.
    // Measured with 10% of a uniform layer moving (loaded machine, from Lua): 0.28 ms here vs
    // 0.49 ms for the sweep at 10,000 entities, 0.14 vs 0.20 ms at 4,000, 3.9 vs 9 ms at
    // 100,000; even at 2,000 (crowded or not), and the sweep no better with a quarter moving.
    if (uint64_t(movers) * 4 > n || n < 2048) return ContactStep::full;
    // Flags by rank, then a grid of the boxes (float32, as sweep_prepare computes them) keyed
    // by their min corner, cells as wide as the widest box: a box that overlaps a changed one
    // has its min corner within [min - widest, max] on each axis, at most 3 cells. Cells are
    // hashed into a power-of-two table no larger than n.
    s.use = SweepScratch::Use::searching;
    uint32_t* const moved = s.changed_of_rank;
    uint32_t buckets = 16;
    while (buckets * 2 <= n) buckets *= 2;
    const ContactGrid grid = layout_carve(grid_block, lay_contact_grid, grid_cap);
    ContactCell* const g = grid.cell;
    uint32_t* const start = grid.start;
    std::memset(moved, 0, n * sizeof(uint32_t));
    for (uint32_t q = 0; q < movers; ++q) moved[s.rank[mover[q]]] = 1;
    const double cell = widest > 0 ? widest : 1.0, inv = 1.0 / cell;
    const uint32_t bmask = buckets - 1;
    uint32_t* const bucket = s.cell_of_slot;
    std::memset(start, 0, (size_t(buckets) + 2) * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; ++i) {
        const float r = c.r[i];
        bucket[i] = bucket_of(cell_of(c.x[i] - r, inv), cell_of(c.y[i] - r, inv), bmask);
        ++start[bucket[i] + 2];
    }
    for (uint32_t b = 2; b <= buckets + 1; ++b) start[b] += start[b - 1];
    for (uint32_t i = 0; i < n; ++i) {
        const uint32_t at = start[bucket[i] + 1]++;
        const float x = c.x[i], y = c.y[i], r = c.r[i];
        const uint32_t rank = s.rank[i];
        g[at] = ContactCell{x - r, x + r, y - r, y + r, rank | (moved[rank] << 31)};  // as sweep_prepare
    }
    // The changed entities' pairs now, as keys; a pair of two changed ones is emitted by the
    // lower rank. Hashing may bring a bucket twice: duplicates go after the sort. The changed
    // boxes are taken in the grid's order, row-hashed cells one after the other, so that each
    // search reads the rows the last one read (in slot order, every cell was a cache miss:
    // 9 ms at 100,000 entities, 10% of them moving).
    uint64_t* const found = now.buf.tmp;
    uint64_t k = 0;
    for (uint32_t q = 0; q < n; ++q) {
        if (!(g[q].rank_changed >> 31)) continue;
        const uint32_t rm = g[q].rank_changed & 0x7fffffffu;
        const float lox = g[q].minx, hix = g[q].maxx, loy = g[q].miny, hiy = g[q].maxy;
        // Branch-free on the overlap, which a branch would mispredict: the key is written
        // always and kept when it is a pair.
        auto test = [&](uint32_t p) {
            const ContactCell& e = g[p];
            const uint32_t rc = e.rank_changed & 0x7fffffffu;
            const bool pair = (rc != rm) & !((e.rank_changed >> 31) & (rc < rm)) & (e.minx <= hix) & (lox <= e.maxx) &
                              (e.miny <= hiy) & (loy <= e.maxy);
            if (k < now.buf.cap) found[k] = rc < rm ? (uint64_t(rc) << 32 | rm) : (uint64_t(rm) << 32 | rc);
            k += pair;
        };
        // Widened by a relative 2^-40: (lo - widest) in double may round up.
        const double slack_x = (std::fabs(double(lox)) + widest) * 0x1p-40, slack_y = (std::fabs(double(loy)) + widest) * 0x1p-40;
        const int64_t cx0 = cell_of(double(lox) - widest - slack_x, inv), cx1 = cell_of(hix, inv);
        const int64_t cy0 = cell_of(double(loy) - widest - slack_y, inv), cy1 = cell_of(hiy, inv);
        if (double(cx1 - cx0 + 1) * double(cy1 - cy0 + 1) > buckets) {  // a huge box: every entity once
            for (uint32_t p = 0; p < n; ++p) test(p);
            continue;
        }
        const uint32_t width = static_cast<uint32_t>(cx1 - cx0 + 1);  // <= buckets, checked above
        for (int64_t cy = cy0; cy <= cy1; ++cy) {
            const uint32_t b0 = bucket_of(cx0, cy, bmask);
            if (b0 + width <= buckets) {  // the row's cells: one run of buckets
                for (uint32_t p = start[b0]; p < start[b0 + width]; ++p) test(p);
            } else {  // wrapping around the table: two
                for (uint32_t p = start[b0]; p < start[buckets]; ++p) test(p);
                for (uint32_t p = start[0]; p < start[b0 + width - buckets]; ++p) test(p);
            }
        }
    }
    if (k > now.buf.cap) return *need = k + before.n, ContactStep::need_pairs;
    radix_sort64(found, nullptr, now.buf.keys, nullptr, k);  // buf.keys is free until the merge
    k = static_cast<uint64_t>(std::unique(found, found + k) - found);
    // Merge: the last pairs that involve no changed entity stay; those that do and are not
    // found again ended; found ones not among the last began.
    const uint64_t* const old = before.buf.keys;
    uint64_t* const out = now.buf.keys;
    const int64_t* const ids = before.ids;
    const uint64_t no = before.n, cap = now.buf.cap;
    uint64_t i = 0, j = 0, w = 0;
    auto put = [&](uint64_t key) {
        if (w < cap) out[w] = key;
        ++w;
    };
    while (i < no || j < k) {
        if (j == k || (i < no && old[i] < found[j])) {
            const uint64_t key = old[i++];
            if (moved[key >> 32] | moved[key & 0xffffffffu])
                push_pair(ended, ids[key >> 32], ids[key & 0xffffffffu]);
            else
                put(key);
        } else if (i == no || found[j] < old[i]) {
            const uint64_t key = found[j++];
            push_pair(began, ids[key >> 32], ids[key & 0xffffffffu]);
            put(key);
        } else {
            put(old[i]);
            ++i, ++j;
        }
    }
    if (w > cap) return *need = w, ContactStep::need_pairs;
    now.n = w;
    std::memcpy(now.ids, before.ids, n * sizeof(int64_t));
    now.id_count = n;
    contacts_keep(st, now);
    return ContactStep::done;
}

size_t touching_bytes(uint32_t id_cap, uint64_t pair_cap) noexcept {
    return layout_bytes(lay_touching, id_cap, pair_cap);
}

Touching touching_carve(void* block, uint32_t id_cap, uint64_t pair_cap) noexcept {
    return layout_carve(block, lay_touching, id_cap, pair_cap);
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
