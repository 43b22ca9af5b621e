#include "aoi.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "carve.hpp"
#include "cell.hpp"
#include "radix.hpp"

namespace soageo {
namespace {

// Cells are hashed by row (cell.hpp): a run of cells in a row is one window (two when it wraps).
inline uint32_t bucket_of(const AoiScratch& s, int64_t cx, int64_t cy) noexcept { return row_bucket(s.buckets, cx, cy); }

// The median reach, from a sample of watchers, scaled by `per_reach`: the cell sizes follow
// it. A watcher whose reach is far from the median still gets every candidate, only less
// tightly.
double choose_cell(const Watchers& w, float margin, double per_reach) noexcept {
    float sample[64];
    uint32_t k = 0;
    const uint32_t step = w.n > 64 ? w.n / 64 : 1;
    for (uint32_t i = 0; i < w.n && k < 64; i += step) sample[k++] = w.view[i] + margin;
    if (k == 0) return 1.0;
    std::nth_element(sample, sample + k / 2, sample + k);
    double cell = double(sample[k / 2]) * per_reach;
    return cell > 0x1p-100 ? cell : 0x1p-100;
}

void sort_entities(const Store& st, const Watchers& w, float margin, AoiScratch& s) noexcept {
    const uint32_t n = st.n;
    const Columns& c = st.col;
    // A radix sort of 64-bit keys was a tenth of an update: kept while the ids are.
    s.use = AoiScratch::Use::sorting;
    keep_or_rank_ids(c.id, n, s.id_keys, s.slot_of_rank, s.rank, s.tmp_id_keys, s.tmp_vals, &s.ranked_n);
    // A counting sort by bucket. start[b] ends up as the first position of bucket b.
    s.cell = choose_cell(w, margin, kCellHeightPerReach);
    s.inv_cell = 1.0 / s.cell;
    s.inv_cell_x = 1.0 / choose_cell(w, margin, kCellWidthPerReach);
    uint32_t* start = s.start;
    std::memset(start, 0, (size_t(s.buckets) + 2) * sizeof(uint32_t));
    uint32_t zero = 0;
    for (uint32_t i = 0; i < n; ++i) zero |= c.mask[i] == 0;
    s.zero_masks = zero != 0;
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t b = bucket_of(s, cell_of(c.x[i], s.inv_cell_x), cell_of(c.y[i], s.inv_cell));
        s.keys[i] = b;
        ++start[b + 2];
    }
    for (uint32_t b = 2; b <= s.buckets + 1; ++b) start[b] += start[b - 1];
    for (uint32_t i = 0; i < n; ++i) {
        uint32_t at = start[s.keys[i] + 1]++;
        s.xs[at] = c.x[i];
        s.ys[at] = c.y[i];
        s.ms[at] = c.mask[i];
        // Per candidate, only arrays in bucket order and rank order are touched: chasing
        // slot -> rank -> slot -> id through four arrays cost 40% of an update.
        s.rank_at_pos[at] = s.rank[i];
        s.pos_of_rank[s.rank[i]] = at;
        s.pos_of_slot[i] = at;
    }
    std::memcpy(s.px, c.x, n * sizeof(float));
    std::memcpy(s.py, c.y, n * sizeof(float));
    std::memcpy(s.pm, c.mask, n * sizeof(uint32_t));
    std::memcpy(s.pid, c.id, n * sizeof(int64_t));
    for (uint32_t i = n; i < padded(n + 1) + kMaxWidth; ++i) s.xs[i] = s.ys[i] = 0.0f, s.ms[i] = 0;
}

inline int64_t id_of_rank(const AoiScratch& s, uint32_t rank) noexcept {
    return key_int(s.id_keys[rank]);
}

// One watcher scanning its candidates, window by window (the kernels' aoi_scan).
struct WatcherScan {
    AoiMeet found;   // positions, turned into ranks once all windows are scanned
    uint32_t self;   // rank of the watcher
    uint32_t open, kept;
    const uint32_t* m;  // the masks in bucket order, or null when the watcher filters nothing
    uint32_t filter;
};

// The windows a watcher scans: runs of buckets, as ranges of positions (first rounded down to
// a block: kernels read aligned blocks, and the extra entries are tested too). Planned one
// watcher ahead, so that their memory is being fetched while the watcher before is scanned
// (watchers go by id, so consecutive ones are far apart: their windows were a third of an
// update's cache misses).
struct Plan {
    static constexpr uint32_t kMaxWindows = 8;
    uint32_t runs[2 * kMaxWindows];
    uint32_t n = 0;
    uint32_t self = kNoSlot;  // the watcher's rank (kNoSlot: nothing planned)
    bool rows = false;        // too many windows to list: meet_candidates goes row by row
    Circle reach;
};

// Every entity the watcher at rank `self` has within view + margin is in the windows (or the
// rows) planned: a conservative cover of the circle, row by row; the kernel's test decides.
// `visit(first, last)` receives each window, in order; returns false to stop listing.
template <class Visit>
void cover_circle(const AoiInput& in, const AoiScratch& s, const Circle& reach, Visit visit) noexcept {
    const uint32_t n = in.layer->n;
    const float wx = reach.cx, wy = reach.cy;
    // |dx| and |dy| in float32 can be a hair below the real distance: widen by a relative 2^-20.
    const double half = double(reach.radius) * (1.0 + 0x1p-20) + 0x1p-126;
    const double inv = s.inv_cell, inv_x = s.inv_cell_x, cell = s.cell;
    const int64_t cy_lo = cell_of(wy - half, inv), cy_hi = cell_of(wy + half, inv);
    const int64_t cx_lo = cell_of(wx - half, inv_x), cx_hi = cell_of(wx + half, inv_x);
    const uint64_t rows = uint64_t(cy_hi - cy_lo) + 1, cols = uint64_t(cx_hi - cx_lo) + 1;
    if (cols >= s.buckets || rows > 64 + n / 256) {  // cheaper to test everything once
        visit(0, n);
        return;
    }
    const bool chords = rows > 2;  // with 2 rows or fewer, a chord rarely drops a cell
    const int64_t cy_w = chords ? cell_of(wy, inv) : 0;
    for (int64_t cy = cy_lo; cy <= cy_hi; ++cy) {
        int64_t lo = cx_lo, hi = cx_hi;
        if (chords) {
            // The row's nearest y to the watcher bounds |dy| from below, which narrows the
            // row's x range to the circle's chord there.
            double near_y = cy > cy_w ? double(cy) * cell - wy : cy < cy_w ? wy - double(cy + 1) * cell : 0.0;
            near_y -= 0x1p-30 * (std::fabs(double(wy)) + std::fabs(double(cy) * cell) + cell);
            if (near_y > 0) {
                double hx = std::sqrt(std::max(0.0, half * half - near_y * near_y)) * (1.0 + 0x1p-30);
                lo = cell_of(wx - hx, inv_x), hi = cell_of(wx + hx, inv_x);
            }
        }
        const uint32_t b_lo = bucket_of(s, lo, cy), b_hi = (b_lo + uint32_t(hi - lo)) & (s.buckets - 1);
        if (b_lo <= b_hi) {
            if (!visit(s.start[b_lo], s.start[b_hi + 1])) return;
        } else {  // the row's run wraps around the bucket table
            if (!visit(s.start[b_lo], n) || !visit(0, s.start[b_hi + 1])) return;
        }
    }
}

// The windows of a cover gathered for one kernel call (aoi_scan, aoi_mover): a call per window
// cost about as much as a block of the scan, and a cover has 2-5 windows.
struct Runs {
    static constexpr uint32_t kMax = 16;
    uint32_t at[2 * kMax];
    uint32_t n = 0;
    uint32_t len = 0;  // positions in them
};

// The windows of cover_circle(cover), first rounded down to a block, empty ones left out, in
// batches of at most Runs::kMax windows holding at most `limit` positions (unless one window
// holds more): `flush(runs)` runs a kernel over a batch and returns false to stop.
template <class Flush>
void cover_runs(const AoiInput& in, const AoiScratch& s, const Circle& cover, uint32_t limit, Runs& runs,
                Flush flush) noexcept {
    runs.n = runs.len = 0;
    bool go = true;
    cover_circle(in, s, cover, [&](uint32_t first, uint32_t last) {
        first &= ~uint32_t(kMaxWidth - 1);
        if (last <= first) return true;
        if (runs.n == Runs::kMax || (runs.n && runs.len + (last - first) > limit)) {
            if (!flush(runs)) return go = false;
            runs.n = runs.len = 0;
        }
        runs.at[2 * runs.n] = first, runs.at[2 * runs.n + 1] = last;
        ++runs.n, runs.len += last - first;
        return true;
    });
    if (go && runs.n) flush(runs);
}

void plan_windows(const AoiInput& in, const AoiScratch& s, uint32_t self, float view, Plan& plan) noexcept {
    const uint32_t slot = s.slot_of_rank[self];
    plan.self = self;
    plan.reach = Circle{in.layer->col.x[slot], in.layer->col.y[slot], view + in.margin};
    plan.n = 0;
    plan.rows = false;
    cover_circle(in, s, plan.reach, [&](uint32_t first, uint32_t last) {
        first &= ~uint32_t(kMaxWidth - 1);
        if (last <= first) return true;
        if (plan.n == Plan::kMaxWindows) return plan.rows = true, false;
        plan.runs[2 * plan.n] = first, plan.runs[2 * plan.n + 1] = last;
        ++plan.n;
        return true;
    });
}

// Asks for the first blocks of every planned window (coordinates and marks).
void prefetch_plan(const AoiScratch& s, const Plan& plan) noexcept {
    for (uint32_t k = 0; k < plan.n; ++k) {
        uint32_t blocks = 0;
        for (uint32_t b = plan.runs[2 * k]; b < plan.runs[2 * k + 1] && blocks < 8; b += kMaxWidth, ++blocks) {
            __builtin_prefetch(s.xs + b);
            __builtin_prefetch(s.ys + b);
            __builtin_prefetch(s.mark + b);
        }
    }
}

void meet_candidates(const AoiInput& in, AoiScratch& s, const Plan& plan, float view, WatcherScan& m) noexcept {
    s.mark[s.pos_of_rank[plan.self]] = m.kept;  // the watcher never sees itself
    AoiWindow window{s.xs, s.ys, s.mark, plan.runs, plan.n, plan.reach.cx, plan.reach.cy, view, plan.reach.radius,
                     m.open, m.kept, m.m, m.filter};
    if (!plan.rows) {
        if (plan.n) in.kernels->aoi_scan(window, m.found);
        return;
    }
    Runs runs;
    cover_runs(in, s, plan.reach, ~0u, runs, [&](const Runs& r) {
        window.runs = r.at, window.n_runs = r.n;
        in.kernels->aoi_scan(window, m.found);
        return true;
    });
}

}  // namespace

namespace {
Watchers lay_watchers(Carver& k, uint32_t cap) noexcept {
    Watchers w;
    w.id = k.take<int64_t>(cap);
    w.view = k.take<float>(cap);
    w.mask = k.take<uint32_t>(cap);
    w.n = 0;
    w.cap = cap;
    return w;
}
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
    std::memmove(w.id + at + 1, w.id + at, (w.n - at) * sizeof(int64_t));
    std::memmove(w.view + at + 1, w.view + at, (w.n - at) * sizeof(float));
    std::memmove(w.mask + at + 1, w.mask + at, (w.n - at) * sizeof(uint32_t));
    w.id[at] = id;
    w.view[at] = view;
    w.mask[at] = mask;
    ++w.n;
}

void watchers_erase(Watchers& w, uint32_t at) noexcept {
    std::memmove(w.id + at, w.id + at + 1, (w.n - at - 1) * sizeof(int64_t));
    std::memmove(w.view + at, w.view + at + 1, (w.n - at - 1) * sizeof(float));
    std::memmove(w.mask + at, w.mask + at + 1, (w.n - at - 1) * sizeof(uint32_t));
    --w.n;
}

void watchers_copy(Watchers& to, const Watchers& from) noexcept {
    std::memcpy(to.id, from.id, from.n * sizeof(int64_t));
    std::memcpy(to.view, from.view, from.n * sizeof(float));
    std::memcpy(to.mask, from.mask, from.n * sizeof(uint32_t));
    to.n = from.n;
}

namespace {
Visible lay_visible(Carver& k, uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap) noexcept {
    Visible v;
    v.watcher = k.take<int64_t>(watcher_cap);
    v.view = k.take<float>(watcher_cap);
    v.mask = k.take<uint32_t>(watcher_cap);
    v.pos = k.take<uint32_t>(watcher_cap);
    v.off = k.take<uint32_t>(watcher_cap);
    v.len = k.take<uint32_t>(watcher_cap);
    v.room = k.take<uint32_t>(watcher_cap);
    v.target = k.take<uint32_t>(target_cap);
    v.ids = k.take<int64_t>(id_cap);
    v.rank_at = k.take<uint32_t>(id_cap);
    v.n = 0;
    v.watcher_cap = watcher_cap;
    v.target_cap = target_cap;
    v.id_count = 0;
    v.id_cap = id_cap;
    v.top = v.pairs = 0;
    return v;
}
}  // namespace

size_t visible_bytes(uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap) noexcept {
    return layout_bytes(lay_visible, watcher_cap, target_cap, id_cap);
}

Visible visible_carve(void* block, uint32_t watcher_cap, uint64_t target_cap, uint32_t id_cap) noexcept {
    return layout_carve(block, lay_visible, watcher_cap, target_cap, id_cap);
}

void visible_copy(Visible& to, const Visible& from) noexcept {
    SOAGEO_ASSERT(to.watcher_cap >= from.n && to.target_cap >= from.top && to.id_cap >= from.id_count);
    std::memcpy(to.watcher, from.watcher, from.n * sizeof(int64_t));
    std::memcpy(to.view, from.view, from.n * sizeof(float));
    std::memcpy(to.mask, from.mask, from.n * sizeof(uint32_t));
    std::memcpy(to.pos, from.pos, from.n * sizeof(uint32_t));
    std::memcpy(to.off, from.off, from.n * sizeof(uint32_t));
    std::memcpy(to.len, from.len, from.n * sizeof(uint32_t));
    std::memcpy(to.room, from.room, from.n * sizeof(uint32_t));
    std::memcpy(to.target, from.target, from.top * sizeof(uint32_t));
    std::memcpy(to.ids, from.ids, from.id_count * sizeof(int64_t));
    std::memcpy(to.rank_at, from.rank_at, from.id_count * sizeof(uint32_t));
    to.n = from.n;
    to.id_count = from.id_count;
    to.top = from.top;
    to.pairs = from.pairs;
}

namespace {
Observers lay_observers(Carver& k, uint32_t id_cap, uint64_t pair_cap) noexcept {
    Observers o;
    o.off = k.take<uint32_t>(id_cap);
    o.len = k.take<uint32_t>(id_cap);
    o.room = k.take<uint32_t>(id_cap);
    o.who = k.take<uint32_t>(pair_cap);
    o.sort_cap = id_cap > 64 ? id_cap : 64;
    o.sort = k.take<uint64_t>(o.sort_cap);
    o.count = k.take<uint32_t>(size_t(id_cap) + 1);
    o.unsorted = k.take<uint8_t>(id_cap);
    o.id_cap = id_cap;
    o.pair_cap = pair_cap;
    o.top = 0;
    return o;
}
}  // namespace

size_t observers_bytes(uint32_t id_cap, uint64_t pair_cap) noexcept { return layout_bytes(lay_observers, id_cap, pair_cap); }

Observers observers_carve(void* block, uint32_t id_cap, uint64_t pair_cap) noexcept {
    return layout_carve(block, lay_observers, id_cap, pair_cap);
}

uint64_t observers_need(const Visible& v) noexcept { return v.pairs + v.pairs / 16 + 2 * uint64_t(v.id_count); }

// A counting sort of the (watcher, target) pairs by target rank, watchers in ascending order,
// so each target's watchers come out ascending with no sort; each list gets list_room.
void observers_build(const Visible& v, Observers& o) noexcept {
    SOAGEO_ASSERT(o.id_cap >= v.id_count && o.pair_cap >= observers_need(v));
    // Local copies: stores into who and off would otherwise make the compiler reload every
    // pointer and bound from memory in the inner loop.
    uint32_t* const off = o.off;
    uint32_t* const len = o.len;
    uint32_t* const who = o.who;
    const uint32_t* const target = v.target;
    const uint32_t* const rank_at = v.rank_at;
    const uint32_t* const list = v.off;
    const uint32_t* const list_len = v.len;
    const uint32_t watchers = v.n, ids = v.id_count;
    std::memset(len, 0, size_t(ids) * sizeof(uint32_t));
    for (uint32_t k = 0; k < watchers; ++k)
        for (uint32_t i = list[k], end = list[k] + list_len[k]; i < end; ++i) ++len[rank_at[target[i]]];
    uint64_t top = 0;
    for (uint32_t r = 0; r < ids; ++r) {
        off[r] = static_cast<uint32_t>(top);
        o.room[r] = list_room(len[r]);
        top += o.room[r];
        len[r] = 0;
    }
    o.top = top;
    for (uint32_t k = 0; k < watchers; ++k)
        for (uint32_t i = list[k], end = list[k] + list_len[k]; i < end; ++i) {
            const uint32_t r = rank_at[target[i]];
            who[off[r] + len[r]++] = k;
        }
    std::memset(o.unsorted, 0, ids);
}

void observers_sort(Observers& o, uint32_t r) noexcept {
    if (!o.unsorted[r]) return;
    // An insertion sort: the list is in order but for the few watchers an update moved or added.
    uint32_t* t = o.who + o.off[r];
    for (uint32_t i = 1, m = o.len[r]; i < m; ++i) {
        const uint32_t k = t[i];
        uint32_t at = i;
        for (; at > 0 && t[at - 1] > k; --at) t[at] = t[at - 1];
        t[at] = k;
    }
    o.unsorted[r] = 0;
}

namespace {
// One batch of events as (target rank << 33 | enter << 32 | watcher index), sorted by target
// (leaves first): the lists are then visited in memory order, each once. Applied in the order
// the update wrote them (by watcher), each event met a list at random: 0.3 ms for the 10,000
// events of a tick at 10,000 uniform watchers all moving, as much as a new build. A leave takes
// the list's last watcher in its place, an enter goes last, and the list is marked unsorted
// (no shifting of sorted lists here): observers_sort puts it back in order when asked for.
// One event at a time: loops per target over its 0-2 leaves and 0-2 enters missed their exit
// at almost every target (in-process A/B, update + inversion at 10,000 all moving: 0.97-0.98x).
bool apply_batch(Observers& o, const uint64_t* ev, uint32_t n) noexcept {
    uint32_t* const off = o.off;
    uint32_t* const len = o.len;
    uint32_t* const who = o.who;
    for (uint32_t i = 0; i < n; ++i) {
        if (i + 12 < n) {  // the lists are far apart even in this order: fetched ahead
            const uint32_t* ahead = who + off[uint32_t(ev[i + 12] >> 33)];
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + 16);
        }
        const uint64_t e = ev[i];
        const uint32_t r = uint32_t(e >> 33), k = uint32_t(e);
        uint32_t* t = who + off[r];
        const uint32_t m = len[r];
        if (!((e >> 32) & 1)) {  // a leave: k is in the list
            uint32_t at = 0;
            while (t[at] != k) ++at;
            SOAGEO_ASSERT(at < m);
            t[at] = t[m - 1];
            len[r] = m - 1;
        } else {
            if (m == o.room[r]) {  // outgrown: to the free end, with room again
                const uint32_t room = list_room(m + 1);
                if (o.top + room > o.pair_cap) return false;
                std::memcpy(who + o.top, t, m * sizeof(uint32_t));
                off[r] = static_cast<uint32_t>(o.top);
                o.room[r] = room;
                o.top += room;
                t = who + off[r];
            }
            t[m] = k;
            len[r] = m + 1;
        }
        o.unsorted[r] = 1;
    }
    return true;
}
}  // namespace

// The targets are sorted in groups of 2^shift ranks, at most this many groups.
constexpr uint32_t kApplyGroups = 1024;

bool observers_apply(const Visible& v, Observers& o, const uint64_t* leave_keys, uint64_t n_leave,
                     const uint64_t* enter_keys, uint64_t n_enter) noexcept {
    SOAGEO_ASSERT(o.id_cap >= v.id_count);
    const uint32_t ids = v.id_count;
    uint32_t* const count = o.count;
    // A counting sort of each batch by group of targets, leaves (then enters) in the order given,
    // so that every list still takes its events in that order. The lists of a group lie together,
    // so the apply stays as local as with a sort by target, and the count array has a few hundred
    // entries: one per target made its clearing and its prefix sum a tenth of the apply.
    uint32_t shift = 0;
    while ((ids >> shift) > kApplyGroups) ++shift;
    const uint32_t groups = ids ? ((ids - 1) >> shift) + 1 : 0;  // <= ids: count holds them
    auto key_at = [&](uint64_t i) {
        const bool enter = i >= n_leave;
        const uint64_t key = enter ? enter_keys[i - n_leave] : leave_keys[i];
        return uint64_t(uint32_t(key)) << 33 | uint64_t(enter) << 32 | (key >> 32);
    };
    for (uint64_t first = 0, all = n_leave + n_enter; first < all; first += o.sort_cap) {
        const uint64_t last = std::min(all, first + o.sort_cap);
        std::memset(count, 0, (size_t(groups) + 1) * sizeof(uint32_t));
        for (uint64_t i = first; i < last; ++i) {
            const uint64_t key = i >= n_leave ? enter_keys[i - n_leave] : leave_keys[i];
            ++count[(uint32_t(key) >> shift) + 1];
        }
        for (uint32_t g = 1; g <= groups; ++g) count[g] += count[g - 1];
        for (uint64_t i = first; i < last; ++i) {
            const uint64_t e = key_at(i);
            o.sort[count[uint32_t(e >> 33) >> shift]++] = e;
        }
        if (!apply_batch(o, o.sort, uint32_t(last - first))) return false;
    }
    return true;
}

namespace {
// Buckets of the cell hash: a power of two, at least one per entity.
uint32_t buckets_for(uint32_t cap) noexcept {
    uint32_t b = 16;
    while (b < cap) b *= 2;
    return b;
}

AoiScratch lay_aoi_scratch(Carver& k, uint32_t cap) noexcept {
    size_t c = size_t(padded(cap + 1)) + kMaxWidth;
    AoiScratch s;
    s.xs = k.take<float>(c);
    s.ys = k.take<float>(c);
    s.ms = k.take<uint32_t>(c);
    s.keys = k.take<uint32_t>(c);
    s.tmp_keys = k.take<uint32_t>(c);
    s.tmp_vals = k.take<uint32_t>(c);
    s.id_keys = k.take<uint64_t>(c);
    s.tmp_id_keys = k.take<uint64_t>(c);
    s.watcher_enters = s.tmp_keys;
    s.watcher_leaves = s.tmp_vals;
    s.rank = k.take<uint32_t>(c);
    s.slot_of_rank = k.take<uint32_t>(c);
    s.rank_at_pos = k.take<uint32_t>(c);
    s.mark = k.take<uint32_t>(c);
    s.pos_of_rank = k.take<uint32_t>(c);
    s.remap = k.take<uint32_t>(c);
    s.new_pos = k.take<uint32_t>(c);
    s.buckets = buckets_for(cap);
    s.start = k.take<uint32_t>(size_t(s.buckets) + 2);
    s.pos_of_slot = k.take<uint32_t>(c);
    s.sx = k.take<float>(c);
    s.sy = k.take<float>(c);
    s.px = k.take<float>(c);
    s.py = k.take<float>(c);
    s.pm = k.take<uint32_t>(c);
    s.pid = k.take<int64_t>(c);
    s.wk = k.take<uint32_t>(c);
    s.wv2 = k.take<float>(c);
    s.wr2 = k.take<float>(c);
    s.wm = k.take<uint32_t>(c);
    s.changed = k.take<uint32_t>(c);
    s.moved = k.take<uint32_t>(c);
    s.old_x = k.take<float>(c);
    s.old_y = k.take<float>(c);
    s.old_m = k.take<uint32_t>(c);
    s.redo = k.take<uint32_t>(c);
    s.redo_at = k.take<uint32_t>(c);
    s.redo_len = k.take<uint32_t>(c);
    s.hits = k.take<uint32_t>(c);
    s.seen = k.take<uint32_t>(c);
    s.drift = s.reach_max = 0.0;
    s.any_wide = false;
    s.serial = 0;
    s.mark_stamp = s.seen_stamp = 0;
    s.n_redo = 0;
    s.synced = s.fresh = false;
    s.cell = s.inv_cell = s.inv_cell_x = 1.0;
    s.ranked_n = kNoSlot;
    s.zero_masks = false;
    s.use = AoiScratch::Use::sorting;
    s.cap = cap;
    return s;
}

EventList lay_events(Carver& k, uint64_t cap) noexcept { return EventList{k.take<int64_t>(cap * 2), 0, cap}; }

}  // namespace

size_t aoi_scratch_bytes(uint32_t cap) noexcept { return layout_bytes(lay_aoi_scratch, cap); }

AoiScratch aoi_scratch_carve(void* block, uint32_t cap) noexcept { return layout_carve(block, lay_aoi_scratch, cap); }

size_t events_bytes(uint64_t cap) noexcept { return layout_bytes(lay_events, cap); }

EventList events_carve(void* block, uint64_t cap) noexcept { return layout_carve(block, lay_events, cap); }

namespace {

// Last update's rank of each id -> this update's rank, by merging the two ascending id lists.
void remap_ranks(const Visible& before, const AoiScratch& s, uint32_t n) noexcept {
    uint32_t j = 0;
    for (uint32_t i = 0; i < before.id_count; ++i) {
        const uint64_t key = int_key(before.ids[i]);
        while (j < n && s.id_keys[j] < key) ++j;
        s.remap[i] = j < n && s.id_keys[j] == key ? j : kNoSlot;
    }
}

inline void push_event(EventList& e, int64_t watcher, int64_t target) noexcept {
    e.pair[2 * e.n] = watcher;
    e.pair[2 * e.n + 1] = target;
    ++e.n;
}

}  // namespace

namespace {

// aoi_update works in four index spaces: slots (the layer's storage order), ranks (ids
// ascending), positions (this update's bucket order, where the scans run) and the last
// update's positions (where its target lists point). Its steps, in order:

// 1. Once per update: rank the ids and sort the entities into buckets (sort_entities), map the
// last update's positions to this update's (new_pos), and start the new visible lists.
void prepare_update(const AoiInput& in, AoiScratch& s, Visible& after, AoiProgress& p) noexcept {
    const Store& st = *in.layer;
    const Visible& before = *in.before;
    sort_entities(st, *in.watchers, in.margin, s);
    for (uint32_t i = 0; i < st.n; ++i) after.ids[i] = id_of_rank(s, i);
    // The same ids as at the last update keep their ranks: no remap needed.
    uint64_t changed = before.id_count == st.n ? 0 : 1;
    if (!changed)
        for (uint32_t i = 0; i < st.n; ++i) changed |= uint64_t(before.ids[i] ^ after.ids[i]);
    p.same_ranks = changed == 0;
    if (!p.same_ranks) remap_ranks(before, s, st.n);
    for (uint32_t q = 0; q < before.id_count; ++q) {
        const uint32_t r = p.same_ranks ? before.rank_at[q] : s.remap[before.rank_at[q]];
        s.new_pos[q] = r == kNoSlot ? kNoSlot : s.pos_of_rank[r];
    }
    std::memcpy(after.rank_at, s.rank_at_pos, st.n * sizeof(uint32_t));
    std::memset(s.mark, 0, (size_t(padded(st.n + 1)) + kMaxWidth) * sizeof(uint32_t));
    after.id_count = st.n;
    after.n = 0;
    after.top = after.pairs = 0;
    s.fresh = true;
    p.rank = 0;
    p.stamp = 0;
    p.prepared = true;
    s.use = AoiScratch::Use::watchers;  // tmp_* are free: the loop's watcher_enters and watcher_leaves
}

// 2. The next watcher: this update's watchers and the last update's lists, merged by id (both
// ascend), so a watcher that left still has its targets leave.
struct Turn {
    int64_t wid;
    bool in_now, in_before;
};

Turn next_turn(const Watchers& w, const Visible& before, const AoiProgress& p) noexcept {
    if (p.prev >= before.n || (p.cur < w.n && w.id[p.cur] < before.watcher[p.prev])) return {w.id[p.cur], true, false};
    if (p.cur >= w.n || before.watcher[p.prev] < w.id[p.cur]) return {before.watcher[p.prev], false, true};
    return {w.id[p.cur], true, true};
}

// 3. mark[position] == open: the watcher saw it at the last update; == kept: within reach now
// (so an entity met twice is taken once).
void mark_seen(AoiScratch& s, const uint32_t* old_t, uint32_t old_n, uint32_t open, bool same_ranks) noexcept {
    if (same_ranks) {
        for (uint32_t o = 0; o < old_n; ++o) s.mark[s.new_pos[old_t[o]]] = open;
        return;
    }
    for (uint32_t o = 0; o < old_n; ++o) {
        uint32_t at = s.new_pos[old_t[o]];
        if (at != kNoSlot) s.mark[at] = open;
    }
}

// 4. Finds the watcher's own entity (merging by id from p.rank: watchers and ranks both ascend)
// and scans its windows; plans the next watcher's windows meanwhile and fetches them.
void meet_watcher(const AoiInput& in, AoiScratch& s, AoiProgress& p, int64_t wid, Plan* plans, int& current_plan,
                  WatcherScan& scan) noexcept {
    const Store& st = *in.layer;
    const Watchers& w = *in.watchers;
    const uint64_t key = int_key(wid);
    while (p.rank < st.n && s.id_keys[p.rank] < key) ++p.rank;
    if (p.rank >= st.n || s.id_keys[p.rank] != key) return;  // a watcher with no entity sees nothing
    Plan& plan = plans[current_plan];
    if (plan.self != p.rank) plan_windows(in, s, p.rank, w.view[p.cur], plan);
    Plan& next = plans[1 - current_plan];
    next.self = kNoSlot;
    if (p.cur + 1 < w.n) {
        const uint64_t next_key = int_key(w.id[p.cur + 1]);
        uint32_t r = p.rank;
        while (r < st.n && s.id_keys[r] < next_key) ++r;
        if (r < st.n && s.id_keys[r] == next_key) {
            plan_windows(in, s, r, w.view[p.cur + 1], next);
            prefetch_plan(s, next);
        }
    }
    scan.self = p.rank;
    scan.filter = w.mask[p.cur];
    scan.m = scan.filter != ~0u || s.zero_masks ? s.ms : nullptr;
    meet_candidates(in, s, plan, w.view[p.cur], scan);
    current_plan = 1 - current_plan;
}

// 5. The last update's targets not met again (out of reach, or gone): their last update's ranks
// (ascending like their ids).
uint32_t collect_leaves(const AoiScratch& s, const Visible& before, const uint32_t* old_t, uint32_t old_n, uint32_t met,
                        uint32_t kept, uint32_t* leave_ranks) noexcept {
    uint32_t leaving = 0;
    if (met == old_n) return 0;  // most watchers lose nothing in a tick: no pass
    // Every old target not met is a leave, so the pass stops at the last of them.
    const uint32_t leaves = old_n - met;
    for (uint32_t o = 0; leaving < leaves && o < old_n; ++o) {
        const uint32_t at = s.new_pos[old_t[o]];
        leave_ranks[leaving] = before.rank_at[old_t[o]];  // branch-free: leaves are few
        leaving += at == kNoSlot || s.mark[at] != kept;
    }
    return leaving;
}

}  // namespace

namespace {

// The incremental update: the last full update's bucket order stays, and so do the positions
// the visible lists hold. xs, ys and ms follow the entities that changed; each search widens
// by the drift (how far any entity has gone from the position it was bucketed at), and past
// an eighth of a cell height (a quarter of the median reach) a full update buckets anew.
constexpr double kDriftPerCell = 1.0 / 8;

// float32 squared distance in aoi_scan's order: target minus watcher, x term first.
inline float distance2(float tx, float ty, float wx, float wy) noexcept {
    const float dx = tx - wx, dy = ty - wy;
    return dx * dx + dy * dy;
}

// A watcher at position q as the movers' scan sees it. One whose reach exceeds a cell height is
// never met there (the scan around a mover would grow with it): it is rescanned whole.
void place_watcher(AoiScratch& s, uint32_t q, uint32_t k, float view, uint32_t mask, float margin) noexcept {
    const float reach = view + margin;
    const bool wide = double(reach) > s.cell;
    s.wk[q] = k;
    s.wm[q] = mask;
    s.wv2[q] = wide ? -1.0f : view * view;
    s.wr2[q] = wide ? -1.0f : reach * reach;
    s.any_wide |= wide;
    if (!wide && double(reach) > s.reach_max) s.reach_max = reach;
}

// Once after each full update: where every position was bucketed, and the watchers by position.
void start_incremental(const AoiInput& in, AoiScratch& s) noexcept {
    const Visible& v = *in.before;
    const uint32_t n = v.id_count, all = padded(n + 1) + kMaxWidth;
    std::memcpy(s.sx, s.xs, n * sizeof(float));
    std::memcpy(s.sy, s.ys, n * sizeof(float));
    std::fill(s.wk, s.wk + all, kNoSlot);
    std::fill(s.wv2, s.wv2 + all, -1.0f);
    std::fill(s.wr2, s.wr2 + all, -1.0f);
    std::memset(s.wm, 0, all * sizeof(uint32_t));
    std::memset(s.changed, 0, all * sizeof(uint32_t));
    std::memset(s.seen, 0, all * sizeof(uint32_t));
    s.serial = s.seen_stamp = 0;
    s.drift = s.reach_max = 0.0;
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

inline uint64_t event_key(uint32_t k, uint32_t rank) noexcept { return uint64_t(k) << 32 | rank; }

inline uint32_t bits_for(uint32_t n) noexcept { return n ? 32 - uint32_t(__builtin_clz(n)) : 0; }

// An LSD radix sort of event keys on the bits they use (indices below `watchers`, ranks below
// `ranks`): std::sort of a tick's keys was a sixth of an incremental update. When both fit in
// 32 bits the keys are packed first and sorted as such, in as few passes of at most 11 bits as
// costs least for their number (a tick's few hundred keys took 2048-bucket passes: 150
// instructions a key).
void sort_keys(uint64_t* keys, uint64_t* tmp, uint64_t n, uint32_t watchers, uint32_t ranks, uint32_t* packed,
               uint32_t* packed_tmp, uint64_t packed_cap) noexcept {
    if (n < 256) {
        std::sort(keys, keys + n);
        return;
    }
    const uint32_t rank_bits = bits_for(ranks), total = rank_bits + bits_for(watchers);
    const uint64_t low = (uint64_t(1) << rank_bits) - 1;
    uint32_t count[2048];
    if (total <= 32 && n <= packed_cap) {
        uint32_t passes = 1, digit_bits = 32;
        double best = 0;
        for (uint32_t p = 1; p <= 4; ++p) {
            const uint32_t d = (total + p - 1) / p;
            if (d > 11) continue;
            const double cost = double(p) * (3.0 * double(n) + double(2u << d));
            if (digit_bits == 32 || cost < best) best = cost, passes = p, digit_bits = d;
        }
        if (digit_bits == 32) passes = (total + 10) / 11, digit_bits = 11;
        uint32_t *from = packed, *to = packed_tmp;
        for (uint64_t i = 0; i < n; ++i) from[i] = uint32_t((keys[i] >> 32) << rank_bits | (keys[i] & low));
        const uint32_t buckets = 1u << digit_bits, digit_mask = buckets - 1;
        for (uint32_t pass = 0, shift = 0; pass < passes; ++pass, shift += digit_bits) {
            std::memset(count, 0, buckets * sizeof(uint32_t));
            for (uint64_t i = 0; i < n; ++i) ++count[(from[i] >> shift) & digit_mask];
            for (uint32_t d = 0, sum = 0; d < buckets; ++d) {
                const uint32_t c = count[d];
                count[d] = sum, sum += c;
            }
            for (uint64_t i = 0; i < n; ++i) to[count[(from[i] >> shift) & digit_mask]++] = from[i];
            std::swap(from, to);
        }
        for (uint64_t i = 0; i < n; ++i) keys[i] = uint64_t(from[i] >> rank_bits) << 32 | (from[i] & low);
        return;
    }
    uint64_t *from = keys, *to = tmp;
    for (uint32_t shift = 0; shift < total; shift += 11) {
        auto digit = [&](uint64_t key) { return uint32_t((((key >> 32) << rank_bits | (key & low)) >> shift) & 2047); };
        std::memset(count, 0, sizeof count);
        for (uint64_t i = 0; i < n; ++i) ++count[digit(from[i])];
        for (uint32_t d = 0, sum = 0; d < 2048; ++d) {
            const uint32_t c = count[d];
            count[d] = sum, sum += c;
        }
        for (uint64_t i = 0; i < n; ++i) to[count[digit(from[i])]++] = from[i];
        std::swap(from, to);
    }
    if (from != keys) std::memcpy(keys, from, n * sizeof(uint64_t));
}

// Sorts the keys, moves them to the end of the event buffer and writes the (watcher, target)
// id pairs in front of them; returns where the keys went (aoi_commit reads them).
uint64_t* keys_to_events(EventList& e, uint64_t n, const Visible& v, AoiScratch& s) noexcept {
    uint64_t* keys = reinterpret_cast<uint64_t*>(e.pair);
    // Keys take at most 2/3 of the buffer; tmp_* are free once the scans are done.
    sort_keys(keys, keys + n, n, v.n, v.id_count, s.tmp_keys, s.tmp_vals, s.cap);
    uint64_t* tail = keys + (2 * e.cap - n);
    std::memmove(tail, keys, n * sizeof(uint64_t));
    for (uint64_t i = 0; i < n; ++i) {
        e.pair[2 * i] = v.watcher[tail[i] >> 32];
        e.pair[2 * i + 1] = v.ids[uint32_t(tail[i])];
    }
    e.n = n;
    return tail;
}

// The room aoi_commit will take past v.top for lists that outgrow theirs.
uint64_t relocations(const AoiScratch& s, const Visible& v, const uint64_t* ek, uint64_t ne, const uint64_t* lk,
                     uint64_t nl) noexcept {
    uint64_t need = 0;
    for (uint32_t r = 0; r < s.n_redo; ++r)
        if (s.redo_len[r] > v.room[s.redo[r]]) need += list_room(s.redo_len[r]);
    uint64_t i = 0, j = 0;
    while (i < ne) {
        const uint32_t k = uint32_t(ek[i] >> 32);
        uint64_t gained = 0, lost = 0;
        while (i < ne && uint32_t(ek[i] >> 32) == k) ++i, ++gained;
        while (j < nl && uint32_t(lk[j] >> 32) < k) ++j;
        while (j < nl && uint32_t(lk[j] >> 32) == k) ++j, ++lost;
        if (s.changed[v.pos[k]] == s.serial) continue;  // rescanned: counted above
        const uint64_t len = v.len[k] + gained - lost;
        if (len > v.room[k]) need += list_room(uint32_t(len));
    }
    return need;
}

// A rescanned watcher with kLeaveWindowList targets or more in its last list: its leaves (the
// old targets still marked `open` after its scan) are looked for in the windows of its cover,
// whose marks are read W at a time, instead of entry by entry along the list with a random mark
// each (that pass was 12% of the instructions of an update at 2,000 crowded). Each one found is
// marked `kept`, so that the list pass, needed only for leaves outside the windows, finds the
// others alone. Returns how many are still to find. (s.hits is free during the rescans.)
constexpr uint32_t kLeaveWindowList = 64;

__attribute__((noinline)) uint32_t leaves_in_windows(const AoiInput& in, AoiScratch& s, const Circle& cover, uint32_t open,
                                                     uint32_t kept, uint32_t k, const Visible& v, uint64_t* lk, uint64_t& nl,
                                                     uint32_t left) noexcept {
    cover_circle(in, s, cover, [&](uint32_t first, uint32_t last) {
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

// Returns `full` when the full path must run instead (too much changed, the scratch does not
// describe the last update, a buffer is short). It may have changed the scratch then, which the
// full path rebuilds; `before` and the event lists' contents are left to it. Before it changes
// anything it asks for event buffers that hold a tick's keys and pairs side by side.
enum class Incremental { done, full, need_enter, need_leave };

Incremental try_incremental(const AoiInput& in, AoiScratch& s, Visible& log, EventList& enter, EventList& leave,
                            AoiProgress& p) noexcept {
    const Store& st = *in.layer;
    const Columns& c = st.col;
    const Watchers& w = *in.watchers;
    const Visible& v = *in.before;
    const uint32_t n = st.n;
    if (n == 0 || v.id_count != n || s.ranked_n != n || w.n != v.n) return Incremental::full;
    const uint32_t limit = n / 4;
    // When most entities moved (all of them every tick is common), a sample of 64 slots says so
    // before the pass (a heuristic only: the pass below decides).
    if (n >= 1024) {
        uint32_t sampled = 0, changed = 0;
        for (uint32_t i = 0; i < n; i += n / 64, ++sampled) {
            changed += c.x[i] != s.px[i] || c.y[i] != s.py[i];
        }
        if (2 * changed > sampled) return Incremental::full;
    }
    for (uint32_t k = 0; !in.watchers_same && k < w.n; ++k)
        if (w.id[k] != v.watcher[k]) return Incremental::full;
    if (2 * enter.cap / 3 < uint64_t(n) + kMaxWidth) return Incremental::need_enter;
    if (2 * leave.cap / 3 < uint64_t(n) + kMaxWidth) return Incremental::need_leave;
    // 1. What changed, by slot: the same ids in the same slots, and at most a quarter moved.
    // (Before anything else: when all move, this pass stops after a quarter of the slots.)
    bool zero = false;
    uint32_t moved = 0;
    uint32_t* const moved_slot = s.hits;  // until the movers' scan: the slots of the movers
    // A kernel, W slots at a time (scalar, with a test per slot, this pass was a tenth of an
    // update at 10,000 entities, a tenth moving), in runs of 256 slots.
    for (uint32_t run = 0; run < n; run += 256) {
        const AoiChanges changes{c.x, c.y, c.mask, s.px, s.py, s.pm, run, std::min(n, run + 256)};
        moved += in.kernels->aoi_changed(changes, moved_slot + moved, &zero);
        if (moved > limit) return Incremental::full;
    }
    if (std::memcmp(s.pid, c.id, size_t(n) * sizeof(int64_t)) != 0) return Incremental::full;
    for (uint32_t j = 0; j < moved; ++j) {  // what the scratch has, by slot: no lookup
        const uint32_t i = moved_slot[j];
        s.old_x[j] = s.px[i], s.old_y[j] = s.py[i], s.old_m[j] = s.pm[i];
        s.moved[j] = s.pos_of_slot[i];
    }
    // Right after a full update the entities are where they were bucketed.
    const float* const bx = s.fresh ? s.xs : s.sx;
    const float* const by = s.fresh ? s.ys : s.sy;
    double drift = s.fresh ? 0.0 : s.drift;
    for (uint32_t j = 0; j < moved; ++j) {
        const uint32_t q = s.moved[j], i = moved_slot[j];
        const double dx = double(c.x[i]) - bx[q], dy = double(c.y[i]) - by[q];
        drift = std::max(drift, std::sqrt(dx * dx + dy * dy));
    }
    if (drift > kDriftPerCell * s.cell) return Incremental::full;
    if (s.fresh) start_incremental(in, s);
    if (++s.serial == 0) {
        std::memset(s.changed, 0, (size_t(padded(n + 1)) + kMaxWidth) * sizeof(uint32_t));
        s.serial = 1;
    }
    const uint32_t serial = s.serial;
    for (uint32_t j = 0; j < moved; ++j) s.changed[s.moved[j]] = serial;
    // 2. Watchers rescanned whole: those that moved (found by position), those that changed
    // view or mask, and the wide ones when anything moved (one sequential pass over the rest).
    uint32_t redo = 0;
    for (uint32_t j = 0; j < moved; ++j)
        if (s.wk[s.moved[j]] != kNoSlot) s.redo[redo++] = s.wk[s.moved[j]];
    // No watch or unwatch since the last update and no watcher wider than a cell: none to add.
    for (uint32_t k = 0; (!in.watchers_same || (moved && s.any_wide)) && k < w.n; ++k) {
        const bool again = w.view[k] != v.view[k] || w.mask[k] != v.mask[k] ||
                           (moved && double(w.view[k] + in.margin) > s.cell);
        if (!again || v.pos[k] == kNoSlot || s.changed[v.pos[k]] == serial) continue;
        if (redo == limit) return Incremental::full;
        s.changed[v.pos[k]] = serial;
        s.redo[redo++] = k;
    }
    // Committed to this path: the scratch follows the layer.
    for (uint32_t j = 0; j < moved; ++j) {
        const uint32_t q = s.moved[j], i = moved_slot[j];
        s.xs[q] = c.x[i], s.ys[q] = c.y[i], s.ms[q] = c.mask[i];
        s.px[i] = c.x[i], s.py[i] = c.y[i], s.pm[i] = c.mask[i];
    }
    s.drift = drift;
    s.zero_masks = zero;
    // The movers and the rescanned watchers in position order: one after another, their
    // searches then meet the same cells (in slot order, each met cold memory). One pass over
    // the marks (match_u32); new_pos (the full path's) says which mover is at a position.
    uint32_t* const order = s.keys;  // the full path's too: free here
    for (uint32_t j = 0; j < moved; ++j) s.new_pos[s.moved[j]] = j;
    uint32_t in_order = 0, redo_in_order = 0;
    uint32_t* const changed_at = s.hits;  // free until the movers' scan
    const uint32_t changed = in.kernels->match_u32(s.changed, n, serial, changed_at);
    for (uint32_t i = 0; i < changed; ++i) {
        const uint32_t q = changed_at[i], j = s.new_pos[q];
        if (j < moved && s.moved[j] == q) order[in_order++] = j;
        if (s.wk[q] != kNoSlot) s.redo[redo_in_order++] = s.wk[q];
    }
    SOAGEO_ASSERT(in_order == moved && redo_in_order == redo);
    s.n_redo = redo;
    for (uint32_t r = 0; r < redo; ++r) {
        const uint32_t k = s.redo[r];
        place_watcher(s, v.pos[k], k, w.view[k], w.mask[k], in.margin);
    }
    // The marks go on from the last update's stamps, so that they need no clearing: only when
    // the stamps would wrap (clearing every position each tick was 1% of the instructions of an
    // incremental update at 10,000 entities, a tenth moving, and 40 KB of stores).
    uint32_t stamp = s.mark_stamp;
    if (stamp > kMaxMarkStamp - redo - moved) {
        std::memset(s.mark, 0, (size_t(padded(n + 1)) + kMaxWidth) * sizeof(uint32_t));
        stamp = 0;
    }
    s.use = AoiScratch::Use::watchers;
    uint64_t* const ek = reinterpret_cast<uint64_t*>(enter.pair);
    uint64_t* const lk = reinterpret_cast<uint64_t*>(leave.pair);
    const uint64_t ecap = 2 * enter.cap / 3, lcap = 2 * leave.cap / 3;  // keys and pairs side by side
    uint64_t ne = 0, nl = 0, logged = 0;
    Runs runs;
    // A mover's search reports the still watchers where its view may have changed; each report is
    // settled here, with a look at the watcher's list only in the hysteresis band (in reach but not
    // in view at the last update). Returns false when an event buffer is short.
    const double search = s.reach_max;
    auto settle = [&](uint32_t j, uint32_t h, uint32_t tag) {
        if (ne + h > ecap || nl + h > lcap) return false;
        const uint32_t q = s.moved[j], rank = v.rank_at[q];
        const float ox = s.old_x[j], oy = s.old_y[j], nx = s.xs[q], ny = s.ys[q];
        const uint32_t om = s.old_m[j], nm = s.ms[q];
        for (uint32_t i = 0; i < h; ++i) {
            const uint32_t at = s.hits[i];
            if (s.changed[at] == serial || s.seen[at] == tag) continue;  // rescanned, or met already
            s.seen[at] = tag;
            const float d_new = distance2(nx, ny, s.xs[at], s.ys[at]), d_old = distance2(ox, oy, s.xs[at], s.ys[at]);
            const bool pass_new = (s.wm[at] & nm) != 0, pass_old = (s.wm[at] & om) != 0;
            const bool view_new = pass_new && d_new < s.wv2[at], reach_new = pass_new && d_new < s.wr2[at];
            const bool view_old = pass_old && d_old < s.wv2[at], reach_old = pass_old && d_old < s.wr2[at];
            const uint32_t k = s.wk[at];
            const bool seen_old = view_old || (reach_old && list_has(v, k, q));
            const bool seen_new = view_new || (seen_old && reach_new);
            if (seen_new && !seen_old) ek[ne++] = event_key(k, rank);
            if (seen_old && !seen_new) lk[nl++] = event_key(k, rank);
        }
        return true;
    };
    auto next_tag = [&]() {
        if (++s.seen_stamp == 0) {
            std::memset(s.seen, 0, (size_t(padded(n + 1)) + kMaxWidth) * sizeof(uint32_t));
            s.seen_stamp = 1;
        }
        return s.seen_stamp;
    };
    // The circle a mover's search covers: every still watcher that may see it now or then.
    auto search_cover = [&](uint32_t j, double extra) {
        const uint32_t q = s.moved[j];
        const float ox = s.old_x[j], oy = s.old_y[j], nx = s.xs[q], ny = s.ys[q];
        const double mx = 0.5 * (double(ox) + nx), my = 0.5 * (double(oy) + ny);
        const double half = 0.5 * std::sqrt((double(nx) - ox) * (double(nx) - ox) + (double(ny) - oy) * (double(ny) - oy));
        return widened(mx, my, search + half + extra * (std::fabs(mx) + std::fabs(my)), drift);
    };
    uint8_t* const searched = reinterpret_cast<uint8_t*>(s.tmp_vals);  // per mover: searched with its rescan
    std::memset(searched, 0, moved);
    // 3. The rescanned watchers, as the full path scans them (their new lists go to the log).
    // (Planning each one's windows while the one before is scanned, as the full path does,
    // measured no faster here: in position order its windows are mostly in cache already.)
    // A watcher that moved, and whose reach the movers' searches cover, is searched for as a
    // mover in the same pass (aoi_scan_mover), over its search's windows: they hold its circle
    // (the search reaches the widest such reach from the midpoint of its move, and a relative
    // 2^-22 more covers the rounding of that midpoint), and the two passes read the same blocks.
    for (uint32_t r = 0; r < redo; ++r) {
        // Watchers in position order are far apart in index order: what each reads by index, and
        // its list, is fetched a few rescans ahead.
        if (r + 8 < redo) {
            const uint32_t k8 = s.redo[r + 8];
            __builtin_prefetch(v.off + k8);
            __builtin_prefetch(v.len + k8);
            __builtin_prefetch(w.view + k8);
            __builtin_prefetch(w.mask + k8);
            __builtin_prefetch(v.pos + k8);
        }
        if (r + 4 < redo) {
            const uint32_t* list = v.target + v.off[s.redo[r + 4]];
            __builtin_prefetch(list);
            __builtin_prefetch(list + 16);
        }
        const uint32_t k = s.redo[r], self = v.pos[k];
        const uint32_t* old_t = v.target + v.off[k];
        const uint32_t old_n = v.len[k];
        // The scan writes its list to the log and its enters aside: only the log needs room first
        // (the events are counted before they are written, as movers' searches add theirs here too).
        if (logged + n + kMaxWidth > log.target_cap) return Incremental::full;
        const uint32_t open = 2 * ++stamp, kept = open + 1;
        for (uint32_t o = 0; o < old_n; ++o) s.mark[old_t[o]] = open;
        s.mark[self] = kept;  // the watcher never sees itself
        const float view = w.view[k];
        const Circle reach{s.xs[self], s.ys[self], view + in.margin};
        WatcherScan scan{AoiMeet{log.target + logged, s.watcher_enters, 0, 0, 0}, v.rank_at[self], open, kept, nullptr,
                         w.mask[k]};
        scan.m = scan.filter != ~0u || s.zero_masks ? s.ms : nullptr;
        AoiWindow window{s.xs, s.ys, s.mark, nullptr, 0, reach.cx, reach.cy, view, reach.radius, open, kept, scan.m,
                         scan.filter};
        const uint32_t j = s.new_pos[self];  // the mover index of a watcher that moved (step 2)
        if (j < moved && s.moved[j] == self && s.wr2[self] >= 0.0f) {
            searched[j] = 1;
            const uint32_t tag = next_tag();
            AoiMoverWindow mw{s.xs, s.ys, s.wv2, s.wr2, s.wm, nullptr, 0, s.old_x[j], s.old_y[j], reach.cx, reach.cy,
                              s.old_m[j], s.ms[self]};
            bool room = true;
            cover_runs(in, s, search_cover(j, 0x1p-22), n, runs, [&](const Runs& b) {
                window.runs = b.at, window.n_runs = b.n;
                const uint32_t h = in.kernels->aoi_scan_mover(window, mw, scan.found, s.hits);
                return room = settle(j, h, tag);
            });
            if (!room) return Incremental::full;
        } else {
            cover_runs(in, s, widened(reach.cx, reach.cy, reach.radius, drift), ~0u, runs, [&](const Runs& b) {
                window.runs = b.at, window.n_runs = b.n;
                in.kernels->aoi_scan(window, scan.found);
                return true;
            });
        }
        if (ne + scan.found.n_enter > ecap) return Incremental::full;
        for (uint32_t i = 0; i < scan.found.n_enter; ++i) ek[ne++] = event_key(k, v.rank_at[s.watcher_enters[i]]);
        // Every old target not met within reach leaves: none when all were met (most watchers),
        // and the pass stops at the last one (as collect_leaves). A long list looks in the
        // windows first (leaves_in_windows).
        uint32_t left = old_n - scan.found.met;
        if (nl + left > lcap) return Incremental::full;
        if (left && old_n >= kLeaveWindowList)
            left = leaves_in_windows(in, s, widened(reach.cx, reach.cy, reach.radius, drift), open, kept, k, v, lk, nl, left);
        for (uint32_t o = 0; left && o < old_n; ++o)
            if (s.mark[old_t[o]] != kept) lk[nl++] = event_key(k, v.rank_at[old_t[o]]), --left;
        s.redo_at[r] = static_cast<uint32_t>(logged);
        s.redo_len[r] = scan.found.n_visible;
        logged += scan.found.n_visible;
    }
    // 4. Every other watcher meets only the entities that changed near it (those not searched
    // for with their rescan).
    for (uint32_t o = 0; o < moved; ++o) {
        const uint32_t j = order[o];
        if (searched[j]) continue;
        const uint32_t tag = next_tag();
        AoiMoverWindow mw{s.xs, s.ys, s.wv2, s.wr2, s.wm, nullptr, 0, s.old_x[j], s.old_y[j], s.xs[s.moved[j]],
                          s.ys[s.moved[j]], s.old_m[j], s.ms[s.moved[j]]};
        bool room = true;
        // Batches of at most n positions: their hits fit s.hits.
        cover_runs(in, s, search_cover(j, 0.0), n, runs, [&](const Runs& b) {
            mw.runs = b.at, mw.n_runs = b.n;
            return room = settle(j, in.kernels->aoi_mover(mw, s.hits), tag);
        });
        if (!room) return Incremental::full;
    }
    s.mark_stamp = stamp;
    // 5. Events sorted as the full path writes them; the lists must have room to change in place.
    p.enter_keys = keys_to_events(enter, ne, v, s);
    p.leave_keys = keys_to_events(leave, nl, v, s);
    if (v.top + relocations(s, v, p.enter_keys, ne, p.leave_keys, nl) > v.target_cap) return Incremental::full;
    p.n_enter = ne, p.n_leave = nl;
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

void commit_incremental(const AoiInput& in, const AoiScratch& s, Visible& v, const Visible& log,
                        const AoiProgress& p) noexcept {
    for (uint32_t r = 0; r < s.n_redo; ++r) {
        const uint32_t k = s.redo[r], len = s.redo_len[r];
        if (len > v.room[k]) relocate(v, k, len);
        std::memcpy(v.target + v.off[k], log.target + s.redo_at[r], len * sizeof(uint32_t));
        v.pairs = v.pairs - v.len[k] + len;
        v.len[k] = len;
    }
    for (uint64_t i = 0; i < p.n_leave; ++i) {
        const uint32_t k = uint32_t(p.leave_keys[i] >> 32), at = s.pos_of_rank[uint32_t(p.leave_keys[i])];
        if (s.changed[v.pos[k]] == s.serial) continue;
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
        if (s.changed[v.pos[k]] != s.serial) {
            const uint32_t len = v.len[k] + uint32_t(end - i);
            if (len > v.room[k]) relocate(v, k, len);
            uint32_t* t = v.target + v.off[k];
            v.pairs += end - i;
            for (; i < end; ++i) t[v.len[k]++] = s.pos_of_rank[uint32_t(p.enter_keys[i])];
        }
        i = end;
    }
    if (in.watchers_same) return;  // views and masks change only through watch and unwatch
    std::memcpy(v.view, in.watchers->view, v.n * sizeof(float));
    std::memcpy(v.mask, in.watchers->mask, v.n * sizeof(uint32_t));
}

}  // namespace

AoiStatus aoi_update(const AoiInput& in, AoiScratch& s, Visible& after, EventList& enter, EventList& leave,
                     AoiProgress& p, uint64_t* need) noexcept {
    const Store& st = *in.layer;
    const Watchers& w = *in.watchers;
    const Visible& before = *in.before;
    if (!p.prepared && !p.tried_incremental) {
        p.tried_incremental = true;
        const bool synced = s.synced;
        s.synced = false;  // until aoi_commit: the update may change the scratch, and fail to commit
        const Incremental i = synced ? try_incremental(in, s, after, enter, leave, p) : Incremental::full;
        if (i == Incremental::done) return p.incremental = true, AoiStatus::done;
        if (i == Incremental::need_enter || i == Incremental::need_leave) {
            // Nothing is changed yet: try again once the buffer has grown.
            s.synced = true;
            p.tried_incremental = false;
            *need = uint64_t(in.layer->n) + kMaxWidth;
            return i == Incremental::need_enter ? AoiStatus::need_enter : AoiStatus::need_leave;
        }
        enter.n = leave.n = 0;
    }
    if (!p.prepared) {
        prepare_update(in, s, after, p);
        // Keys mean the same in the last update's lists and this one's: the same ranks, watchers.
        if (p.keys && (!p.same_ranks || w.n != before.n)) p.keys = false;
        for (uint32_t k = 0; p.keys && k < w.n; ++k) p.keys = w.id[k] == before.watcher[k];
        p.n_enter = p.n_leave = 0;
    }
    SOAGEO_ASSERT(s.use == AoiScratch::Use::watchers);
    uint32_t* const enter_ranks = s.watcher_enters;
    uint32_t* const leave_ranks = s.watcher_leaves;
    // The keys go backwards from the end of each event buffer, the pairs forwards from its start.
    uint64_t* const enter_end = reinterpret_cast<uint64_t*>(enter.pair + 2 * enter.cap);
    uint64_t* const leave_end = reinterpret_cast<uint64_t*>(leave.pair + 2 * leave.cap);
    Plan plans[2];  // this watcher's windows and the next one's
    int current_plan = 0;
    while (p.cur < w.n || p.prev < before.n) {
        const Turn t = next_turn(w, before, p);
        const uint32_t* old_t = t.in_before ? before.target + before.off[p.prev] : nullptr;
        uint32_t old_n = t.in_before ? before.len[p.prev] : 0;
        // Room for the worst case of this watcher: it may see every entity, leave all it saw.
        uint64_t used = after.top;
        // Scans write whole blocks past what they keep: kMaxWidth more.
        const uint64_t worst = uint64_t(list_room(st.n)) + kMaxWidth;
        if (t.in_now && used + worst > after.target_cap) return *need = worst, AoiStatus::need_targets;
        // A grown buffer keeps the pairs, not the keys at its end.
        if (enter.n + st.n > enter.cap) return p.keys = false, *need = st.n, AoiStatus::need_enter;
        if (leave.n + old_n > leave.cap) return p.keys = false, *need = old_n, AoiStatus::need_leave;

        const uint32_t open = 2 * ++p.stamp, kept = open + 1;
        mark_seen(s, old_t, old_n, open, p.same_ranks);
        WatcherScan scan{AoiMeet{after.target + used, enter_ranks, 0, 0, 0}, kNoSlot, open, kept, nullptr, 0};
        if (t.in_now) meet_watcher(in, s, p, t.wid, plans, current_plan, scan);
        const uint32_t m = scan.found.n_visible, entering = scan.found.n_enter;
        for (uint32_t i = 0; i < entering; ++i) enter_ranks[i] = s.rank_at_pos[enter_ranks[i]];  // positions -> ranks
        const uint32_t leaving = collect_leaves(s, before, old_t, old_n, scan.found.met, kept, leave_ranks);
        // 6. Events come out sorted: watchers ascend already, targets are sorted here (few).
        std::sort(enter_ranks, enter_ranks + entering);
        std::sort(leave_ranks, leave_ranks + leaving);
        for (uint32_t i = 0; i < entering; ++i) push_event(enter, t.wid, id_of_rank(s, enter_ranks[i]));
        for (uint32_t i = 0; i < leaving; ++i) push_event(leave, t.wid, before.ids[leave_ranks[i]]);
        if (p.keys) {
            if (3 * enter.n > 2 * enter.cap || 3 * leave.n > 2 * leave.cap) {
                p.keys = false;  // pairs and keys would overlap
            } else {
                const uint32_t k = after.n;  // the same watchers: the same index before and now
                for (uint32_t i = 0; i < entering; ++i) enter_end[-1 - int64_t(p.n_enter++)] = event_key(k, enter_ranks[i]);
                for (uint32_t i = 0; i < leaving; ++i) leave_end[-1 - int64_t(p.n_leave++)] = event_key(k, leave_ranks[i]);
            }
        }
        if (t.in_now) {
            const uint32_t k = after.n;
            after.watcher[k] = t.wid;
            after.view[k] = w.view[p.cur];
            after.mask[k] = w.mask[p.cur];
            after.pos[k] = scan.self == kNoSlot ? kNoSlot : s.pos_of_rank[scan.self];
            after.off[k] = static_cast<uint32_t>(used);
            after.len[k] = m;
            after.room[k] = list_room(m);
            after.top = used + after.room[k];
            after.pairs += m;
            ++after.n;
            ++p.cur;
        }
        if (t.in_before) ++p.prev;
    }
    if (p.keys) p.enter_keys = enter_end - p.n_enter, p.leave_keys = leave_end - p.n_leave;
    return AoiStatus::done;
}

int aoi_commit(const AoiInput& in, AoiScratch& s, Visible* visible, int current, const AoiProgress& p) noexcept {
    s.synced = true;
    if (in.stats) ++(p.incremental ? in.stats->incremental : in.stats->full);
    if (!p.incremental) {
        s.mark_stamp = p.stamp;  // the full update cleared the marks and stamped from 0
        return 1 - current;
    }
    commit_incremental(in, s, visible[current], visible[1 - current], p);
    return current;
}

}  // namespace soageo
