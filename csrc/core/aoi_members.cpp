// The AOI's incremental update across adds and removes, watch and unwatch (doc/design.md, AOI;
// aoi_internal.hpp says what each step leaves).
#include <algorithm>
#include <cstring>

#include "aoi_internal.hpp"
#include "invariant.hpp"
#include "radix.hpp"

namespace soageo {
namespace aoi_detail {
namespace {

constexpr uint32_t kMax = SlotChanges::kMax;

// How many leading ids of a and b are equal (n at most), runs of 64 by memcmp: the watcher
// lists differ in a few places a tick, and the merges below go from one difference to the next.
uint32_t equal_prefix(const int64_t* a, const int64_t* b, uint32_t n) noexcept {
    constexpr uint32_t kRun = 64;
    uint32_t i = 0;
    while (i + kRun <= n && std::memcmp(a + i, b + i, kRun * sizeof(int64_t)) == 0) i += kRun;
    while (i < n && a[i] == b[i]) ++i;
    return i;
}

// The position of id's entity now (kNoSlot: none), from the last update's ranks and the
// members patched in.
uint32_t position_of(const AoiScratch& s, const Visible& v, int64_t id) noexcept {
    const AoiScratch::Members& m = s.members;
    const uint32_t ib = m.ids_before;
    const int64_t* at = std::lower_bound(v.ids, v.ids + ib, id);
    if (at != v.ids + ib && *at == id) {
        const uint32_t e = uint32_t(at - v.ids);
        if (std::binary_search(m.removed_rank, m.removed_rank + m.n_removed, e)) return kNoSlot;
        return s.pos_of_rank[e];
    }
    const int64_t* added = std::lower_bound(m.added_id, m.added_id + m.n_added, id);
    if (added != m.added_id + m.n_added && *added == id) return s.pos_of_rank[ib + uint32_t(added - m.added_id)];
    return kNoSlot;
}

// For an update that patched members in, rank e < ids_before is an id of the last update and
// ids_before + i the added i: in id order, e comes after the added below it, and the added i
// after the added_at[i] ids of the last update below it. Watcher indices likewise.
inline uint32_t to_order(uint32_t e, uint32_t before, const uint32_t* at, uint32_t n) noexcept {
    return e < before ? e + uint32_t(std::upper_bound(at, at + n, e) - at) : (e - before) + at[e - before];
}

// `order` holds i + at[i] for each added i: strictly ascending.
inline uint32_t from_order(uint32_t u, uint32_t before, const uint32_t* order, uint32_t n) noexcept {
    const uint32_t below = uint32_t(std::lower_bound(order, order + n, u) - order);
    return below < n && order[below] == u ? before + below : u - below;
}

}  // namespace

void patch_members(const AoiInput& in, AoiScratch& s, const Visible& v, const SlotChanges& mc) noexcept {
    const Columns& c = in.layer->col;
    const uint32_t ids_before = v.id_count;
    AoiScratch::Members& m = s.members;
    m.n_added = mc.n_added;
    m.n_removed = mc.n_removed;
    m.n_gone = 0;
    // 1. The removed, by their old slots: before the relocated overwrite those. A watcher there
    // sees nothing from now on (unless it was unwatched too: patch_watchers drops it).
    for (uint32_t r = 0; r < mc.n_removed; ++r) {
        const uint32_t q = s.pos_of_slot[mc.removed_slot[r]];
        s.removed_pos[r] = q;
        m.removed_rank[r] = v.rank_at[q];
        const uint32_t k = s.watcher_at[q];
        if (k == kNoSlot) continue;
        unplace_watcher(s, q);
        if (std::binary_search(m.unwatched, m.unwatched + m.n_unwatched, k)) continue;
        m.gone_watcher[m.n_gone++] = k;
        v.pos[k] = kNoSlot;  // nothing committed reads a watcher's pos
    }
    std::sort(m.removed_rank, m.removed_rank + mc.n_removed);
    s.loose.dead += mc.n_removed;
    // 2. The relocated: all read, then all written (a slot may be one's source and another's
    // destination).
    float x[kMax], y[kMax], bx[kMax], by[kMax];
    uint32_t mask[kMax], pos[kMax];
    for (uint32_t r = 0; r < mc.n_relocated; ++r) {
        const uint32_t a = mc.from[r];
        x[r] = s.slot_x[a], y[r] = s.slot_y[a], mask[r] = s.slot_mask[a];
        bx[r] = s.sx[a], by[r] = s.sy[a], pos[r] = s.pos_of_slot[a];
    }
    for (uint32_t r = 0; r < mc.n_relocated; ++r) {
        const uint32_t b = mc.to[r];
        s.slot_x[b] = x[r], s.slot_y[b] = y[r], s.slot_mask[b] = mask[r];
        s.sx[b] = bx[r], s.sy[b] = by[r], s.pos_of_slot[b] = pos[r];
        s.slot_id[b] = c.id[b];
    }
    // 3. The added, in ascending id order, at the next positions; by slot as they are now, so
    // that the pass over changes does not count them (the caller makes them movers from mask 0).
    for (uint32_t i = 0; i < mc.n_added; ++i) {
        const uint32_t b = mc.added_slot[i], q = s.loose.n + i, e = ids_before + i;
        const int64_t id = mc.added_id[i];
        s.slot_x[b] = s.sx[b] = c.x[b];
        s.slot_y[b] = s.sy[b] = c.y[b];
        s.slot_mask[b] = c.mask[b];
        s.slot_id[b] = id;
        s.pos_of_slot[b] = q;
        s.xs[q] = c.x[b], s.ys[q] = c.y[b], s.ms[q] = c.mask[b];
        s.last_xs[q] = c.x[b], s.last_ys[q] = c.y[b], s.last_ms[q] = 0;  // not there at the last update
        s.mark[q] = s.changed[q] = s.seen[q] = 0;
        unplace_watcher(s, q);
        v.rank_at[q] = e;
        v.ids[e] = id;
        s.pos_of_rank[e] = q;
        m.added_id[i] = id;
        m.added_at[i] = static_cast<uint32_t>(std::lower_bound(v.ids, v.ids + ids_before, id) - v.ids);
    }
    s.loose.n += mc.n_added;
}

bool find_watchers(const Watchers& w, const Visible& v, AoiScratch::Members& m) noexcept {
    m.n_new_watchers = m.n_unwatched = 0;
    uint32_t k = 0, t = 0;
    for (;;) {
        const uint32_t same = equal_prefix(v.watcher + k, w.id + t, std::min(v.n - k, w.n - t));
        k += same, t += same;
        if (k == v.n && t == w.n) return true;
        if (t == w.n || (k < v.n && v.watcher[k] < w.id[t])) {
            if (m.n_unwatched == kMax) return false;
            m.unwatched[m.n_unwatched++] = k++;
        } else {
            if (m.n_new_watchers == kMax) return false;
            m.new_watcher_at[m.n_new_watchers] = k;
            m.new_watcher[m.n_new_watchers++] = w.id[t++];
        }
    }
}

uint32_t patch_watchers(const AoiInput& in, AoiScratch& s, const Visible& v, float* view_out, uint32_t* mask_out,
                        uint32_t* placed) noexcept {
    const Watchers& w = *in.watchers;
    const AoiScratch::Members& m = s.members;
    const uint32_t before = m.watchers_before;
    // With no watch or unwatch (view_out null) the indices are the last update's.
    float* const view = view_out ? view_out : w.reach;  // how far each list reaches (aoi.hpp)
    uint32_t* const mask = mask_out ? mask_out : w.mask;
    // This update's views and masks by its indices: a merge of the two id lists, run by run.
    for (uint32_t k = 0, t = 0, i = 0; view_out && (k < before || t < w.n);) {
        const uint32_t same = equal_prefix(v.watcher + k, w.id + t, std::min(before - k, w.n - t));
        std::memcpy(view + k, w.reach + t, same * sizeof(float));
        std::memcpy(mask + k, w.mask + t, same * sizeof(uint32_t));
        k += same, t += same;
        if (k == before && t == w.n) break;
        if (t == w.n || (k < before && v.watcher[k] < w.id[t])) {  // unwatched
            view[k] = v.view[k], mask[k] = v.mask[k];
            ++k;
        } else {  // new
            view[before + i] = w.reach[t], mask[before + i] = w.mask[t];
            ++i, ++t;
        }
    }
    for (uint32_t u = 0; u < m.n_unwatched; ++u) {
        const uint32_t k = m.unwatched[u], q = v.pos[k];
        if (q != kNoSlot && s.watcher_at[q] == k) unplace_watcher(s, q);
        v.pos[k] = kNoSlot;
    }
    uint32_t n_placed = 0;
    for (uint32_t i = 0; i < m.n_new_watchers; ++i) {
        const uint32_t k = before + i, q = position_of(s, v, m.new_watcher[i]);
        v.watcher[k] = m.new_watcher[i];
        v.view[k] = view[k], v.mask[k] = mask[k];
        v.pos[k] = q;
        v.off[k] = 0, v.len[k] = 0, v.room[k] = 0;
        if (q == kNoSlot) continue;
        place_watcher(s, q, k, view[k], mask[k], in.margin);
        if (q < m.positions_before) placed[n_placed++] = q;  // an added entity is a mover already
    }
    // Watchers of the last update with no entity then, whose entity was added.
    for (uint32_t i = 0; i < m.n_added; ++i) {
        const int64_t id = m.added_id[i];
        const int64_t* at = std::lower_bound(v.watcher, v.watcher + before, id);
        if (at == v.watcher + before || *at != id) continue;
        const uint32_t k = uint32_t(at - v.watcher);
        if (std::binary_search(m.unwatched, m.unwatched + m.n_unwatched, k)) continue;
        SOAGEO_ASSERT(v.pos[k] == kNoSlot);
        const uint32_t q = s.pos_of_rank[m.ids_before + i];
        v.pos[k] = q;
        place_watcher(s, q, k, view[k], mask[k], in.margin);
    }
    return n_placed;
}

void commit_watchers(const AoiInput& in, AoiScratch& s, Visible& v, Visible& temp) noexcept {
    const Watchers& w = *in.watchers;
    const AoiScratch::Members& m = s.members;
    const uint32_t before = m.watchers_before;
    // From the first difference, runs of the last update's watchers and the new ones one by one
    // go into temp, then back.
    const uint32_t first = equal_prefix(v.watcher, w.id, std::min(before, w.n));
    uint32_t k = first, t = first, i = 0;
    uint32_t* const index_now = temp.mask;  // each update index's new one (kNoSlot: unwatched)
    for (uint32_t j = 0; j < first; ++j) index_now[j] = j;
    auto copy_lists = [](Visible& to, const Visible& from, uint32_t at, uint32_t from_at, uint32_t count) {
        move_rows(to, at, from, from_at, count, &Visible::pos, &Visible::off, &Visible::len, &Visible::room);
    };
    while (k < before || t < w.n) {
        const uint32_t same = equal_prefix(v.watcher + k, w.id + t, std::min(before - k, w.n - t));
        copy_lists(temp, v, t, k, same);
        for (uint32_t j = 0; j < same; ++j) index_now[k + j] = t + j;
        k += same, t += same;
        if (k == before && t == w.n) break;
        if (t == w.n || (k < before && v.watcher[k] < w.id[t])) {  // unwatched: its pairs left
            index_now[k] = kNoSlot;
            v.pairs -= v.len[k++];
            continue;
        }
        SOAGEO_ASSERT(i < m.n_new_watchers && m.new_watcher[i] == w.id[t]);
        index_now[before + i] = t;
        copy_lists(temp, v, t++, before + i++, 1);
    }
    const uint32_t moved = w.n - first;
    copy_lists(v, temp, first, first, moved);
    std::memcpy(v.watcher + first, w.id + first, moved * sizeof(int64_t));
    v.n = w.n;
    for (t = first; t < w.n; ++t)
        if (v.pos[t] != kNoSlot) s.watcher_at[v.pos[t]] = t;
}

void keys_to_id_order(const AoiScratch& s, uint64_t* keys, uint64_t n) noexcept {
    const AoiScratch::Members& m = s.members;
    for (uint64_t i = 0; i < n; ++i) {
        const uint32_t k = to_order(uint32_t(keys[i] >> 32), m.watchers_before, m.new_watcher_at, m.n_new_watchers);
        const uint32_t e = to_order(uint32_t(keys[i]), m.ids_before, m.added_at, m.n_added);
        keys[i] = uint64_t(k) << 32 | e;
    }
}

void keys_from_id_order(const AoiScratch& s, uint64_t* keys, uint64_t n) noexcept {
    const AoiScratch::Members& m = s.members;
    uint32_t id_order[kMax], watcher_order[kMax];
    for (uint32_t i = 0; i < m.n_added; ++i) id_order[i] = i + m.added_at[i];
    for (uint32_t i = 0; i < m.n_new_watchers; ++i) watcher_order[i] = i + m.new_watcher_at[i];
    for (uint64_t i = 0; i < n; ++i) {
        const uint32_t k = from_order(uint32_t(keys[i] >> 32), m.watchers_before, watcher_order, m.n_new_watchers);
        const uint32_t e = from_order(uint32_t(keys[i]), m.ids_before, id_order, m.n_added);
        keys[i] = uint64_t(k) << 32 | e;
    }
}

void commit_members(AoiScratch& s, Visible& v) noexcept {
    const AoiScratch::Members& m = s.members;
    const uint32_t ib = m.ids_before;
    // The new ids, and each rank's new one (remap[e]; kNoSlot for the removed; the added i's
    // rank ib + i), in runs between the adds and removes.
    const uint64_t* const added = reinterpret_cast<const uint64_t*>(m.added_id);  // copied only
    const RankChanges ch{m.removed_rank, m.n_removed, added, m.added_at, nullptr, m.n_added};
    int64_t* const ids = s.merged_ids;
    const uint32_t out = rerank(v.ids, ib, ch, ids, s.remap, s.remap + ib);
    SOAGEO_ASSERT(out == ib - m.n_removed + m.n_added);
    std::memcpy(v.ids, ids, size_t(out) * sizeof(int64_t));
    v.id_count = out;
    for (uint32_t q = 0; q < s.loose.n; ++q) {
        const uint32_t was = v.rank_at[q], now = was == kNoSlot ? kNoSlot : s.remap[was];
        v.rank_at[q] = now;
        if (now != kNoSlot) s.pos_of_rank[now] = q;
    }
    v.positions = s.loose.n;
    for (uint32_t g = 0; g < m.n_gone; ++g) {  // their leaves went out with the events
        const uint32_t k = m.gone_watcher[g];
        v.pairs -= v.len[k];
        v.len[k] = 0;
    }
    s.ranked_n = kNoSlot;  // id_keys, rank and slot_of_rank describe the last full update's ids
}

}  // namespace aoi_detail
}  // namespace soageo
