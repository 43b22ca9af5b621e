#include "contacts.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "carve.hpp"
#include "radix.hpp"

namespace soageo {

namespace {

constexpr uint32_t kDetectBlock = 256;  // change detection checks its limits per block
constexpr uint32_t kRunBatch = 32;      // runs of grid positions handed to the search kernel at once

ContactFrame lay_contact_frame(Carver& k, uint64_t pair_cap, uint32_t id_cap) noexcept {
    ContactFrame f{};
    f.buf = lay_pair_buffer(k, pair_cap);
    k.take_each(id_cap, &f.ids, &f.x, &f.y, &f.r, &f.id_at);
    f.id_cap = id_cap;
    return f;
}

ContactState lay_contact_state(Carver& k, uint32_t cap) noexcept {
    ContactState cs{};
    // Change detection reads whole blocks of lanes, the search too.
    k.take_zeroed_each(padded(cap), &cs.x, &cs.y, &cs.r, &cs.id_at);
    const size_t padded = size_t(cap) + kMaxWidth;
    k.take_zeroed_each(padded, &cs.minx, &cs.neg_maxx, &cs.miny, &cs.neg_maxy);
    cs.rank_changed = k.take<uint32_t>(cap);
    cs.hits = k.take<uint32_t>(padded);
    cs.filed = k.take<float>(size_t(cap) * 2);
    cs.loose.start = k.take<uint32_t>(loose_start_len(std::max(cap, 16u), 0));  // at most cap buckets (and 16)
    cs.pos_of_slot = k.take<uint32_t>(cap);
    cs.bucket_of_slot = cs.pos_of_slot;
    k.take_each(size_t(cap) / 64 + 1, &cs.pos_bits, &cs.rank_moved);
    const size_t movers = size_t(cap) / 4 + kDetectBlock + kMaxWidth;
    k.take_each(movers, &cs.mover, &cs.mx, &cs.my, &cs.mr);
    cs.side = cs.loose.inv_cell = cs.loose.inv_cell_x = 1.0;
    cs.cap = cap;
    return cs;
}

Touching lay_touching(Carver& k, uint32_t id_cap, uint64_t pair_cap) noexcept {
    Touching t;
    t.off = k.take<uint32_t>(size_t(id_cap) + 2);
    t.nbr = k.take<uint32_t>(pair_cap * 2);
    t.id_cap = id_cap;
    t.pair_cap = pair_cap;
    return t;
}

// Past the capacity, events are only counted: the caller grows the list and diffs again.
inline void push_pair(EventList& e, int64_t a, int64_t b) noexcept {
    if (e.n < e.cap) {
        e.pair[2 * e.n] = a;
        e.pair[2 * e.n + 1] = b;
    }
    ++e.n;
}

// The last pairs mapped to the new ranks (remap keeps order; kNoSlot: removed, its pairs end)
// merged with the pairs now, cur[0, nc), the events pushed as ids. A last pair not found now
// ends unless stays(ra, rb). With `out`, the merged keys go there (returns how many).
template <class Remap, class Stays>
uint64_t merge_remapped(const ContactFrame& before, const uint64_t* cur, uint64_t nc, const int64_t* ids, Remap remap,
                        uint64_t* out, Stays stays, EventList& began, EventList& ended) noexcept {
    const uint64_t* const old = before.buf.keys;
    const int64_t* const old_ids = before.ids;
    uint64_t w = 0, j = 0;
    auto begin = [&](uint64_t key) {
        if (out) out[w++] = key;
        push_pair(began, ids[key >> 32], ids[key & 0xffffffffu]);
    };
    for (uint64_t i = 0; i < before.n;) {
        const uint64_t key = old[i];
        const uint32_t ra = remap(uint32_t(key >> 32)), rb = remap(uint32_t(key));
        if (ra == kNoSlot || rb == kNoSlot) {  // an entity left the layer: its pairs end
            push_pair(ended, old_ids[key >> 32], old_ids[key & 0xffffffffu]);
            ++i;
            continue;
        }
        const uint64_t m = uint64_t(ra) << 32 | rb;
        if (j < nc && cur[j] < m) {
            begin(cur[j++]);
        } else if (j < nc && cur[j] == m) {  // still touching
            if (out) out[w++] = m;
            ++i, ++j;
        } else if (stays(ra, rb)) {  // only a caller that keeps its pairs (out given) says so
            SOAGEO_ASSERT(out);
            out[w++] = m;
            ++i;
        } else {
            push_pair(ended, ids[ra], ids[rb]);
            ++i;
        }
    }
    for (; j < nc; ++j) begin(cur[j]);
    return w;
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

size_t contact_state_bytes(uint32_t cap) noexcept { return layout_bytes(lay_contact_state, cap); }

ContactState contact_state_carve(void* block, uint32_t cap) noexcept { return layout_carve(block, lay_contact_state, cap); }

size_t touching_bytes(uint32_t id_cap, uint64_t pair_cap) noexcept {
    return layout_bytes(lay_touching, id_cap, pair_cap);
}

Touching touching_carve(void* block, uint32_t id_cap, uint64_t pair_cap) noexcept {
    return layout_carve(block, lay_touching, id_cap, pair_cap);
}

void contacts_diff(const ContactFrame& before, ContactFrame& now, const uint64_t* id_keys, uint32_t n,
                   uint32_t* remap, EventList& began, EventList& ended) noexcept {
    for (uint32_t r = 0; r < n; ++r) now.ids[r] = key_int(id_keys[r]);
    now.id_count = n;
    auto never = [](uint32_t, uint32_t) { return false; };
    // The same ids as last time (the usual tick): ranks carry over, keys compare as they are.
    if (map_ranks(before.ids, before.id_count, now.ids, n, remap))
        merge_remapped(before, now.buf.keys, now.n, now.ids, [](uint32_t r) { return r; }, nullptr, never, began, ended);
    else
        merge_remapped(before, now.buf.keys, now.n, now.ids, [remap](uint32_t r) { return remap[r]; }, nullptr, never,
                       began, ended);
}

void contacts_keep(const Store& st, ContactFrame& now) noexcept {
    now.seq = st.feed.seq;
    if (st.n == 0) return;
    std::memcpy(now.x, st.col.x, st.n * sizeof(float));
    std::memcpy(now.y, st.col.y, st.n * sizeof(float));
    std::memcpy(now.r, st.col.r, st.n * sizeof(float));
    std::memcpy(now.id_at, st.col.id, st.n * sizeof(int64_t));
}

namespace {

// The side of the box of (x, y, r) as sweep_prepare's float32 bounds give it.
inline double box_side(float x, float y, float r) noexcept {
    return std::max(double(x + r) - double(x - r), double(y + r) - double(y - r));
}

// The box (x, y, r) at grid position pos, its bounds as sweep_prepare computes them (float32).
inline void put_box(ContactState& cs, uint32_t pos, float x, float y, float r, uint32_t rank_changed) noexcept {
    cs.minx[pos] = x - r;
    cs.neg_maxx[pos] = -(x + r);
    cs.miny[pos] = y - r;
    cs.neg_maxy[pos] = -(y + r);
    cs.rank_changed[pos] = rank_changed;
}

// Slot i's box (the layer's now) at grid position pos, filed there by its min corner.
inline void file_box(ContactState& cs, const Columns& c, uint32_t i, uint32_t pos, uint32_t rank) noexcept {
    put_box(cs, pos, c.x[i], c.y[i], c.r[i], rank);
    cs.filed[2 * i] = c.x[i] - c.r[i], cs.filed[2 * i + 1] = c.y[i] - c.r[i];
    cs.pos_of_slot[i] = pos;
}

// A changed box, for the search: its position and its rank, one bit each.
inline void flag_changed(ContactState& cs, uint32_t pos, uint32_t rank) noexcept {
    cs.pos_bits[pos >> 6] |= uint64_t(1) << (pos & 63);
    cs.rank_moved[rank >> 6] |= uint64_t(1) << (rank & 63);
}

// How far (per axis) the min corner of the box (x, y, r) is from where slot i's was filed.
inline double filed_distance(const ContactState& cs, uint32_t i, float x, float y, float r) noexcept {
    return std::max(std::fabs(double(x - r) - double(cs.filed[2 * i])), std::fabs(double(y - r) - double(cs.filed[2 * i + 1])));
}

// Cells are this many times the widest box: a box that overlaps a changed one has its min
// corner within [min - widest, max] on each axis, plus the drift (2 or 3 cells). With a tenth
// of 10,000 and 100,000 uniform entities moving (bench/bench_pairs_lua.lua), 1.5 and 2 were
// the fastest and about even, 1 and 0.5 slower.
constexpr double kCellPerBox = 1.5;

// A grid of the current boxes (the layer's columns), filed by their min corner, cells of
// `side`, hashed by row into a power-of-two table no larger than n.
void build_grid(ContactState& cs, const Columns& c, uint32_t n, const uint32_t* rank, double side) noexcept {
    uint32_t buckets = 16;
    while (buckets * 2 <= n) buckets *= 2;
    const double inv = 1.0 / side;
    cs.loose.buckets = buckets;
    cs.side = side;
    cs.loose.inv_cell = cs.loose.inv_cell_x = inv;
    loose_count(cs.loose, n, 0, cs.bucket_of_slot, [&](uint32_t i) {
        const float r = c.r[i];
        return row_bucket(buckets, cell_of(c.x[i] - r, inv), cell_of(c.y[i] - r, inv));
    });
    loose_scatter(cs.loose, n, 0, cs.bucket_of_slot, [&](uint32_t i, uint32_t at) { file_box(cs, c, i, at, rank[i]); });
    cs.loose.drift_limit = kLooseDrift * side / kCellPerBox;  // a share of the widest box
    ++cs.builds;
}

// Below this many entities the sweep is as cheap as the searches and the grid's passes: with
// 10% of a uniform layer moving the grid is ahead from 4,000, even at 2,000, and the sweep no
// better with a quarter moving (bench/bench_pairs_lua.lua's contacts lines).
constexpr uint32_t kIncrementalMin = 2048;

// Adds and removes: the kept columns follow the entities to their slots now (an added one as
// it is now: the caller counts it as changed), the ranks become those of the layer's ids now;
// remap gets each last update's rank's new one (kNoSlot: removed).
void renumber(const Store& st, SweepScratch& s, const ContactFrame& before, ContactState& cs, const SlotChanges& mc,
              uint32_t* remap) noexcept {
    const Columns& c = st.col;
    constexpr uint32_t kMax = SlotChanges::kMax;
    // The grid follows (the end of this function) while the added fit its run and the removed are few.
    const bool patch = cs.built && cs.loose.n + mc.n_added <= cs.cap && loose_takes(cs.loose, mc.n_added, mc.n_removed);
    cs.built = patch;
    uint32_t removed_pos[kMax];
    for (uint32_t q = 0; patch && q < mc.n_removed; ++q) removed_pos[q] = cs.pos_of_slot[mc.removed_slot[q]];
    float x[kMax], y[kMax], r[kMax], fx[kMax], fy[kMax];
    uint32_t pos[kMax];
    for (uint32_t q = 0; q < mc.n_relocated; ++q) {
        const uint32_t from = mc.from[q];
        x[q] = cs.x[from], y[q] = cs.y[from], r[q] = cs.r[from];
        fx[q] = cs.filed[2 * from], fy[q] = cs.filed[2 * from + 1], pos[q] = cs.pos_of_slot[from];
    }
    for (uint32_t q = 0; q < mc.n_relocated; ++q) {
        const uint32_t to = mc.to[q];
        cs.x[to] = x[q], cs.y[to] = y[q], cs.r[to] = r[q];
        cs.filed[2 * to] = fx[q], cs.filed[2 * to + 1] = fy[q], cs.pos_of_slot[to] = pos[q];
        cs.id_at[to] = c.id[to];
    }
    for (uint32_t q = 0; q < mc.n_added; ++q) {
        const uint32_t i = mc.added_slot[q];
        cs.x[i] = c.x[i], cs.y[i] = c.y[i], cs.r[i] = c.r[i];
        cs.id_at[i] = c.id[i];
    }
    // The ranks again, from the last update's (rerank): the removed by their old slots' ranks,
    // the added placed among the ranked ids.
    const uint32_t nb = before.id_count, nr = mc.n_removed, na = mc.n_added;
    uint32_t gone[kMax], relocated_rank[kMax], added_at[kMax];
    uint64_t added_key[kMax];
    for (uint32_t q = 0; q < nr; ++q) gone[q] = s.rank[mc.removed_slot[q]];  // s.rank: by the old slots
    std::sort(gone, gone + nr);
    for (uint32_t q = 0; q < mc.n_relocated; ++q) relocated_rank[q] = s.rank[mc.from[q]];
    for (uint32_t q = 0; q < na; ++q) {
        added_key[q] = int_key(mc.added_id[q]);
        added_at[q] = uint32_t(std::lower_bound(s.id_keys, s.id_keys + nb, added_key[q]) - s.id_keys);
    }
    const RankChanges ch{gone, nr, added_key, added_at, mc.added_slot, na};
    const uint32_t out = rerank(s.id_keys, s.slot_of_rank, nb, ch, s.reranked_keys, s.reranked_slots, remap, nullptr);
    SOAGEO_ASSERT(out == st.n);
    std::memcpy(s.id_keys, s.reranked_keys, size_t(out) * sizeof(uint64_t));
    std::memcpy(s.slot_of_rank, s.reranked_slots, size_t(out) * sizeof(uint32_t));
    for (uint32_t q = 0; q < mc.n_relocated; ++q) s.slot_of_rank[remap[relocated_rank[q]]] = mc.to[q];
    for (uint32_t r = 0; r < out; ++r) s.rank[s.slot_of_rank[r]] = r;
    *s.ranked_n = out;
    if (!patch) return;
    // The grid: every box's rank anew, the removed ones' boxes overlapping nothing (an infinite
    // min corner fails every test), the added ones after the others.
    for (uint32_t p = 0; p < cs.loose.n; ++p) {
        const uint32_t now_rank = remap[cs.rank_changed[p]];
        cs.rank_changed[p] = now_rank == kNoSlot ? 0 : now_rank;
    }
    constexpr float inf = std::numeric_limits<float>::infinity();
    for (uint32_t q = 0; q < mc.n_removed; ++q) {
        const uint32_t p = removed_pos[q];
        cs.minx[p] = cs.neg_maxx[p] = cs.miny[p] = cs.neg_maxy[p] = inf;
    }
    for (uint32_t q = 0; q < mc.n_added; ++q) {
        const uint32_t i = mc.added_slot[q];
        file_box(cs, c, i, cs.loose.n + q, s.rank[i]);
    }
    cs.loose.n += mc.n_added;
    cs.loose.dead += mc.n_removed;
}

// One incremental update's state, handed from step to step (their loops copy into locals).
struct ContactTick {
    const Store& st;
    SweepScratch& s;
    const ContactFrame& before;
    ContactFrame& now;
    ContactState& cs;
    const KernelTable& kernels;
    EventList& began;
    EventList& ended;
    const uint32_t n;
    // Another id at a slot, or another count: entities were added or removed (renumber), or
    // were when an update that did not commit renumbered (the ranks and remap are still its).
    bool members;
    uint32_t movers;
};

// The boxes an update that did not commit wrote go back to the committed ones, which change
// detection compares with; such a box stays filed where that update saw it (its drift counts).
void restore_uncommitted(ContactTick& t) noexcept {
    ContactState& cs = t.cs;
    const uint32_t* const rank = t.s.rank;
    double widest = cs.widest, drift = cs.loose.drift;
    for (uint32_t q = 0; cs.built && q < cs.movers; ++q) {
        const uint32_t i = cs.mover[q], pos = cs.pos_of_slot[i];
        const float x = cs.x[i], y = cs.y[i], r = cs.r[i];
        put_box(cs, pos, x, y, r, rank[i]);
        drift = std::max(drift, filed_distance(cs, i, x, y, r));
        widest = std::max(widest, box_side(x, y, r));
    }
    cs.loose.drift = drift;
    cs.widest = widest;
    cs.movers = 0;
}

// Adds and removes (the layer's change feed since id_at matched it): the kept columns, the
// ranks and the grid follow (renumber). False when the feed cannot say.
bool renumber_now(ContactTick& t) noexcept {
    ContactState& cs = t.cs;
    SlotChanges mc;
    if (!feed_slot_changes(t.st, cs.id_seen, cs.id_at, t.before.id_count, mc)) return false;
    cs.id_seen = t.st.feed.seq;  // renumber writes the changed slots of id_at
    cs.renumbered = true;  // until the commit
    cs.renumbered_n = t.n;
    cs.n_added = mc.n_added;
    std::memcpy(cs.added, mc.added_slot, mc.n_added * sizeof(uint32_t));
    renumber(t.st, t.s, t.before, cs, mc, t.s.rank_remap);
    return t.members = true;
}

// Lists the movers: the entities whose box or id changed since the committed update, the added too.
bool find_changed(ContactTick& t) noexcept {
    const Columns& c = t.st.col;
    ContactState& cs = t.cs;
    const SweepScratch& s = t.s;
    const uint32_t n = t.n;
    uint32_t movers = 0;
    const uint32_t max_movers = n / 4;  // more, and a sweep is cheaper than their searches
    // Only the kernel's comparisons run over every entity (the limits checked per block).
    // By name: the columns are pointers of one type, which a positional list would swap silently.
    auto bits = [](const auto* column) { return reinterpret_cast<const uint32_t*>(column); };
    ContactChanges changes{};
    changes.x = bits(c.x);
    changes.y = bits(c.y);
    changes.r = bits(c.r);
    changes.id = bits(c.id);
    changes.kept_x = bits(cs.x);
    changes.kept_y = bits(cs.y);
    changes.kept_r = bits(cs.r);
    changes.kept_id = bits(cs.id_at);
    if (!t.members && n != t.before.id_count && !renumber_now(t)) return false;
    for (int pass = 0; pass < 2; ++pass) {
        movers = 0;
        bool other_id = false;
        for (uint32_t i0 = 0; i0 < n && !other_id; i0 += kDetectBlock) {
            changes.first = i0;
            changes.last = std::min(n, i0 + kDetectBlock);
            movers += t.kernels.contact_changed(changes, cs.mover + movers, &other_id);
#if defined(SOAGEO_CHECKS)
            // The caller says the ranks are those of these ids (a random read per entity to check).
            for (uint32_t i = changes.first; i < changes.last; ++i)
                SOAGEO_ASSERT(cs.id_at[i] != c.id[i] || s.id_keys[s.rank[i]] == int_key(c.id[i]));
#endif
            if (movers > max_movers) return false;
        }
        if (!other_id) break;
        if (t.members || !renumber_now(t)) return false;  // ids changed again: a sweep
    }
    cs.id_seen = t.st.feed.seq;  // every slot's id compared equal
    if (t.members) {
        for (uint32_t q = 0; q < cs.n_added; ++q) {  // kept as they are: changed all the same
            if (movers == max_movers) return false;
            cs.mover[movers++] = cs.added[q];
        }
        // now's ids (its block may be new since the renumbering)
        for (uint32_t q = 0; q < n; ++q) t.now.ids[q] = key_int(s.id_keys[q]);
        t.now.id_count = n;
    }
    t.movers = movers;
    return true;
}

// The movers' new boxes go into the grid, flagged for the search, or the grid is built again
// (cells grown too narrow, or a min corner drifted too far).
void place_movers(ContactTick& t) noexcept {
    const Columns& c = t.st.col;
    ContactState& cs = t.cs;
    const uint32_t n = t.n, movers = t.movers;
    // A built grid's unchanged boxes are no wider than its `widest`.
    double widest = cs.built ? cs.widest : 0.0, drift = cs.loose.drift;
    for (uint32_t q = 0; q < movers; ++q) {
        const uint32_t i = cs.mover[q];
        const float x = c.x[i], y = c.y[i], r = c.r[i];
        cs.mx[q] = x;
        cs.my[q] = y;
        cs.mr[q] = r;
        widest = std::max(widest, box_side(x, y, r));
    }
    // `widest` only grows between grids, so cells grown too wide wait for the next grid.
    double side = kCellPerBox * (widest > 0 ? widest : 1.0);
    const size_t words = size_t(n) / 64 + 1;
    std::memset(cs.pos_bits, 0, (size_t(cs.loose.n) / 64 + 1) * sizeof(uint64_t));
    std::memset(cs.rank_moved, 0, words * sizeof(uint64_t));
    const uint32_t* const rank_of = t.s.rank;
    cs.movers = movers;  // their boxes are not the committed ones until the commit
    // Each mover's box written in place, flagged, and its drift: one pass, one cache miss per
    // mover (the write into the grid: the filed corners are by slot, read in slot order).
    bool build = !cs.built || side > cs.side;
    if (!build) {
        for (uint32_t q = 0; q < movers; ++q) {
            const uint32_t i = cs.mover[q], pos = cs.pos_of_slot[i], rank = rank_of[i];
            const float x = cs.mx[q], y = cs.my[q], r = cs.mr[q];
            drift = std::max(drift, filed_distance(cs, i, x, y, r));
            put_box(cs, pos, x, y, r, rank | 0x80000000u);
            flag_changed(cs, pos, rank);
        }
        cs.loose.drift = drift;
        cs.widest = widest;
        build = !loose_drift_ok(cs.loose, drift);
    }
    if (build) {
        cs.built = false;
        widest = 0;
        for (uint32_t i = 0; i < n; ++i) widest = std::max(widest, box_side(c.x[i], c.y[i], c.r[i]));
        side = kCellPerBox * (widest > 0 ? widest : 1.0);
        build_grid(cs, c, n, rank_of, side);
        cs.widest = widest;
        std::memset(cs.pos_bits, 0, words * sizeof(uint64_t));  // positions: n again
        for (uint32_t q = 0; q < movers; ++q) {
            const uint32_t i = cs.mover[q], pos = cs.pos_of_slot[i], rank = rank_of[i];
            cs.rank_changed[pos] = rank | 0x80000000u;
            flag_changed(cs, pos, rank);
        }
    }
    cs.built = true;
    grid_validate(cs.loose, 0, [&](uint32_t p, float& x, float& y) {
        x = cs.minx[p], y = cs.miny[p];
        return x != std::numeric_limits<float>::infinity();  // a dead box
    });
}

// The changed entities' pairs now, as ranks in now.buf.a/b (counted past its capacity); a
// pair of two changed ones is found by the lower rank, and a bucket met twice gives duplicates,
// dropped after the sort. The changed boxes go in the grid's order, so that each search reads
// the rows the last one read (in slot order, every cell was a cache miss at 100,000 entities).
uint64_t find_pairs(ContactTick& t) noexcept {
    ContactState& cs = t.cs;
    const KernelTable& kernels = t.kernels;
    const uint32_t buckets = cs.loose.buckets, positions = cs.loose.n;
    const double inv = cs.loose.inv_cell, reach = cs.widest + cs.loose.drift, ahead = cs.loose.drift;
    // A box whose float32 bound overflowed (x + r past FLT_MAX) is infinitely wide: its cells
    // too (inv 0), every box filed in one of them, and the cell coordinates below NaN, which
    // cell_of clamps to a single cell. Each search then visits every entity, as for a huge box.
    const bool unbounded = !(inv > 0.0);
    uint32_t* const fa = t.now.buf.a;
    uint32_t* const fb = t.now.buf.b;
    const uint64_t cap = t.now.buf.cap;
    uint64_t k = 0;
    uint32_t* const rank_changed = cs.rank_changed;
    uint32_t* const hits = cs.hits;
    uint32_t runs[2 * kRunBatch];
    ContactSearch search{};
    search.minx = cs.minx;
    search.neg_maxx = cs.neg_maxx;
    search.miny = cs.miny;
    search.neg_maxy = cs.neg_maxy;
    search.runs = runs;
    for (size_t wd = 0, pos_words = size_t(positions) / 64 + 1; wd < pos_words; ++wd) {
        for (uint64_t bits = cs.pos_bits[wd]; bits; bits &= bits - 1) {
            const uint32_t q = static_cast<uint32_t>(wd * 64 + static_cast<unsigned>(__builtin_ctzll(bits)));
            const uint32_t rm = rank_changed[q] & 0x7fffffffu;
            const float lox = cs.minx[q], hix = -cs.neg_maxx[q], loy = cs.miny[q], hiy = -cs.neg_maxy[q];
            search.maxx = hix;
            search.neg_minx = -lox;
            search.maxy = hiy;
            search.neg_miny = -loy;
            // Of the overlaps, the new pairs (not the box itself, nor a changed box of lower
            // rank, which finds this one) are kept branch-free, the ranks written always.
            uint32_t n_runs = 0;
            uint64_t batch = 0;  // candidates in the runs gathered: hits holds n + kMaxWidth
            auto flush = [&]() {
                search.n_runs = n_runs;
                const uint32_t h = kernels.contact_search(search, hits);
                for (uint32_t i = 0; i < h; ++i) {
                    const uint32_t e = rank_changed[hits[i]], rc = e & 0x7fffffffu;
                    const bool pair = (rc != rm) & !((e >> 31) & (rc < rm));
                    if (k < cap) fa[k] = rc, fb[k] = rm;
                    k += pair;
                }
                n_runs = 0;
                batch = 0;
            };
            auto run = [&](uint32_t first, uint32_t end) {
                if (first >= end) return true;
                if (n_runs == kRunBatch || batch + (end - first) > positions) flush();
                runs[2 * n_runs] = first;
                runs[2 * n_runs + 1] = end;
                ++n_runs;
                batch += end - first;
                return true;
            };
            // Min corners filed within [lo - widest - drift, hi + drift]; widened by a
            // relative 2^-40, as the sums in double may round toward the box.
            const double slack_x = (std::fabs(double(lox)) + std::fabs(double(hix)) + reach) * 0x1p-40;
            const double slack_y = (std::fabs(double(loy)) + std::fabs(double(hiy)) + reach) * 0x1p-40;
            const int64_t cx0 = cell_of(double(lox) - reach - slack_x, inv), cx1 = cell_of(double(hix) + ahead + slack_x, inv);
            const int64_t cy0 = cell_of(double(loy) - reach - slack_y, inv), cy1 = cell_of(double(hiy) + ahead + slack_y, inv);
            if (unbounded || double(cx1 - cx0 + 1) * double(cy1 - cy0 + 1) > buckets) {  // a huge box: every entity once
                run(0, positions);
            } else {
                const uint32_t width = static_cast<uint32_t>(cx1 - cx0 + 1);  // <= buckets, checked above
                for (int64_t cy = cy0; cy <= cy1; ++cy) {
                    const uint32_t b0 = row_bucket(buckets, cx0, cy);
                    loose_runs(cs.loose, b0, uint64_t(b0) + width, run);
                }
                run(cs.loose.n_cells, positions);  // the added since the grid was built
            }
            if (n_runs) flush();
        }
    }
    for (uint32_t q = 0; q < t.movers; ++q) rank_changed[cs.pos_of_slot[cs.mover[q]]] &= 0x7fffffffu;
    return k;
}

// The last pairs mapped to the new ranks, merged with the pairs found, found[0, k): a last
// pair of two unchanged entities stays, found or not.
void merge_renumbered(ContactTick& t, uint64_t k) noexcept {
    ContactFrame& now = t.now;
    const uint64_t* const moved = t.cs.rank_moved;
    const uint32_t* const remap = t.s.rank_remap;
    auto is_moved = [&](uint32_t r) { return (moved[r >> 6] >> (r & 63)) & 1; };
    auto stays = [&](uint32_t ra, uint32_t rb) { return !(is_moved(ra) || is_moved(rb)); };
    now.n = merge_remapped(t.before, now.buf.keys, k, now.ids, [remap](uint32_t r) { return remap[r]; }, now.buf.tmp,
                           stays, t.began, t.ended);
    std::swap(now.buf.keys, now.buf.tmp);
    std::swap(now.buf.keys32, now.buf.tmp32);
}

// The last pairs that involve no changed entity stay; of those that do (touched), the ones not
// found again ended; found ones not among them began. Few pairs begin or end in a tick, so the
// touched ones are listed first (one branch-free pass), merged with the found ones, and the
// last pairs copied whole between the events: merging every last pair with the found ones
// mispredicted once per found pair. found[0, k) ascending and unique; the same ids as before.
void merge_touched(ContactTick& t, uint64_t k) noexcept {
    const ContactFrame& before = t.before;
    ContactFrame& now = t.now;
    EventList& began = t.began;
    EventList& ended = t.ended;
    const uint64_t no = before.n;
    const uint64_t* const old = before.buf.keys;
    uint64_t* const found = now.buf.keys;
    uint64_t* const out = now.buf.tmp;
    uint64_t* const touched = found + k;  // k + no <= cap, checked by the caller
    const int64_t* const ids = before.ids;
    const uint64_t* const moved = t.cs.rank_moved;  // bits: bytes measured slower at 100,000
    uint64_t nt = 0;
    for (uint64_t i = 0; i < no; ++i) {
        const uint64_t key = old[i];
        touched[nt] = i;
        const uint32_t lo = static_cast<uint32_t>(key >> 32), hi = static_cast<uint32_t>(key);
        nt += ((moved[lo >> 6] >> (lo & 63)) | (moved[hi >> 6] >> (hi & 63))) & 1;
    }
    uint64_t w = 0, copied = 0, after = 0;  // last pairs copied up to `copied`; `after`: past the last touched one merged
    auto copy_to = [&](uint64_t end) {
        if (end > copied) {
            std::memcpy(out + w, old + copied, (end - copied) * sizeof(uint64_t));
            w += end - copied;
            copied = end;
        }
    };
    uint64_t i = 0, j = 0;
    for (;;) {
        while (i < nt && j < k && old[touched[i]] == found[j]) after = touched[i++] + 1, ++j;  // still touching
        if (i < nt && (j == k || old[touched[i]] < found[j])) {
            const uint64_t at = touched[i++], key = old[at];
            copy_to(at);
            copied = after = at + 1;
            push_pair(ended, int64_t(key >> 32), int64_t(key & 0xffffffffu));
        } else if (j < k) {
            // Before the first last pair above it: past `after`, only untouched ones, never equal.
            const uint64_t f = found[j++], limit = i < nt ? touched[i] : no;
            uint64_t at = std::max(after, copied);
            while (at < limit && old[at] < f) ++at;
            copy_to(at);
            out[w++] = f;
            push_pair(began, int64_t(f >> 32), int64_t(f & 0xffffffffu));
        } else {
            break;
        }
    }
    copy_to(no);
    // The events went in as ranks: their ids now, each lookup independent of the others (in
    // the merge, each waited behind the mispredicted branch before it).
    for (EventList* e : {&began, &ended}) {
        const uint64_t written = 2 * std::min(e->n, e->cap);
        for (uint64_t x = 0; x < written; ++x) e->pair[x] = ids[e->pair[x]];
    }
    std::swap(now.buf.keys, now.buf.tmp);
    std::swap(now.buf.keys32, now.buf.tmp32);
    now.n = w;
    std::memcpy(now.ids, before.ids, t.n * sizeof(int64_t));
    now.id_count = t.n;
}

}  // namespace

ContactStep contacts_incremental(const Store& st, SweepScratch& s, bool ranks_current, const ContactFrame& before,
                                 ContactFrame& now, ContactState& cs, const KernelTable& kernels, EventList& began,
                                 EventList& ended, uint64_t* need) noexcept {
    const uint32_t n = st.n;
    if (n < kIncrementalMin || !ranks_current || !cs.kept || now.id_cap < n || cs.cap < n) return ContactStep::full;
    // Ranks of the last update's ids, or of the layer's now when an uncommitted update
    // renumbered them (the same ids by slot still: checked as the changes are found).
    if (cs.renumbered ? n != cs.renumbered_n || *s.ranked_n != n : *s.ranked_n != before.id_count)
        return ContactStep::full;
    ContactTick t{st, s, before, now, cs, kernels, began, ended, n, cs.renumbered, 0};
    restore_uncommitted(t);
    if (!find_changed(t)) return ContactStep::full;
    place_movers(t);
    uint64_t k = find_pairs(t);
    const uint64_t no = before.n;
    if (k + no > now.buf.cap) return *need = k + no, ContactStep::need_pairs;
    order_rank_pairs(now.buf, k, n, true);
    uint64_t* const found = now.buf.keys;
    k = static_cast<uint64_t>(std::unique(found, found + k) - found);
    if (t.members)
        merge_renumbered(t, k);
    else
        merge_touched(t, k);
    return ContactStep::done;
}

void contacts_commit(ContactState& cs, const ContactFrame& now, bool incremental) noexcept {
    cs.renumbered = false;
    if (incremental) {
        for (uint32_t q = 0; q < cs.movers; ++q) {
            const uint32_t i = cs.mover[q];
            cs.x[i] = cs.mx[q];
            cs.y[i] = cs.my[q];
            cs.r[i] = cs.mr[q];
        }
        cs.movers = 0;  // the grid holds the committed boxes
        return;
    }
    const uint32_t n = now.id_count;
    SOAGEO_ASSERT(n <= cs.cap);
    if (n) {
        std::memcpy(cs.x, now.x, n * sizeof(float));
        std::memcpy(cs.y, now.y, n * sizeof(float));
        std::memcpy(cs.r, now.r, n * sizeof(float));
        std::memcpy(cs.id_at, now.id_at, n * sizeof(int64_t));
    }
    cs.id_seen = now.seq;
    cs.kept = true;
    cs.built = false;  // every box may have moved: the next incremental update builds the grid
    cs.movers = 0;
}

// A counting sort of both ends of every pair. Pairs ascend by (lower, higher), so an entity's
// lower neighbours arrive (ascending) before its higher ones: every list comes out sorted.
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
