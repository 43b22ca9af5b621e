// The AOI's memory, carved from blocks the binding allocates: the watchers (and their sorted
// set's operations), the visible lists, the per-update scratch and the event lists.
#include <algorithm>
#include <cstring>

#include "aoi_internal.hpp"
#include "carve.hpp"

namespace soageo {

namespace {

Watchers lay_watchers(Carver& k, uint32_t cap) noexcept {
    Watchers w{};
    k.take_each(cap, &w.id, &w.view, &w.mask, &w.reach, &w.floor);
    w.cap = cap;
    return w;
}

Visible lay_visible(Carver& k, uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap) noexcept {
    Visible v{};
    k.take_each(watcher_cap, &v.watcher, &v.view, &v.mask, &v.pos, &v.off, &v.len, &v.room);
    v.target = k.take<uint32_t>(target_cap);
    k.take_each(id_cap, &v.ids, &v.rank_at);
    v.watcher_cap = watcher_cap;
    v.target_cap = target_cap;
    v.id_cap = id_cap;
    return v;
}

AoiScratch lay_aoi_scratch(Carver& k, uint32_t cap) noexcept {
    size_t c = size_t(padded(cap + 1)) + kMaxWidth;
    AoiScratch s{};
    k.take_each(c, &s.xs, &s.ys, &s.ms, &s.keys, &s.tmp_keys, &s.tmp_vals, &s.id_keys, &s.tmp_id_keys);
    s.merged_ids = reinterpret_cast<int64_t*>(s.tmp_id_keys);
    s.watcher_enters = s.tmp_keys;
    s.watcher_leaves = s.tmp_vals;
    k.take_each(c, &s.rank, &s.slot_of_rank, &s.rank_at_pos, &s.mark, &s.pos_of_rank, &s.remap, &s.new_pos);
    s.loose.buckets = loose_buckets_for(cap);  // at least one per entity
    s.loose.start = k.take<uint32_t>(loose_start_len(s.loose.buckets, 0));
    k.take_each(c, &s.pos_of_slot, &s.sx, &s.sy);
    k.take_each(c, &s.slot_x, &s.slot_y, &s.slot_mask, &s.slot_id);
    k.take_each(c, &s.watcher_at, &s.view_squared, &s.reach_squared, &s.watcher_mask);
    k.take_each(c, &s.changed, &s.moved, &s.old_x, &s.old_y, &s.old_m);
    k.take_each(c, &s.redo, &s.redo_at, &s.redo_len, &s.hits, &s.seen);
    k.take_each(c, &s.last_xs, &s.last_ys, &s.last_ms, &s.gone);
    s.removed_pos = s.gone;
    s.mover_order = s.keys;
    s.changed_at = s.hits;
    s.searched = reinterpret_cast<uint8_t*>(s.tmp_vals);
    s.cell = s.loose.inv_cell = s.loose.inv_cell_x = 1.0;
    s.ranked_n = kNoSlot;
    s.use = AoiScratch::Use::sorting;
    s.cap = cap;
    return s;
}

EventList lay_events(Carver& k, uint64_t cap) noexcept { return EventList{k.take<int64_t>(cap * 2), 0, cap}; }

}  // namespace

size_t watchers_bytes(uint32_t cap) noexcept { return layout_bytes(lay_watchers, cap); }

Watchers watchers_carve(void* block, uint32_t cap) noexcept { return layout_carve(block, lay_watchers, cap); }

uint32_t watchers_find(const Watchers& w, int64_t id, bool* found) noexcept {
    uint32_t at = static_cast<uint32_t>(std::lower_bound(w.id, w.id + w.n, id) - w.id);
    *found = at < w.n && w.id[at] == id;
    return at;
}

void watchers_insert(Watchers& w, uint32_t at, int64_t id, float view, uint32_t mask) noexcept {
    SOAGEO_ASSERT(w.n < w.cap && at <= w.n);
    move_rows(w, at + 1, w, at, w.n - at, &Watchers::id, &Watchers::view, &Watchers::mask, &Watchers::reach,
              &Watchers::floor);
    w.id[at] = id;
    w.view[at] = view;
    w.mask[at] = mask;
    w.reach[at] = view;
    w.floor[at] = 0;
    ++w.n;
}

void watchers_erase(Watchers& w, uint32_t at) noexcept {
    move_rows(w, at, w, at + 1, w.n - at - 1, &Watchers::id, &Watchers::view, &Watchers::mask, &Watchers::reach,
              &Watchers::floor);
    --w.n;
}

void watchers_copy(Watchers& to, const Watchers& from) noexcept {
    move_rows(to, 0, from, 0, from.n, &Watchers::id, &Watchers::view, &Watchers::mask, &Watchers::reach,
              &Watchers::floor);
    to.n = from.n;
}

size_t visible_bytes(uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap) noexcept {
    return layout_bytes(lay_visible, watcher_cap, target_cap, id_cap);
}

Visible visible_carve(void* block, uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap) noexcept {
    return layout_carve(block, lay_visible, watcher_cap, target_cap, id_cap);
}

void visible_copy(Visible& to, const Visible& from) noexcept {
    SOAGEO_ASSERT(to.watcher_cap >= from.n && to.target_cap >= from.top && to.id_cap >= from.positions);
    move_rows(to, 0, from, 0, from.n, &Visible::watcher, &Visible::view, &Visible::mask, &Visible::pos, &Visible::off,
              &Visible::len, &Visible::room);
    std::memcpy(to.target, from.target, from.top * sizeof(uint32_t));
    std::memcpy(to.ids, from.ids, from.id_count * sizeof(int64_t));
    std::memcpy(to.rank_at, from.rank_at, from.positions * sizeof(uint32_t));
    to.n = from.n;
    to.id_count = from.id_count;
    to.positions = from.positions;
    to.top = from.top;
    to.pairs = from.pairs;
    to.narrowed = from.narrowed;
}

size_t aoi_scratch_bytes(uint32_t cap) noexcept { return layout_bytes(lay_aoi_scratch, cap); }

AoiScratch aoi_scratch_carve(void* block, uint32_t cap) noexcept { return layout_carve(block, lay_aoi_scratch, cap); }

size_t events_bytes(uint64_t cap) noexcept { return layout_bytes(lay_events, cap); }

EventList events_carve(void* block, uint64_t cap) noexcept { return layout_carve(block, lay_events, cap); }

}  // namespace soageo
