// The AOI's entry points (aoi_update, aoi_commit) and its full update: every watcher's circle
// scanned over entities sorted anew into the grid's buckets.
#include "aoi.hpp"

#include <algorithm>
#include <cstring>

#include "aoi_internal.hpp"
#include "radix.hpp"

namespace soageo {
using namespace aoi_detail;
namespace {

// The median reach of a sample of watchers, scaled by `per_reach`: the cell sizes follow it (a
// reach far from it still gets every candidate, less tightly).
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
    LooseGrid& g = s.loose;
    s.cell = choose_cell(w, margin, kCellHeightPerReach);
    const double inv = g.inv_cell = 1.0 / s.cell;
    const double inv_x = g.inv_cell_x = 1.0 / choose_cell(w, margin, kCellWidthPerReach);
    // The drift's unit: the median reach, whose search windows it widens.
    g.drift_limit = kLooseDrift * s.cell / kCellHeightPerReach;
    uint32_t zero = 0;
    for (uint32_t i = 0; i < n; ++i) zero |= c.mask[i] == 0;
    s.zero_masks = zero != 0;
    const uint32_t B = g.buckets;
    loose_count(g, n, 0, s.keys, [&](uint32_t i) { return row_bucket(B, cell_of(c.x[i], inv_x), cell_of(c.y[i], inv)); });
    loose_scatter(g, n, 0, s.keys, [&](uint32_t i, uint32_t at) {
        s.xs[at] = c.x[i];
        s.ys[at] = c.y[i];
        s.ms[at] = c.mask[i];
        // Per candidate, only arrays in bucket order and rank order are touched: chasing
        // slot -> rank -> slot -> id through four arrays was a large share of an update.
        s.rank_at_pos[at] = s.rank[i];
        s.pos_of_rank[s.rank[i]] = at;
        s.pos_of_slot[i] = at;
    });
    grid_validate(g, 0, [&](uint32_t p, float& x, float& y) { return x = s.xs[p], y = s.ys[p], true; });
    std::memcpy(s.slot_x, c.x, n * sizeof(float));
    std::memcpy(s.slot_y, c.y, n * sizeof(float));
    std::memcpy(s.slot_mask, c.mask, n * sizeof(uint32_t));
    std::memcpy(s.slot_id, c.id, n * sizeof(int64_t));
    s.slot_id_seen = st.feed.seq;
    for (uint32_t i = n; i < padded(n + 1) + kMaxWidth; ++i) s.xs[i] = s.ys[i] = 0.0f, s.ms[i] = 0;
}

// The windows a watcher scans, planned one watcher ahead, so that their memory is fetched while
// the watcher before is scanned (watchers go by id, so consecutive ones are far apart: their
// windows were a third of an update's cache misses).
struct Plan {
    static constexpr uint32_t kMaxWindows = 8;
    uint32_t runs[2 * kMaxWindows];
    uint32_t n = 0;
    uint32_t self = kNoSlot;  // the watcher's rank (kNoSlot: nothing planned)
    bool rows = false;        // too many windows to list: meet_candidates goes row by row
    Circle reach;
};

void plan_windows(const AoiInput& in, const AoiScratch& s, uint32_t self, float view, Plan& plan) noexcept {
    // From sort_entities' copy, as the targets are: a finalizer run by an allocation of the
    // update may move entities in the layer's columns meanwhile.
    const uint32_t at = s.pos_of_rank[self];
    plan.self = self;
    plan.reach = Circle{s.xs[at], s.ys[at], view + in.margin};
    plan.n = 0;
    plan.rows = false;
    cover_circle(s, plan.reach, [&](uint32_t first, uint32_t last) {
        first &= ~uint32_t(kMaxWidth - 1);  // kernels read aligned blocks, testing the extra entries too
        if (last <= first) return true;
        if (plan.n == Plan::kMaxWindows) return plan.rows = true, false;
        plan.runs[2 * plan.n] = first, plan.runs[2 * plan.n + 1] = last;
        ++plan.n;
        return true;
    });
}

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
    // The d2, when asked for, go beside the list at its own indices (found here: kept through
    // the watcher loop, they cost every scan a register there).
    float* const d2 = in.distances ? in.distances + (m.found.visible - s.lists) : nullptr;
    // A quiet watcher's scans handing on their d2 keep no enters (aoi_scan_d2); aoi_scan keeps
    // them all, and the caller drops them. Decided here, not where the scan is made: there the
    // choice cost every watcher of aoi_update's loop more instructions (registers).
    uint32_t* const enters = m.found.enters;
    if (d2 && m.quiet) m.found.enters = nullptr;
    const auto scan = [&]() {
        if (d2)
            in.kernels->aoi_scan_d2(window, m.found, d2);
        else
            in.kernels->aoi_scan(window, m.found);
    };
    if (!plan.rows) {
        if (plan.n) scan();
    } else {
        Runs runs;
        cover_runs(s, plan.reach, ~0u, runs, [&](const Runs& r) {
            window.runs = r.at, window.n_runs = r.n;
            scan();
            return true;
        });
    }
    m.found.enters = enters;
}

// aoi_update works in four index spaces: slots (the layer's storage order), ranks (ids
// ascending), positions (this update's bucket order, where the scans run) and the last
// update's positions (where its target lists point). Its steps, in order:

// 1. Once per update: rank the ids, sort the entities into buckets, map the last update's
// positions to this update's (new_pos), and start the new visible lists.
void prepare_update(const AoiInput& in, AoiScratch& s, Visible& after, AoiProgress& p) noexcept {
    const Store& st = *in.layer;
    const Visible& before = *in.before;
    sort_entities(st, *in.watchers, in.margin, s);
    for (uint32_t i = 0; i < st.n; ++i) after.ids[i] = key_int(s.id_keys[i]);
    p.same_ranks = map_ranks(before.ids, before.id_count, after.ids, st.n, s.remap);
    for (uint32_t q = 0; q < before.positions; ++q) {  // kNoSlot: removed since (incremental)
        const uint32_t was = before.rank_at[q];
        const uint32_t r = p.same_ranks || was == kNoSlot ? was : s.remap[was];
        s.new_pos[q] = r == kNoSlot ? kNoSlot : s.pos_of_rank[r];
    }
    std::memcpy(after.rank_at, s.rank_at_pos, st.n * sizeof(uint32_t));
    std::memset(s.mark, 0, (size_t(padded(st.n + 1)) + kMaxWidth) * sizeof(uint32_t));
    after.id_count = after.positions = st.n;
    after.n = 0;
    after.top = after.pairs = 0;
    after.narrowed = false;
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

// 4. Finds the watcher's entity (merging by id from p.rank) and scans its windows; plans the
// next watcher's windows meanwhile and fetches them.
void meet_watcher(const AoiInput& in, AoiScratch& s, AoiProgress& p, int64_t wid, Plan* plans, int& current_plan,
                  WatcherScan& scan) noexcept {
    const Store& st = *in.layer;
    const Watchers& w = *in.watchers;
    const uint64_t key = int_key(wid);
    while (p.rank < st.n && s.id_keys[p.rank] < key) ++p.rank;
    if (p.rank >= st.n || s.id_keys[p.rank] != key) return;  // a watcher with no entity sees nothing
    Plan& plan = plans[current_plan];
    if (plan.self != p.rank) plan_windows(in, s, p.rank, w.reach[p.cur], plan);
    Plan& next = plans[1 - current_plan];
    next.self = kNoSlot;
    if (p.cur + 1 < w.n) {
        const uint64_t next_key = int_key(w.id[p.cur + 1]);
        uint32_t r = p.rank;
        while (r < st.n && s.id_keys[r] < next_key) ++r;
        if (r < st.n && s.id_keys[r] == next_key) {
            plan_windows(in, s, r, w.reach[p.cur + 1], next);
            prefetch_plan(s, next);
        }
    }
    scan.self = p.rank;
    scan.filter = w.mask[p.cur];
    scan.m = scan.filter != ~0u || s.zero_masks ? s.ms : nullptr;
    meet_candidates(in, s, plan, w.reach[p.cur], scan);
    current_plan = 1 - current_plan;
}

// 5. The last update's targets not met again (out of reach, or gone), as its ranks.
uint32_t collect_leaves(const AoiScratch& s, const Visible& before, const uint32_t* old_t, uint32_t old_n, uint32_t met,
                        uint32_t kept, uint32_t* leave_ranks) noexcept {
    uint32_t leaving = 0;
    const uint32_t leaves = old_n - met;  // the old targets not met (mostly none): the pass stops at the last
    for (uint32_t o = 0; leaving < leaves && o < old_n; ++o) {
        const uint32_t at = s.new_pos[old_t[o]];
        leave_ranks[leaving] = before.rank_at[old_t[o]];  // branch-free: leaves are few
        leaving += at == kNoSlot || s.mark[at] != kept;
    }
    return leaving;
}

}  // namespace

bool map_ranks(const int64_t* before, uint32_t n_before, const int64_t* now, uint32_t n, uint32_t* remap) noexcept {
    if (n_before == n && std::memcmp(before, now, size_t(n) * sizeof(int64_t)) == 0) return true;
    for (uint32_t r = 0, k = 0; r < n_before; ++r) {
        while (k < n && now[k] < before[r]) ++k;
        remap[r] = k < n && now[k] == before[r] ? k : kNoSlot;
    }
    return false;
}

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
    s.lists = after.target;  // AoiInput::distances lie beside (a grown buffer moves them both)
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
        // Room for the worst case (it sees every entity) and the blocks scans write past the list.
        uint64_t used = after.top;
        const uint64_t worst = uint64_t(list_room(st.n)) + kMaxWidth;
        if (t.in_now && used + worst > after.target_cap) return *need = worst, AoiStatus::need_targets;
        // A grown buffer keeps the pairs, not the keys at its end.
        if (enter.n + st.n > enter.cap) return p.keys = false, *need = st.n, AoiStatus::need_enter;
        if (leave.n + old_n > leave.cap) return p.keys = false, *need = old_n, AoiStatus::need_leave;

        // A watcher with a floor (aoi.hpp: a capped one, narrowed after an update that chose its
        // view, options and pins unchanged since) gets its events from the interest pass, which
        // reads only its list: its uncapped events are not written (nor its last list marked to
        // find them), unless "who sees me" follows them (p.quiet_floors is false then, for the
        // whole update: the event buffers are sized by the counts of updates that wrote them all).
        const bool quiet = t.in_now && t.in_before && p.quiet_floors && w.floor[p.cur] > 0;
        uint32_t open = 2 * ++p.stamp, kept = open + 1;
        if (!quiet) mark_seen(s, old_t, old_n, open, p.same_ranks);
        WatcherScan scan{AoiMeet{after.target + used, enter_ranks, 0, 0, 0}, kNoSlot, open, kept, nullptr, 0, quiet};
        float radius = t.in_now ? w.view[p.cur] : 0.0f;  // what the list holds: all within it
        if (t.in_now) meet_watcher(in, s, p, t.wid, plans, current_plan, scan);
        // Scanned short of its view: with fewer than its floor met, its nearest may lie beyond.
        if (t.in_now && scan.self != kNoSlot && w.reach[p.cur] < radius) {
            if (scan.found.n_visible >= w.floor[p.cur]) {
                radius = w.reach[p.cur];
                after.narrowed = true;
                ++p.narrowed;
            } else {
                ++p.widened;
                open = 2 * ++p.stamp, kept = open + 1;
                if (!quiet) mark_seen(s, old_t, old_n, open, p.same_ranks);
                scan.open = open, scan.kept = kept;
                scan.found = AoiMeet{after.target + used, enter_ranks, 0, 0, 0};
                Plan whole;
                plan_windows(in, s, scan.self, radius, whole);
                meet_candidates(in, s, whole, radius, scan);
            }
        }
        const uint32_t m = scan.found.n_visible, entering = quiet ? 0 : scan.found.n_enter;
        if (quiet) old_n = 0;  // no leaves either
        for (uint32_t i = 0; i < entering; ++i) enter_ranks[i] = s.rank_at_pos[enter_ranks[i]];  // positions -> ranks
        const uint32_t leaving = collect_leaves(s, before, old_t, old_n, scan.found.met, kept, leave_ranks);
        // 6. Events come out sorted: watchers ascend already, targets are sorted here (few).
        std::sort(enter_ranks, enter_ranks + entering);
        std::sort(leave_ranks, leave_ranks + leaving);
        for (uint32_t i = 0; i < entering; ++i) push_event(enter, t.wid, key_int(s.id_keys[enter_ranks[i]]));
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
            after.view[k] = radius;
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
    if (in.stats) {
        ++(p.incremental ? in.stats->incremental : in.stats->full);
        in.stats->narrowed += p.narrowed;
        in.stats->widened += p.widened;
    }
    if (!p.incremental) {
        s.mark_stamp = p.stamp;  // the full update cleared the marks and stamped from 0
        current = 1 - current;
    } else {
        commit_incremental(in, s, visible[current], visible[1 - current], p);
    }
    if (in.who) who_sees_me_commit(*in.who, s, visible[current], visible[1 - current], p, in.stats);
    return current;
}

}  // namespace soageo
