// Internal to the AOI's translation units (doc/design.md, AOI): what the full and the
// incremental update share, the cover of a circle by the grid's buckets and the watchers' placement.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "aoi.hpp"
#include "carve.hpp"
#include "slot_changes.hpp"

namespace soageo {
namespace aoi_detail {

// One watcher scanning its candidates, window by window (the kernels' aoi_scan).
struct WatcherScan {
    AoiMeet found;   // positions, turned into ranks once all windows are scanned
    uint32_t self;   // rank of the watcher
    uint32_t open, kept;
    const uint32_t* m;  // the masks in bucket order, or null when the watcher filters nothing
    uint32_t filter;
    bool quiet = false;  // its last list not marked, its enters not wanted (aoi.cpp)
};

// A conservative cover of the circle by windows, row by row (the kernel's test decides):
// `visit(first, last)` receives each window, in order, and returns false to stop.
template <class Visit>
void cover_circle(const AoiScratch& s, const Circle& reach, Visit visit) noexcept {
    const uint32_t n = s.loose.n;
    const float wx = reach.cx, wy = reach.cy;
    // |dx| and |dy| in float32 can be a hair below the real distance: widen by a relative 2^-20.
    const double half = double(reach.radius) * (1.0 + 0x1p-20) + 0x1p-126;
    const double inv = s.loose.inv_cell, inv_x = s.loose.inv_cell_x, cell = s.cell;
    const int64_t cy_lo = cell_of(wy - half, inv), cy_hi = cell_of(wy + half, inv);
    const int64_t cx_lo = cell_of(wx - half, inv_x), cx_hi = cell_of(wx + half, inv_x);
    const uint64_t rows = uint64_t(cy_hi - cy_lo) + 1, cols = uint64_t(cx_hi - cx_lo) + 1;
    if (cols >= s.loose.buckets || rows > 64 + n / 256) {  // cheaper to test everything once
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
        // A run of cells in a row is one window, two when it wraps the bucket table.
        const uint32_t b_lo = row_bucket(s.loose.buckets, lo, cy);
        if (!loose_runs(s.loose, b_lo, uint64_t(b_lo) + uint64_t(hi - lo) + 1, visit)) return;
    }
    if (n > s.loose.n_built) visit(s.loose.n_built, n);  // entities added since the buckets were built
}

// The windows of a cover gathered for one kernel call: a call per window cost about as much
// as a block of the scan, and a cover has 2-5 windows.
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
void cover_runs(const AoiScratch& s, const Circle& cover, uint32_t limit, Runs& runs, Flush flush) noexcept {
    runs.n = runs.len = 0;
    bool go = true;
    cover_circle(s, cover, [&](uint32_t first, uint32_t last) {
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

// A watcher at position q as the movers' scan sees it. One whose reach exceeds a cell height is
// never met there (the scan around a mover would grow with it): it is rescanned whole.
inline void place_watcher(AoiScratch& s, uint32_t q, uint32_t k, float view, uint32_t mask, float margin) noexcept {
    const float reach = view + margin;
    const bool wide = double(reach) > s.cell;
    s.watcher_at[q] = k;
    s.watcher_mask[q] = mask;
    s.view_squared[q] = wide ? -1.0f : view * view;
    s.reach_squared[q] = wide ? -1.0f : reach * reach;
    s.any_wide |= wide;
    if (!wide && double(reach) > s.reach_max) s.reach_max = reach;
}

inline void unplace_watcher(AoiScratch& s, uint32_t q) noexcept {
    s.watcher_at[q] = kNoSlot;
    s.watcher_mask[q] = 0;
    s.view_squared[q] = s.reach_squared[q] = -1.0f;
}

inline uint64_t event_key(uint32_t k, uint32_t rank) noexcept { return uint64_t(k) << 32 | rank; }

// Patches the adds and removes into the scratch, by slot (the relocated keep their positions)
// and by position: each added entity takes the next free position and, until the commit, the
// rank ids_before + i (i in ascending id order; entries past the last update's in `v`'s rank_at
// and ids and in pos_of_rank, which nothing committed reads). A removed entity's position goes
// to s.removed_pos (its mask is left for the caller); a watcher there is unplaced, listed as gone.
void patch_members(const AoiInput& in, AoiScratch& s, const Visible& v, const SlotChanges& mc) noexcept;

// Event keys of an update that patched members in carry the added's ranks and the new
// watchers' indices last: to_id_order makes both ascend with the ids, from_id_order undoes it.
void keys_to_id_order(const AoiScratch& s, uint64_t* keys, uint64_t n) noexcept;
void keys_from_id_order(const AoiScratch& s, uint64_t* keys, uint64_t n) noexcept;

// After the events are applied: the committed lists get this update's ranks and ids (the
// removed ones' positions rank kNoSlot), and every gone watcher sees nothing.
void commit_members(AoiScratch& s, Visible& v) noexcept;

// Watch and unwatch since the last update (`in.watchers` against `v.watcher`), into
// s.members; false when more than kMax watchers came or went.
bool find_watchers(const Watchers& w, const Visible& v, AoiScratch::Members& m) noexcept;

// After patch_members: the watchers by the update's indices (the last update's, then the new
// ones). Writes each one's view and mask to view_out and mask_out (null when no watcher came or
// went), the new ones' entries past v.n in v, unplaces the unwatched and places every watcher
// whose entity is new to it; lists those at unchanged positions in `placed` (returns how many).
uint32_t patch_watchers(const AoiInput& in, AoiScratch& s, const Visible& v, float* view_out, uint32_t* mask_out,
                        uint32_t* placed) noexcept;

// After the events are applied: the committed lists are indexed as `in.watchers` (the
// unwatched dropped, the new ones in their place), and the scratch's watchers by position too.
// temp.mask is left with each of the update's indices' new one (kNoSlot: unwatched).
void commit_watchers(const AoiInput& in, AoiScratch& s, Visible& v, Visible& temp) noexcept;

// The incremental update (aoi_incremental.cpp), tried first by aoi_update. Returns `full` when
// the full path must run instead (too much changed, a buffer is short...), having maybe changed
// the scratch, which the full path rebuilds. Before it changes anything it asks for event
// buffers that hold a tick's keys and pairs side by side.
enum class Incremental { done, full, need_enter, need_leave };

Incremental try_incremental(const AoiInput& in, AoiScratch& s, Visible& log, EventList& enter, EventList& leave,
                            AoiProgress& p) noexcept;
// Applies an incremental update to the committed lists v (log: where its rescans wrote).
void commit_incremental(const AoiInput& in, AoiScratch& s, Visible& v, Visible& log,
                        const AoiProgress& p) noexcept;

}  // namespace aoi_detail
// aoi_commit's last step: the inversion follows the update's events, or stops describing the
// lists (aoi_observers.cpp).
void who_sees_me_commit(WhoSeesMe& w, const AoiScratch& s, const Visible& committed, const Visible& previous,
                        const AoiProgress& p, AoiStats* stats) noexcept;

}  // namespace soageo
