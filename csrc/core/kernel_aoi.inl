// The AOI scans (aoi.cpp), written once against wide.hpp, W lanes at a time. The marks live
// per position, next to the coordinates, so the bookkeeping is loads and stores of whole blocks
// instead of a lookup per candidate; only the positions it keeps leave the block.

namespace soageo {
namespace SOAGEO_TARGET {

// The still watchers of block i (live lanes) whose view of the mover may have changed, from
// their squared distances to where it is now (dn) and was (d_o): in view now but not then (an
// enter, unless it was seen already), in reach then but not now (a leave, if it was seen).
// OneReach (reach_squared is view_squared: no margin): reach is view, so the change is
// (vn ^ vo), from one column.
template <bool OneReach>
inline uint32_t mover_lanes(const AoiMoverWindow& mv, uint32_t i, wf dn, wf d_o, uint32_t live) noexcept {
    const wf v2 = load(mv.view_squared + i);
    const uint32_t pn = bits(mask_any(mv.watcher_mask + i, mv.nmask));
    const uint32_t po = bits(mask_any(mv.watcher_mask + i, mv.omask));
    const uint32_t vn = bits(lt(dn, v2)) & pn, vo = bits(lt(d_o, v2)) & po;
    if (OneReach) return (vn ^ vo) & live;
    const wf r2 = load(mv.reach_squared + i);
    const uint32_t rn = bits(lt(dn, r2)) & pn, ro = bits(lt(d_o, r2)) & po;
    return ((vn & ~vo) | (ro & ~rn)) & live;
}

// What aoi_scan_with does: a watcher's scan (aoi_scan); the incremental update's search for one
// changed entity against still watchers (aoi_mover: everything a watcher's state depends on
// compared at both ends, mover_lanes); or both in one pass, for a watcher that moved. recount:
// both, for a watcher whose last list is recomputed (the same float32 test), not marked
// (AoiWindow::ox; rescan_watchers says why); the kept marks still take an entity met twice once.
enum class Pass { scan, mover, both, recount };

// OneReach: no margin, for the watcher and the still watchers; the scan then keeps what it
// meets within reach. Distances as watcher minus target: (cx - x)^2 == (x - cx)^2 exactly, and
// this order lets the target's load fold into the subtraction (fewer instructions a block).
// Distances (Pass::scan): the visible positions' d2 leave beside them, in d2s. Without Events
// (Pass::scan, a watcher whose last list was not marked: meet.enters null) neither the enters
// nor the count of marked positions met are kept: a mark of the last list cannot match.
template <bool Filtered, bool OneReach, Pass P, bool Distances = false, bool Events = true>
inline uint32_t aoi_scan_with(const AoiWindow& window, const AoiMoverWindow& mover, AoiMeet& meet,
                              uint32_t* out, float* d2s = nullptr) noexcept {
    constexpr bool scan = P != Pass::mover, search = P != Pass::scan;
    const AoiWindow w = window;
    const AoiMoverWindow mv = mover;
    const wf cx = splat(w.cx), cy = splat(w.cy), ox = splat(mv.ox), oy = splat(mv.oy);
    const wf reach2 = splat(w.reach * w.reach), view2 = splat(w.view * w.view);
    uint32_t* const visible = meet.visible;
    uint32_t* const enters = meet.enters;
    uint32_t* const leaves = meet.leaves;
    uint32_t n_visible = meet.n_visible, n_enter = meet.n_enter, n_leave = meet.n_leave, met = meet.met, k = 0;
    for (uint32_t run = 0; run < w.n_runs; ++run) {
        const uint32_t last = w.runs[2 * run + 1];
        for (uint32_t i = w.runs[2 * run]; i < last; i += W) {
            const wf x = load(w.x + i), y = load(w.y + i);
            const wf d2 = squared(cx - x) + squared(cy - y);
            if (P == Pass::recount) {
                const wf d_then = squared(ox - load(w.ox + i)) + squared(oy - load(w.oy + i));
                const uint32_t live = live_lanes(last - i);
                uint32_t now = bits(lt(d2, reach2)) & live, then = bits(lt(d_then, reach2)) & live;
                if (Filtered) {
                    now &= bits(mask_any(w.m + i, w.filter));
                    then &= bits(mask_any(w.om + i, w.filter));
                }
                const uint32_t fresh = (now | then) & ~eq_bits(w.mark + i, w.kept);
                store_where(w.mark + i, now | then, w.kept);
                n_visible += emit(visible + n_visible, i, fresh & now);
                const uint32_t entering = fresh & now & ~then, leaving = fresh & then & ~now;
                if (entering) n_enter += emit(enters + n_enter, i, entering);
                if (leaving) n_leave += emit(leaves + n_leave, i, leaving);
            } else if (scan) {
                uint32_t in_reach = bits(lt(d2, reach2)) & live_lanes(last - i);
                uint32_t near = OneReach ? in_reach : bits(lt(d2, view2));  // view <= reach: near lies within reach
                if (Filtered) {  // filtered out: never within reach, so one seen before leaves
                    const uint32_t pass = bits(mask_any(w.m + i, w.filter));
                    in_reach &= pass, near &= pass;
                }
                const uint32_t was = Events ? eq_bits(w.mark + i, w.open) & in_reach : 0u;
                const uint32_t fresh = in_reach & ~eq_bits(w.mark + i, w.kept);
                store_where(w.mark + i, in_reach, w.kept);
                if (Events) met += count_bits(was);
                const uint32_t keep = OneReach ? fresh : fresh & (was | near);
                if (Distances) emit_values(d2s + n_visible, d2, keep);
                n_visible += emit(visible + n_visible, i, keep);
                if (Events) {
                    const uint32_t entering = OneReach ? fresh & ~was : fresh & near & ~was;
                    if (entering) n_enter += emit(enters + n_enter, i, entering);  // rare: a tick changes little
                }
            }
            if (search) {
                const wf d_o = squared(ox - x) + squared(oy - y);
                const uint32_t maybe = mover_lanes<OneReach>(mv, i, d2, d_o, live_lanes(last - i));
                if (maybe) k += emit(out + k, i, maybe);
            }
        }
    }
    if (scan) meet.n_visible = n_visible, meet.n_enter = n_enter, meet.met = met;
    if (P == Pass::recount) meet.n_leave = n_leave;
    return k;
}

// A watcher either filters every block or none: the unfiltered scan keeps its old cost.
inline void aoi_scan(const AoiWindow& window, AoiMeet& meet) noexcept {
    const AoiMoverWindow none{};
    if (window.m)
        aoi_scan_with<true, false, Pass::scan>(window, none, meet, nullptr);
    else
        aoi_scan_with<false, false, Pass::scan>(window, none, meet, nullptr);
}

// aoi_scan handing on the d2 as well: an entry of its own, so that the scans that hand nothing
// on keep their code. Most of its watchers are capped ones whose events the interest pass
// writes (meet.enters null): their scans keep no enters.
inline void aoi_scan_d2(const AoiWindow& window, AoiMeet& meet, float* d2) noexcept {
    const AoiMoverWindow none{};
    if (!meet.enters) {
        if (window.m)
            aoi_scan_with<true, false, Pass::scan, true, false>(window, none, meet, nullptr, d2);
        else
            aoi_scan_with<false, false, Pass::scan, true, false>(window, none, meet, nullptr, d2);
    } else if (window.m) {
        aoi_scan_with<true, false, Pass::scan, true>(window, none, meet, nullptr, d2);
    } else {
        aoi_scan_with<false, false, Pass::scan, true>(window, none, meet, nullptr, d2);
    }
}

inline uint32_t aoi_mover(const AoiMoverWindow& mover, uint32_t* out) noexcept {
    const AoiWindow w{mover.x, mover.y, nullptr, mover.runs, mover.n_runs, mover.nx, mover.ny, 0.0f, 0.0f, 0, 0};
    AoiMeet none{};
    return mover.reach_squared == mover.view_squared ? aoi_scan_with<false, true, Pass::mover>(w, mover, none, out)
                                                     : aoi_scan_with<false, false, Pass::mover>(w, mover, none, out);
}

inline uint32_t aoi_scan_mover(const AoiWindow& window, const AoiMoverWindow& mover, AoiMeet& meet,
                               uint32_t* out) noexcept {
    if (window.ox)
        return window.m ? aoi_scan_with<true, true, Pass::recount>(window, mover, meet, out)
                        : aoi_scan_with<false, true, Pass::recount>(window, mover, meet, out);
    if (mover.reach_squared == mover.view_squared && window.view == window.reach)
        return window.m ? aoi_scan_with<true, true, Pass::both>(window, mover, meet, out)
                        : aoi_scan_with<false, true, Pass::both>(window, mover, meet, out);
    return window.m ? aoi_scan_with<true, false, Pass::both>(window, mover, meet, out)
                    : aoi_scan_with<false, false, Pass::both>(window, mover, meet, out);
}

// The first i < n with t[i] == v (n: none), W entries a compare, reading only t[0, n): the
// incremental commit finds each leaving target in its watcher's list, hundreds long in a crowd.
inline uint32_t find_u32(const uint32_t* t, uint32_t n, uint32_t v) noexcept {
    uint32_t i = 0;
    for (; i + W <= n; i += W) {
        const uint32_t hit = eq_bits_u(t + i, v);
        if (hit) return i + static_cast<uint32_t>(__builtin_ctz(hit));
    }
    for (; i < n; ++i)
        if (t[i] == v) return i;
    return n;
}

// The incremental update's pass over the layer (AoiChanges), W slots a compare, not a branch each.
inline uint32_t aoi_changed(const AoiChanges& changes, uint32_t* out, bool* zero) noexcept {
    const AoiChanges c = changes;
    uint32_t k = 0, zeros = 0;
    for (uint32_t i = c.first; i < c.last; i += W) {
        const wf x = load(c.x + i), y = load(c.y + i);
        const wf kept_x = load(c.slot_x + i), kept_y = load(c.slot_y + i);
        const uint32_t live = live_lanes(c.last - i < uint32_t(W) ? c.last - i : uint32_t(W));
        // Not (<= and >=): a NaN, which no layer holds, would count as a change, as with !=.
        const uint32_t same_xy = bits(mand(mand(le(x, kept_x), ge(x, kept_x)), mand(le(y, kept_y), ge(y, kept_y))));
        const uint32_t changed = ~(same_xy & same_bits(c.m + i, c.slot_mask + i)) & live;
        zeros |= eq_bits(c.m + i, 0) & live;
        if (changed) k += emit(out + k, i, changed);
    }
    if (zeros) *zero = true;
    return k;
}

// Every position of t[0, n) holding v, W at a time: the incremental update's movers and
// rescanned watchers in position order (a scalar pass with a branch per position cost more).
inline uint32_t match_u32(const uint32_t* t, uint32_t n, uint32_t v, uint32_t* out) noexcept {
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i += W) {
        const uint32_t hit = eq_bits(t + i, v) & live_lanes(n - i);
        if (hit) k += emit(out + k, i, hit);
    }
    return k;
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo
