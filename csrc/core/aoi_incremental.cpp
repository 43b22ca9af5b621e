// The AOI's incremental update: when few entities moved since the last update, only the
// watchers that changed are rescanned and every other watcher meets only the movers near it.
// The last full update's bucket order and positions stay; each search widens by the drift, and
// past the loose grid's bound (loose_grid.hpp; its unit: the median reach) a full update buckets anew.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "aoi_internal.hpp"
#include "invariant.hpp"
#include "radix.hpp"

namespace soageo {
namespace aoi_detail {
namespace {

// float32 squared distance as the kernels sum it: x term first (either sign, the same squares).
inline float distance2(float tx, float ty, float wx, float wy) noexcept {
    const float dx = tx - wx, dy = ty - wy;
    return dx * dx + dy * dy;
}

// The next stamp of the per-position `marks` (n of them), which are cleared only when it wraps.
inline uint32_t next_stamp(uint32_t& stamp, uint32_t* marks, size_t n) noexcept {
    if (++stamp == 0) {
        std::memset(marks, 0, n * sizeof(uint32_t));
        stamp = 1;
    }
    return stamp;
}

// Once after each full update: where every entity was bucketed, and the watchers by position.
void start_incremental(const AoiInput& in, AoiScratch& s) noexcept {
    const Visible& v = *in.before;
    const uint32_t n = v.id_count, all = padded(n + 1) + kMaxWidth;
    std::memcpy(s.sx, s.slot_x, n * sizeof(float));  // by slot: slot_x, slot_y are still the full update's
    std::memcpy(s.sy, s.slot_y, n * sizeof(float));
    std::fill(s.watcher_at, s.watcher_at + all, kNoSlot);
    std::fill(s.view_squared, s.view_squared + all, -1.0f);
    std::fill(s.reach_squared, s.reach_squared + all, -1.0f);
    std::memset(s.watcher_mask, 0, all * sizeof(uint32_t));
    std::memset(s.changed, 0, all * sizeof(uint32_t));
    std::memset(s.seen, 0, all * sizeof(uint32_t));
    std::memcpy(s.last_xs, s.xs, all * sizeof(float));  // the padding too: kernels read whole blocks
    std::memcpy(s.last_ys, s.ys, all * sizeof(float));
    std::memcpy(s.last_ms, s.ms, all * sizeof(uint32_t));
    s.serial = s.seen_stamp = 0;
    s.loose.drift = s.reach_max = 0.0;
    s.any_wide = false;
    for (uint32_t k = 0; k < v.n; ++k)
        if (v.pos[k] != kNoSlot) place_watcher(s, v.pos[k], k, v.view[k], v.mask[k], in.margin);
    s.fresh = false;
}

bool list_has(const Visible& v, uint32_t k, uint32_t pos) noexcept {
    const uint32_t* t = v.target + v.off[k];
    for (uint32_t i = 0, n = v.len[k]; i < n; ++i)
        if (t[i] == pos) return true;
    return false;
}

// A cover circle for a search that must find every entity now within `radius` of (cx, cy):
// widened by the drift and by float32 rounding of the centre.
Circle widened(double cx, double cy, double radius, double drift) noexcept {
    const double r = (radius + drift) * (1.0 + 0x1p-18) + (std::fabs(cx) + std::fabs(cy)) * 0x1p-22 + 0x1p-100;
    return Circle{float(cx), float(cy), float(r * (1.0 + 0x1p-20))};
}

// Sorts the keys, moves them to the end of the event buffer and writes the (watcher, target)
// id pairs in front of them; returns where the keys went (aoi_commit reads them).
uint64_t* keys_to_events(EventList& e, uint64_t n, const Visible& v, AoiScratch& s, bool members) noexcept {
    uint64_t* keys = reinterpret_cast<uint64_t*>(e.pair);
    // Keys take at most 2/3 of the buffer; tmp_* are free once the scans are done. With adds,
    // the ranks of the added follow the others' until the commit: sorted in id order.
    if (members) keys_to_id_order(s, keys, n);
    const AoiScratch::Members& m = s.members;
    sort_pair_keys(keys, keys + n, n, v.n + (members ? m.n_new_watchers : 0), v.id_count + (members ? m.n_added : 0), s.tmp_keys,
              s.tmp_vals, s.cap);
    if (members) keys_from_id_order(s, keys, n);
    uint64_t* tail = keys + (2 * e.cap - n);
    std::memmove(tail, keys, n * sizeof(uint64_t));
    for (uint64_t i = 0; i < n; ++i) {
        e.pair[2 * i] = v.watcher[tail[i] >> 32];
        e.pair[2 * i + 1] = v.ids[uint32_t(tail[i])];
    }
    e.n = n;
    return tail;
}

// The events of watcher k do not change its list in place: it was rescanned (its list is in
// the log), or it has no entity now (its entity was removed, or it was unwatched).
inline bool keeps_no_list(const AoiScratch& s, const Visible& v, uint32_t k) noexcept {
    return v.pos[k] == kNoSlot || s.changed[v.pos[k]] == s.serial;
}

// A rescanned watcher with kLeaveWindowList targets or more in its last list: its leaves (old
// targets still marked `open` after its scan) are looked for in its cover's windows, W marks
// at a time, not along the list with a random mark each; each found is marked `kept`. Returns
// how many are still to find. (s.hits is free during the rescans.)
constexpr uint32_t kLeaveWindowList = 64;

__attribute__((noinline)) uint32_t leaves_in_windows(const AoiInput& in, AoiScratch& s, const Circle& cover, uint32_t open,
                                                     uint32_t kept, uint32_t k, const Visible& v, uint64_t* lk, uint64_t& nl,
                                                     uint32_t left) noexcept {
    cover_circle(s, cover, [&](uint32_t first, uint32_t last) {
        first &= ~uint32_t(kMaxWidth - 1);  // as cover_runs
        if (last <= first) return true;
        const uint32_t h = in.kernels->match_u32(s.mark + first, last - first, open, s.hits);
        for (uint32_t j = 0; j < h; ++j) {
            const uint32_t at = first + s.hits[j];
            s.mark[at] = kept;
            lk[nl++] = event_key(k, v.rank_at[at]);
        }
        left -= h;
        return left != 0;
    });
    return left;
}

// One incremental update's state: each step (in try_incremental's order) sets the fields under
// its name. The hot loops copy what they read into locals first (a store through a key or mark
// pointer could otherwise alias a counter kept here).
struct Tick {
    Tick(const AoiInput& in_, AoiScratch& s_, Visible& log_, EventList& enter_, EventList& leave_) noexcept
        : in(in_), s(s_), v(*in_.before), log(log_), enter(enter_), leave(leave_), c(in_.layer->col),
          n(in_.layer->n), ids_before(v.id_count), limit(n / 4) {}
    const AoiInput& in;
    AoiScratch& s;
    const Visible& v;
    Visible& log;
    EventList& enter;
    EventList& leave;
    const Columns& c;
    const uint32_t n, ids_before;
    const uint32_t limit;  // movers, or watchers rescanned, past which the full update runs
    // admit
    SlotChanges mc;
    bool members = false, renumbered = false;
    uint32_t added = 0, removed = 0;
    uint32_t watchers = 0;  // this update's indices
    // find_movers
    const float* wview = nullptr;  // each watcher's view and mask by this update's indices
    const uint32_t* wmask = nullptr;
    uint32_t placed[SlotChanges::kMax];  // new watchers of entities that did not change
    uint32_t n_placed = 0;
    uint32_t positions = 0;
    bool zero = false;
    uint32_t moved = 0;    // found by slot; from mark_changed on, with the added and the removed
    uint32_t by_slot = 0;  // found by slot, then the added
    uint32_t* moved_slot = nullptr;  // = s.hits until the movers' scan: the slots of the movers
    // mark_changed
    double drift = 0.0;
    size_t padded_positions = 0;
    uint32_t serial = 0;
    uint32_t redo = 0;
    // follow_layer
    bool zero_then = false;
    uint32_t stamp = 0;
    uint64_t* ek = nullptr;
    uint64_t* lk = nullptr;
    uint64_t ecap = 0, lcap = 0;
    const float* reach_squared = nullptr;
    bool recount_lists = false;
    // rescan_watchers, search_movers
    uint64_t ne = 0, nl = 0, logged = 0;
};

// Whether this update can be incremental at all, before the scratch is changed: most entities
// moved, the members or watchers changed too much, or a buffer is short.
Incremental admit(Tick& t) noexcept {
    const Columns& c = t.c;
    AoiScratch& s = t.s;
    const Visible& v = t.v;
    const uint32_t n = t.n, ids_before = t.ids_before;
    if (n == 0 || ids_before == 0 || s.loose.n != v.positions) return Incremental::full;
    // When most entities moved (common), a sample of 64 slots says so before the pass.
    if (n >= 1024) {
        uint32_t sampled = 0, changed = 0;
        for (uint32_t i = 0, common = std::min(n, ids_before); i < common; i += n / 64, ++sampled) {
            changed += c.x[i] != s.slot_x[i] || c.y[i] != s.slot_y[i];
        }
        if (2 * changed > sampled) return Incremental::full;
    }
    AoiScratch::Members& m = s.members;
    m.ids_before = ids_before;
    m.watchers_before = v.n;
    m.positions_before = s.loose.n;
    m.n_added = m.n_removed = m.n_gone = 0;
    m.n_new_watchers = m.n_unwatched = 0;
    // Watch and unwatch (aoi_members.cpp): new watchers go in v past v.n, their views and masks in log's.
    if (!t.in.watchers_same && !find_watchers(*t.in.watchers, v, m)) return Incremental::full;
    t.renumbered = m.watchers_changed();
    t.watchers = v.n + m.n_new_watchers;
    if (t.renumbered && (t.watchers > v.watcher_cap || t.watchers > t.log.watcher_cap)) return Incremental::full;
    if (2 * t.enter.cap / 3 < uint64_t(n) + kMaxWidth) return Incremental::need_enter;
    if (2 * t.leave.cap / 3 < uint64_t(n) + kMaxWidth) return Incremental::need_leave;
    // 1. Who was added or removed (the layer's change feed since this aoi's cursor), then what
    // changed, by slot. slot_id matches the layer's ids from here on (patch_members).
    SlotChanges& mc = t.mc;
    if (!feed_slot_changes(*t.in.layer, s.slot_id_seen, s.slot_id, ids_before, mc)) return Incremental::full;
    s.slot_id_seen = t.in.layer->feed.seq;
    t.members = mc.any();
    const uint32_t added = t.added = mc.n_added, removed = t.removed = mc.n_removed;
    // Every search visits the added run whole, and the next full update drops the dead.
    const uint64_t room = std::min(s.cap, v.id_cap);
    SOAGEO_ASSERT(ids_before <= s.loose.n);  // the positions count the dead too
    if (t.members && (!loose_takes(s.loose, added, removed) || uint64_t(s.loose.n) + added > room))
        return Incremental::full;
    return Incremental::done;
}

// Patches the adds, removes, watches and unwatches into the scratch, then lists the movers:
// every later step works from their positions, and their old places and masks.
bool find_movers(Tick& t) noexcept {
    const AoiInput& in = t.in;
    AoiScratch& s = t.s;
    const Visible& v = t.v;
    const Columns& c = t.c;
    const uint32_t n = t.n;
    const bool members = t.members, renumbered = t.renumbered;
    const uint32_t added = t.added, removed = t.removed;
    if ((members || renumbered) && s.fresh) start_incremental(in, s);  // by the last update's slots
    if (members) patch_members(in, s, v, t.mc);
    s.members.layer_changed = members;
    t.wview = in.watchers->reach;  // by this update's indices: how far each list reaches (aoi.hpp)
    t.wmask = in.watchers->mask;
    if (renumbered || added) {
        t.n_placed = patch_watchers(in, s, v, renumbered ? t.log.view : nullptr, renumbered ? t.log.mask : nullptr, t.placed);
        if (renumbered) t.wview = t.log.view, t.wmask = t.log.mask;
    }
    t.positions = s.loose.n;
    bool zero = false;
    uint32_t moved = 0;
    uint32_t* const moved_slot = t.moved_slot = s.hits;
    // A kernel, W slots at a time (a scalar test per slot was costly), in runs of 256 slots.
    for (uint32_t run = 0; run < n; run += 256) {
        const AoiChanges changes{c.x, c.y, c.mask, s.slot_x, s.slot_y, s.slot_mask, run, std::min(n, run + 256)};
        moved += in.kernels->aoi_changed(changes, moved_slot + moved, &zero);
        if (moved > t.limit) return false;
    }
    SOAGEO_ASSERT(std::memcmp(s.slot_id, c.id, size_t(n) * sizeof(int64_t)) == 0);
    // The added are movers from mask 0 (after those found by slot), the removed movers to mask
    // 0 (last: they have no slot now).
    const uint32_t by_slot = moved + added;
    if (by_slot + removed > t.limit) return false;
    for (uint32_t i = 0; i < added; ++i) moved_slot[moved + i] = t.mc.added_slot[i];
    for (uint32_t j = 0; j < by_slot; ++j) {  // what the scratch has, by slot: no lookup
        const uint32_t i = moved_slot[j];
        s.old_x[j] = s.slot_x[i], s.old_y[j] = s.slot_y[i], s.old_m[j] = j < moved ? s.slot_mask[i] : 0;
        s.moved[j] = s.pos_of_slot[i];
    }
    for (uint32_t r = 0; r < removed; ++r) {
        const uint32_t j = by_slot + r, q = s.removed_pos[r];
        s.old_x[j] = s.xs[q], s.old_y[j] = s.ys[q], s.old_m[j] = s.ms[q];
        s.moved[j] = q;
    }
    t.zero = zero;
    t.moved = moved;
    t.by_slot = by_slot;
    return true;
}

// Watchers compared a block at a time in mark_changed (bits equal: values equal).
constexpr uint32_t kSameRun = 32;

// Bounds the drift (past it the buckets are stale), stamps the changed positions and lists the
// watchers rescanned whole: what the movers' searches leave out.
bool mark_changed(Tick& t) noexcept {
    const AoiInput& in = t.in;
    AoiScratch& s = t.s;
    const Visible& v = t.v;
    const Columns& c = t.c;
    const uint32_t* const moved_slot = t.moved_slot;
    const float* const wview = t.wview;
    const uint32_t* const wmask = t.wmask;
    const uint32_t limit = t.limit;
    // Right after a full update the entities are where they were bucketed. By slot, as the
    // movers were found: by position, this pass read two cold lines a mover.
    const float* const bx = s.fresh ? s.slot_x : s.sx;
    const float* const by = s.fresh ? s.slot_y : s.sy;
    // One square root for the farthest: sqrt is monotonic and correctly rounded, so this is the
    // largest of the movers' distances exactly.
    double far2 = 0.0;
    for (uint32_t j = 0; j < t.moved; ++j) {
        const uint32_t i = moved_slot[j];
        const double dx = double(c.x[i]) - bx[i], dy = double(c.y[i]) - by[i];
        far2 = std::max(far2, dx * dx + dy * dy);
    }
    t.drift = std::max(s.fresh ? 0.0 : s.loose.drift, std::sqrt(far2));
    if (!loose_drift_ok(s.loose, t.drift)) return false;
    if (s.fresh) start_incremental(in, s);
    t.padded_positions = size_t(padded(t.positions + 1)) + kMaxWidth;
    const uint32_t serial = t.serial = next_stamp(s.serial, s.changed, t.padded_positions);
    const uint32_t moved = t.moved = t.by_slot + t.removed;
    for (uint32_t j = 0; j < moved; ++j) s.changed[s.moved[j]] = serial;
    // 2. Watchers rescanned whole: those that moved (found by position), those that changed
    // view or mask, and the wide ones when anything moved (one sequential pass over the rest).
    uint32_t redo = 0;
    for (uint32_t j = 0; j < moved; ++j)
        if (s.watcher_at[s.moved[j]] != kNoSlot) s.redo[redo++] = s.watcher_at[s.moved[j]];
    // No watch or unwatch since the last update and no watcher wider than a cell: none to add.
    const bool wide = moved && s.any_wide;
    const uint32_t same_below = std::min(t.watchers, v.n);  // both arrays hold these indices
    for (uint32_t k = 0; (!in.watchers_same || wide) && k < t.watchers; ++k) {
        // Runs of views and masks the same bit for bit are skipped a block at a time (when only
        // wide watchers would be added, none is skipped): after a special watcher's reach
        // changed, every other watcher's is as it was, and a compare each was most of this pass.
        while (!wide && k + kSameRun <= same_below && std::memcmp(wview + k, v.view + k, kSameRun * sizeof(float)) == 0 &&
               std::memcmp(wmask + k, v.mask + k, kSameRun * sizeof(uint32_t)) == 0)
            k += kSameRun;
        if (k >= t.watchers) break;
        const bool again = wview[k] != v.view[k] || wmask[k] != v.mask[k] ||
                           (moved && double(wview[k] + in.margin) > s.cell);
        if (!again || v.pos[k] == kNoSlot || s.changed[v.pos[k]] == serial) continue;
        if (redo == limit) return false;
        s.changed[v.pos[k]] = serial;
        s.redo[redo++] = k;
    }
    for (uint32_t i = 0; i < t.n_placed; ++i) {  // new watchers: rescanned, from an empty list
        const uint32_t q = t.placed[i];
        if (s.changed[q] == serial) continue;
        if (redo == limit) return false;
        s.changed[q] = serial;
        s.redo[redo++] = s.watcher_at[q];
    }
    t.redo = redo;
    return true;
}

// Committed to this path: the scratch follows the layer, the movers and the rescans are put in
// position order, and the scans' marks and event keys get their room.
void follow_layer(Tick& t) noexcept {
    const AoiInput& in = t.in;
    AoiScratch& s = t.s;
    const Visible& v = t.v;
    const Columns& c = t.c;
    const uint32_t moved = t.moved, by_slot = t.by_slot, redo = t.redo, serial = t.serial;
    for (uint32_t j = 0; j < by_slot; ++j) {
        const uint32_t q = s.moved[j], i = t.moved_slot[j];
        s.xs[q] = c.x[i], s.ys[q] = c.y[i], s.ms[q] = c.mask[i];
        s.slot_x[i] = c.x[i], s.slot_y[i] = c.y[i], s.slot_mask[i] = c.mask[i];
    }
    for (uint32_t j = by_slot; j < moved; ++j) s.ms[s.moved[j]] = 0;  // the removed: seen by nobody
    s.loose.drift = t.drift;
    grid_validate(s.loose, 0, [&](uint32_t p, float& x, float& y) { return x = s.xs[p], y = s.ys[p], true; });
    // Some mask was 0 at the last update (last_ms has the added as 0 too): the masks are read then.
    t.zero_then = s.zero_masks || t.added;
    s.zero_masks = t.zero || s.loose.dead;  // a dead position has mask 0
    // The movers and the rescanned watchers in position order, so that consecutive searches
    // meet the same cells (in slot order, each met cold memory); new_pos (the full path's) says
    // which mover is at a position.
    uint32_t* const order = s.mover_order;
    for (uint32_t j = 0; j < moved; ++j) s.new_pos[s.moved[j]] = j;
    uint32_t in_order = 0, redo_in_order = 0;
    uint32_t* const changed_at = s.changed_at;
    const uint32_t changed = in.kernels->match_u32(s.changed, t.positions, serial, changed_at);
    for (uint32_t i = 0; i < changed; ++i) {
        const uint32_t q = changed_at[i], j = s.new_pos[q];
        if (j < moved && s.moved[j] == q) order[in_order++] = j;
        if (s.watcher_at[q] != kNoSlot) s.redo[redo_in_order++] = s.watcher_at[q];
    }
    SOAGEO_ASSERT(in_order == moved && redo_in_order == redo);
    s.n_redo = redo;
    // With no watch or unwatch since the last update, every watcher is placed as it was.
    for (uint32_t r = 0; !in.watchers_same && r < redo; ++r) {
        const uint32_t k = s.redo[r];
        place_watcher(s, v.pos[k], k, t.wview[k], t.wmask[k], in.margin);
    }
    // The marks go on from the last update's stamps: cleared only when the stamps would wrap.
    t.stamp = s.mark_stamp;
    if (t.stamp > kMaxMarkStamp - redo - moved) {
        std::memset(s.mark, 0, t.padded_positions * sizeof(uint32_t));
        t.stamp = 0;
    }
    s.use = AoiScratch::Use::watchers;
    t.ek = reinterpret_cast<uint64_t*>(t.enter.pair);
    t.lk = reinterpret_cast<uint64_t*>(t.leave.pair);
    t.ecap = 2 * t.enter.cap / 3, t.lcap = 2 * t.leave.cap / 3;  // keys and pairs side by side
    // With no margin, reach * reach and view * view are the same float: the movers' kernels read
    // one column (view_squared passed as both).
    t.reach_squared = in.margin == 0.0f ? s.view_squared : s.reach_squared;
    std::memset(s.searched, 0, moved);
    t.recount_lists = in.margin == 0.0f;  // (rescan_watchers says why)
}

// Settles each still watcher a mover's search reports, looking at the watcher's list only in
// the hysteresis band (in reach but not in view at the last update). Returns false when an
// event buffer is short. (ne, nl: the calling step's counters.)
inline bool settle(const Tick& t, uint32_t j, uint32_t h, uint32_t tag, uint64_t& ne, uint64_t& nl) noexcept {
    if (ne + h > t.ecap || nl + h > t.lcap) return false;
    AoiScratch& s = t.s;
    const Visible& v = t.v;
    uint64_t* const ek = t.ek;
    uint64_t* const lk = t.lk;
    const float* const reach_squared = t.reach_squared;
    const uint32_t serial = t.serial;
    const uint32_t q = s.moved[j], rank = v.rank_at[q];
    const float ox = s.old_x[j], oy = s.old_y[j], nx = s.xs[q], ny = s.ys[q];
    const uint32_t om = s.old_m[j], nm = s.ms[q];
    for (uint32_t i = 0; i < h; ++i) {
        const uint32_t at = s.hits[i];
        if (s.changed[at] == serial || s.seen[at] == tag) continue;  // rescanned, or met already
        s.seen[at] = tag;
        const float d_new = distance2(nx, ny, s.xs[at], s.ys[at]), d_old = distance2(ox, oy, s.xs[at], s.ys[at]);
        const bool pass_new = (s.watcher_mask[at] & nm) != 0, pass_old = (s.watcher_mask[at] & om) != 0;
        const bool view_new = pass_new && d_new < s.view_squared[at];
        const bool reach_new = pass_new && d_new < reach_squared[at];
        const bool view_old = pass_old && d_old < s.view_squared[at];
        const bool reach_old = pass_old && d_old < reach_squared[at];
        const uint32_t k = s.watcher_at[at];
        const bool seen_old = view_old || (reach_old && list_has(v, k, q));
        const bool seen_new = view_new || (seen_old && reach_new);
        if (seen_new && !seen_old) ek[ne++] = event_key(k, rank);
        if (seen_old && !seen_new) lk[nl++] = event_key(k, rank);
    }
    return true;
}

// The circle a mover's search covers: every still watcher that may see it now or then.
inline Circle search_cover(const Tick& t, uint32_t j, double extra) noexcept {
    const AoiScratch& s = t.s;
    const uint32_t q = s.moved[j];
    const float ox = s.old_x[j], oy = s.old_y[j], nx = s.xs[q], ny = s.ys[q];
    const double mx = 0.5 * (double(ox) + nx), my = 0.5 * (double(oy) + ny);
    const double half = 0.5 * std::sqrt((double(nx) - ox) * (double(nx) - ox) + (double(ny) - oy) * (double(ny) - oy));
    return widened(mx, my, s.reach_max + half + extra * (std::fabs(mx) + std::fabs(my)), t.drift);
}

// 3. The rescanned watchers, as the full path scans them (their new lists go to the log), and
// the leaves of the watchers that see nothing now. (Planning windows one watcher ahead, as the
// full path does, measured no faster here: in position order they are mostly in cache.)
// A watcher that moved, and whose reach the movers' searches cover, is searched for as a mover
// in the same pass (aoi_scan_mover) over its search's windows: they hold its circle (the search
// reaches the widest such reach from the midpoint of its move, a relative 2^-22 more covers
// that midpoint's rounding). With no margin, a moved watcher's last list (same view and filter)
// held exactly what was within its view then: its scan recomputes that from last_xs, last_ys,
// last_ms instead of marking the list, read cold at a random place.
bool rescan_watchers(Tick& t) noexcept {
    const AoiInput& in = t.in;
    AoiScratch& s = t.s;
    const Visible& v = t.v;
    const AoiScratch::Members& m = s.members;
    const float* const wview = t.wview;
    const uint32_t* const wmask = t.wmask;
    const float* const reach_squared = t.reach_squared;
    uint8_t* const searched = s.searched;
    uint64_t* const ek = t.ek;
    uint64_t* const lk = t.lk;
    const uint64_t ecap = t.ecap, lcap = t.lcap;
    const uint32_t redo = t.redo, moved = t.moved, positions = t.positions, ids_before = t.ids_before;
    const double drift = t.drift;
    const bool recount_lists = t.recount_lists, zero_then = t.zero_then;
    uint64_t ne = t.ne, nl = t.nl, logged = t.logged;
    uint32_t stamp = t.stamp;
    Runs runs;
    // A watcher whose entity was removed, or that was unwatched: all it saw leaves (the commit
    // skips its events: it keeps no list).
    for (uint32_t g = 0; g < m.n_gone + m.n_unwatched; ++g) {
        const uint32_t k = g < m.n_gone ? m.gone_watcher[g] : m.unwatched[g - m.n_gone];
        const uint32_t* list = v.target + v.off[k];
        if (nl + v.len[k] > lcap) return false;
        for (uint32_t o = 0; o < v.len[k]; ++o) lk[nl++] = event_key(k, v.rank_at[list[o]]);
    }
    for (uint32_t r = 0; r < redo; ++r) {
        // Watchers in position order are far apart in index order: fetched a few rescans ahead.
        if (r + 8 < redo) {
            const uint32_t k8 = s.redo[r + 8];
            if (!recount_lists) __builtin_prefetch(v.off + k8), __builtin_prefetch(v.len + k8);
            __builtin_prefetch(wview + k8);
            __builtin_prefetch(wmask + k8);
            __builtin_prefetch(v.pos + k8);
        }
        if (!recount_lists && r + 4 < redo) {
            const uint32_t* list = v.target + v.off[s.redo[r + 4]];
            __builtin_prefetch(list);
            __builtin_prefetch(list + 16);
        }
        const uint32_t k = s.redo[r], self = v.pos[k];
        // Only the log needs room first: the events are counted before they are written.
        if (logged + positions + kMaxWidth > t.log.target_cap) return false;
        const uint32_t open = 2 * ++stamp, kept = open + 1;
        const uint32_t j = s.new_pos[self];  // the mover index of a watcher that moved (step 2)
        const bool mover = j < moved && s.moved[j] == self && reach_squared[self] >= 0.0f;
        // (Not a watcher that saw nothing then, just watched or just given its entity: its empty
        // list says so, not where things were; nor one whose view or filter changed.)
        const bool recount = recount_lists && mover && v.rank_at[self] < ids_before && k < v.n &&
                             (in.watchers_same || (wview[k] == v.view[k] && wmask[k] == v.mask[k]));
        const uint32_t* const old_t = recount ? nullptr : v.target + v.off[k];
        const uint32_t old_n = recount ? 0 : v.len[k];
        for (uint32_t o = 0; o < old_n; ++o) s.mark[old_t[o]] = open;
        s.mark[self] = kept;  // the watcher never sees itself
        const float view = wview[k];
        const Circle reach{s.xs[self], s.ys[self], view + in.margin};
        WatcherScan scan{AoiMeet{t.log.target + logged, s.watcher_enters, 0, 0, 0}, v.rank_at[self], open, kept, nullptr,
                         wmask[k]};
        scan.m = scan.filter != ~0u || s.zero_masks || (recount && zero_then) ? s.ms : nullptr;
        AoiWindow window{s.xs, s.ys, s.mark, nullptr, 0, reach.cx, reach.cy, view, reach.radius, open, kept, scan.m,
                         scan.filter};
        if (recount) {
            window.ox = s.last_xs, window.oy = s.last_ys, window.om = s.last_ms;
            scan.found.leaves = s.gone;
        }
        if (mover) {
            searched[j] = 1;
            const uint32_t tag = next_stamp(s.seen_stamp, s.seen, t.padded_positions);
            AoiMoverWindow mw{s.xs,      s.ys,      s.view_squared, reach_squared, s.watcher_mask, nullptr, 0,
                              s.old_x[j], s.old_y[j], reach.cx,      reach.cy,      s.old_m[j],     s.ms[self]};
            bool room = true;
            cover_runs(s, search_cover(t, j, 0x1p-22), positions, runs, [&](const Runs& b) {
                window.runs = b.at, window.n_runs = b.n;
                const uint32_t h = in.kernels->aoi_scan_mover(window, mw, scan.found, s.hits);
                return room = settle(t, j, h, tag, ne, nl);
            });
            if (!room) return false;
        } else {
            cover_runs(s, widened(reach.cx, reach.cy, reach.radius, drift), ~0u, runs, [&](const Runs& b) {
                window.runs = b.at, window.n_runs = b.n;
                in.kernels->aoi_scan(window, scan.found);
                return true;
            });
        }
        if (ne + scan.found.n_enter > ecap) return false;
        for (uint32_t i = 0; i < scan.found.n_enter; ++i) ek[ne++] = event_key(k, v.rank_at[s.watcher_enters[i]]);
        if (recount) {  // its leaves came out of the scan
            if (nl + scan.found.n_leave > lcap) return false;
            for (uint32_t i = 0; i < scan.found.n_leave; ++i) lk[nl++] = event_key(k, v.rank_at[s.gone[i]]);
        } else {
            // Every old target not met within reach leaves (as collect_leaves); a long list
            // looks in the windows first (leaves_in_windows).
            uint32_t left = old_n - scan.found.met;
            if (nl + left > lcap) return false;
            if (left && old_n >= kLeaveWindowList)
                left = leaves_in_windows(in, s, widened(reach.cx, reach.cy, reach.radius, drift), open, kept, k, v, lk,
                                         nl, left);
            for (uint32_t o = 0; left && o < old_n; ++o)
                if (s.mark[old_t[o]] != kept) lk[nl++] = event_key(k, v.rank_at[old_t[o]]), --left;
        }
        s.redo_at[r] = static_cast<uint32_t>(logged);
        s.redo_len[r] = scan.found.n_visible;
        logged += scan.found.n_visible;
    }
    t.ne = ne, t.nl = nl, t.logged = logged;
    t.stamp = stamp;
    return true;
}

// 4. Every other watcher meets only the entities that changed near it (those not searched
// for with their rescan).
bool search_movers(Tick& t) noexcept {
    AoiScratch& s = t.s;
    const KernelTable& kernels = *t.in.kernels;
    const uint32_t* const order = s.mover_order;
    const uint8_t* const searched = s.searched;
    const float* const reach_squared = t.reach_squared;
    const uint32_t moved = t.moved, positions = t.positions;
    uint64_t ne = t.ne, nl = t.nl;
    Runs runs;
    for (uint32_t o = 0; o < moved; ++o) {
        const uint32_t j = order[o];
        if (searched[j]) continue;
        const uint32_t tag = next_stamp(s.seen_stamp, s.seen, t.padded_positions);
        AoiMoverWindow mw{s.xs,       s.ys,       s.view_squared,   reach_squared,    s.watcher_mask,   nullptr, 0,
                          s.old_x[j], s.old_y[j], s.xs[s.moved[j]], s.ys[s.moved[j]], s.old_m[j], s.ms[s.moved[j]]};
        bool room = true;
        // Batches of at most `positions`: their hits fit s.hits.
        cover_runs(s, search_cover(t, j, 0.0), positions, runs, [&](const Runs& b) {
            mw.runs = b.at, mw.n_runs = b.n;
            return room = settle(t, j, kernels.aoi_mover(mw, s.hits), tag, ne, nl);
        });
        if (!room) return false;
    }
    t.ne = ne, t.nl = nl;
    return true;
}

// The floor of the watcher at v's index k (0: its list reaches its view). A floor is set only
// with a reach short of the view, and a list reaches as far as its watcher's reach (else it was
// rescanned). After a watch or unwatch the indices differ: found by id (a new watcher has none).
uint32_t floor_at(const Tick& t, uint32_t k) noexcept {
    const Watchers& w = *t.in.watchers;
    if (!t.renumbered) return w.floor[k];
    if (k >= t.v.n) return 0;
    bool found;
    const uint32_t at = watchers_find(w, t.v.watcher[k], &found);
    return found ? w.floor[at] : 0;
}

// The lists as this update leaves them, the rescanned ones by their new length, the others by
// their events (ek, lk: sorted by watcher). False when one kept short of its watcher's view
// (Watchers::reach) falls below its floor: the full path then runs. Else *narrowed gets how many
// rescanned lists are narrowed, *need the room aoi_commit will take past v.top for the lists
// that outgrow theirs.
bool lists_fit(const Tick& t, const uint64_t* ek, uint64_t ne, const uint64_t* lk, uint64_t nl, uint32_t* narrowed,
               uint64_t* need) noexcept {
    const AoiScratch& s = t.s;
    const Visible& v = t.v;
    for (uint32_t r = 0; r < s.n_redo; ++r) {
        const uint32_t len = s.redo_len[r], floor = t.in.narrowing ? floor_at(t, s.redo[r]) : 0;
        if (len > v.room[s.redo[r]]) *need += list_room(len);
        *narrowed += floor != 0;
        if (len < floor) return false;
    }
    uint64_t i = 0, j = 0;
    while (i < ne || j < nl) {
        const uint32_t k = std::min(i < ne ? uint32_t(ek[i] >> 32) : ~0u, j < nl ? uint32_t(lk[j] >> 32) : ~0u);
        int64_t gained = 0, lost = 0;
        while (i < ne && uint32_t(ek[i] >> 32) == k) ++i, ++gained;
        while (j < nl && uint32_t(lk[j] >> 32) == k) ++j, ++lost;
        if (keeps_no_list(s, v, k)) continue;  // rescanned (counted above), or gone
        const int64_t len = int64_t(v.len[k]) + gained - lost;
        if (len > int64_t(v.room[k])) *need += list_room(uint32_t(len));
        // Only a watcher that lost targets can fall short.
        if (lost && v.narrowed && len < int64_t(floor_at(t, k))) return false;
    }
    return true;
}

// 5. Events sorted as the full path writes them; the lists must have room to change in place.
Incremental finish(Tick& t, AoiProgress& p) noexcept {
    AoiScratch& s = t.s;
    const Visible& v = t.v;
    s.mark_stamp = t.stamp;
    for (uint32_t j = 0; j < t.moved; ++j) {  // last_xs, last_ys, last_ms describe this update from now on
        const uint32_t q = s.moved[j];
        s.last_xs[q] = s.xs[q], s.last_ys[q] = s.ys[q], s.last_ms[q] = s.ms[q];
    }
    const uint64_t ne = t.ne, nl = t.nl;
    const bool renumber = t.members || t.renumbered;
    p.enter_keys = keys_to_events(t.enter, ne, v, s, renumber);
    p.leave_keys = keys_to_events(t.leave, nl, v, s, renumber);
    uint32_t narrowed = 0;
    uint64_t need = 0;
    if (!lists_fit(t, p.enter_keys, ne, p.leave_keys, nl, &narrowed, &need)) return Incremental::full;
    p.narrowed = narrowed;
    if (v.top + need > v.target_cap) return Incremental::full;
    p.n_enter = ne, p.n_leave = nl;
    p.members = renumber;
    return Incremental::done;
}

// Moves list k to the free end of v's targets with room for `len` entries.
void relocate(Visible& v, uint32_t k, uint32_t len) noexcept {
    const uint32_t room = list_room(len);
    SOAGEO_ASSERT(v.top + room <= v.target_cap);
    std::memcpy(v.target + v.top, v.target + v.off[k], v.len[k] * sizeof(uint32_t));
    v.off[k] = static_cast<uint32_t>(v.top);
    v.room[k] = room;
    v.top += room;
}

// uint32 entries in a 64-byte cache line.
constexpr uint32_t kLineWords = 16;

}  // namespace

Incremental try_incremental(const AoiInput& in, AoiScratch& s, Visible& log, EventList& enter, EventList& leave,
                            AoiProgress& p) noexcept {
    Tick t(in, s, log, enter, leave);
    const Incremental admitted = admit(t);
    if (admitted != Incremental::done) return admitted;
    if (!find_movers(t) || !mark_changed(t)) return Incremental::full;
    follow_layer(t);
    if (!rescan_watchers(t) || !search_movers(t)) return Incremental::full;
    return finish(t, p);
}

void commit_incremental(const AoiInput& in, AoiScratch& s, Visible& v, Visible& log,
                        const AoiProgress& p) noexcept {
    for (uint32_t r = 0; r < s.n_redo; ++r) {
        const uint32_t k = s.redo[r], len = s.redo_len[r];
        if (len > v.room[k]) relocate(v, k, len);
        std::memcpy(v.target + v.off[k], log.target + s.redo_at[r], len * sizeof(uint32_t));
        v.pairs = v.pairs - v.len[k] + len;
        v.len[k] = len;
    }
    for (uint64_t i = 0; i < p.n_leave; ++i) {
        // Each leave searches its watcher's list, cold (hundreds of entries in a crowd): the
        // lists a few leaves ahead are fetched meanwhile, their offsets further ahead.
        if (i + 16 < p.n_leave) {
            const uint32_t k16 = uint32_t(p.leave_keys[i + 16] >> 32);
            __builtin_prefetch(v.off + k16);
            __builtin_prefetch(v.len + k16);
            __builtin_prefetch(v.pos + k16);
            __builtin_prefetch(s.pos_of_rank + uint32_t(p.leave_keys[i + 16]));
        }
        if (i + 6 < p.n_leave) {
            const uint32_t k6 = uint32_t(p.leave_keys[i + 6] >> 32);
            const uint32_t* t6 = v.target + v.off[k6];
            for (uint32_t b = 0, e = std::min(v.len[k6], 8 * kLineWords); b < e; b += kLineWords) __builtin_prefetch(t6 + b);
        }
        const uint32_t k = uint32_t(p.leave_keys[i] >> 32), at = s.pos_of_rank[uint32_t(p.leave_keys[i])];
        if (keeps_no_list(s, v, k)) continue;
        uint32_t* t = v.target + v.off[k];
        const uint32_t o = in.kernels->find_u32(t, v.len[k], at);
        SOAGEO_ASSERT(o < v.len[k]);
        if (o == v.len[k]) continue;  // cannot be: the watcher saw it
        t[o] = t[--v.len[k]];
        --v.pairs;
    }
    for (uint64_t i = 0; i < p.n_enter;) {
        const uint32_t k = uint32_t(p.enter_keys[i] >> 32);
        uint64_t end = i;
        while (end < p.n_enter && uint32_t(p.enter_keys[end] >> 32) == k) ++end;
        if (!keeps_no_list(s, v, k)) {
            const uint32_t len = v.len[k] + uint32_t(end - i);
            if (len > v.room[k]) relocate(v, k, len);
            uint32_t* t = v.target + v.off[k];
            v.pairs += end - i;
            for (; i < end; ++i) t[v.len[k]++] = s.pos_of_rank[uint32_t(p.enter_keys[i])];
        }
        i = end;
    }
    if (p.members && s.members.layer_changed) commit_members(s, v);
    if (p.members && s.members.watchers_changed()) commit_watchers(in, s, v, log);
    v.narrowed = v.narrowed || p.narrowed != 0;
    if (in.watchers_same) return;  // views and masks change only through watch and unwatch
    std::memcpy(v.view, in.watchers->reach, v.n * sizeof(float));
    std::memcpy(v.mask, in.watchers->mask, v.n * sizeof(uint32_t));
}

}  // namespace aoi_detail
}  // namespace soageo
