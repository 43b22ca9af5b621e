// Interest management (interest.hpp): a pass over the special watchers after the AOI's update,
// choosing their capped views (or keeping them) and writing their events; the schedule of their
// due pairs is interest_schedule.cpp's.
#include "interest.hpp"
#include "interest_internal.hpp"

#include "invariant.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

namespace soageo {
namespace {

using namespace interest_detail;

// The events of one watcher, in the order of the uncapped ones: [lo, hi) of a list sorted by
// watcher, from `from` (galloping over the other watchers' events, many when few are special).
__attribute__((noinline)) uint64_t skip_events(const EventList& e, uint64_t from, int64_t w) noexcept {
    const int64_t* pair = e.pair;
    return gallop(from, e.n, [pair, w](uint64_t q) { return pair[2 * q] < w; });
}

inline void run_of(const EventList& e, uint64_t from, int64_t w, uint64_t* lo, uint64_t* hi) noexcept {
    uint64_t i = from;
    if (i < e.n && e.pair[2 * i] < w) i = skip_events(e, i, w);  // none when every watcher is special
    *lo = i;
    while (i < e.n && e.pair[2 * i] == w) ++i;
    *hi = i;
}

void copy_events(const EventList& from, uint64_t lo, uint64_t hi, EventList& to) noexcept {
    SOAGEO_ASSERT(to.n + (hi - lo) <= to.cap);
    if (hi > lo) std::memcpy(to.pair + 2 * to.n, from.pair + 2 * lo, 2 * (hi - lo) * sizeof(int64_t));
    to.n += hi - lo;
}

// The d2 of n positions from the watcher at position `self`, as the AOI computes it (kNoSlot: a
// watcher without an entity, which sees nothing, measured from the origin).
inline void d2_from(const InterestInput& in, uint32_t self, const uint32_t* pos, uint32_t n, float* d2) noexcept {
    const float wx = self == kNoSlot ? 0.0f : in.xs[self], wy = self == kNoSlot ? 0.0f : in.ys[self];
    for (uint32_t i = 0; i < n; ++i) {
        const float dx = in.xs[pos[i]] - wx, dy = in.ys[pos[i]] - wy;
        d2[i] = dx * dx + dy * dy;
    }
}

// Starts watcher w's list of n pairs in `after`; returns where they go (the pairs' index).
uint64_t open_list(InterestLists& after, int64_t w, uint32_t n, uint32_t edge, uint32_t pivot) noexcept {
    SOAGEO_ASSERT(after.n < after.watcher_cap && after.pairs + n <= after.pair_cap);
    after.watcher[after.n] = w;
    after.off[after.n] = uint32_t(after.pairs);
    after.len[after.n] = n;
    after.edge[after.n] = edge;
    after.pivot[after.n] = pivot;
    after.reach[after.n] = 0;
    const uint64_t out = after.pairs;
    ++after.n;
    after.pairs += n;
    return out;
}

// How far a capped watcher's list need reach at the next update (interest_narrow): from its
// boundary key (the d2 of its farthest chosen target, without a margin); 0 for its whole view.
float next_reach(const InterestInput& in, const InterestOptions& opt, int64_t w, uint32_t edge) noexcept {
    if (!opt.max || opt.always || in.margin != 0.0f || edge == kAllChosen || !(edge & 0x80000000u)) return 0.0f;
    if (pins_has_watcher(*in.pins, w)) return 0.0f;
    const uint32_t b = edge & 0x7fffffffu;
    float d2;
    std::memcpy(&d2, &b, sizeof d2);
    return float(kReachOverNearest * std::sqrt(double(d2)));
}

// A fresh mark for one watcher (`seen`); the marks are cleared when the stamps wrap.
uint32_t next_stamp(InterestScratch& s) noexcept {
    if (s.stamp >= 0xfffffff0u) {
        std::memset(s.tag, 0, size_t(s.cap) * sizeof(uint64_t));
        s.stamp = 0;
    }
    s.stamp += 2;
    return s.stamp;
}

// Marks the positions of the last view's targets with `seen`, keeps each one's position now in
// s.old_pos (kNoSlot: its entity is gone) and the index of its pair in the low half of s.tag,
// and sets each pair's s.old_d2 to -1 (a leave, unless choose finds it chosen again).
void mark_last_view(const InterestInput& in, InterestScratch& s, const OldView& old, uint32_t seen) noexcept {
    // A full update renumbers the positions (new_pos: kNoSlot for an entity gone); an
    // incremental one keeps them (a removed entity's is in no list). In locals: the stores
    // through them would otherwise reload the fields each pair.
    const uint32_t n = old.n, *pos = old.pos, *new_pos = in.new_pos;
    uint32_t* const old_pos = s.old_pos;
    uint64_t* const tag = s.tag;
    float* const old_d2 = s.old_d2;
    const auto mark = [&](auto renumbered) {
        for (uint32_t a = 0; a < n; ++a) {
            const uint32_t q = decltype(renumbered)::value ? new_pos[pos[a]] : pos[a];
            old_pos[a] = q;
            old_d2[a] = -1.0f;
            if (q != kNoSlot) tag[q] = make_tag(seen, a);
        }
    };
    if (new_pos) mark(std::true_type{});
    else mark(std::false_type{});
}

// Whether special watcher k's view may stay as it was (try_keep): its movers (s.order) stay on
// their side of the edge. Leaves each mover's d2 in s.d2 and the index of its pair in s.rank
// (kNoSlot: not seen); *movers_out their count.
bool movers_stay(const InterestInput& in, InterestScratch& s, const InterestOptions& opt, int64_t w, uint32_t k,
                 const OldView& old, uint32_t* movers_out) noexcept {
    const Visible& v = *in.visible;
    const uint32_t self = v.pos[k], serial = in.serial, len = v.len[k];
    if (self == kNoSlot ? len != 0 : in.changed[self] == serial) return false;
    const uint32_t* list = v.target + v.off[k];
    uint32_t movers = 0;
    for (uint32_t t = 0; t < len; ++t) {
        s.order[movers] = list[t];
        movers += in.changed[list[t]] == serial;
    }
    *movers_out = movers;
    if (!movers) return true;
    if (opt.max && opt.always) return false;  // a mask may have changed: counted or not
    const bool check = opt.max && old.edge != kAllChosen;
    const Pins& pins = *in.pins;
    const bool any_pin = check && pins_has_watcher(pins, w);
    bool found;
    const float wx = in.xs[self], wy = in.ys[self];
    const uint32_t seen_mark = next_stamp(s);
    mark_last_view(in, s, old, seen_mark);
    for (uint32_t j = 0; j < movers; ++j) {
        const uint32_t q = s.order[j];
        const float dx = in.xs[q] - wx, dy = in.ys[q] - wy;
        const float d2 = dx * dx + dy * dy;
        const uint64_t tag = s.tag[q];
        const bool seen = tag_mark(tag) == seen_mark;
        s.d2[j] = d2;
        s.rank[j] = seen ? tag_index(tag) : kNoSlot;
        if (!check) continue;
        if (any_pin) {
            pins_find(pins, w, v.ids[v.rank_at[q]], &found);
            if (found) continue;  // seen beyond the cap, wherever it is
        }
        const uint32_t key = cap_key(d2, in.margin, seen);
        if (seen ? !(key < old.edge) : !(key > old.edge)) return false;
    }
    return true;
}

// A watcher's uncapped events in this update: enter [e_lo, e_hi), leave [l_lo, l_hi).
struct UncappedEvents {
    const EventList* enter;
    const EventList* leave;
    uint64_t e_lo, e_hi, l_lo, l_hi;
};

// Whether a capped watcher's uncapped events may leave its capped view as it was: it has a
// cap's edge to check enters against (neither all candidates chosen, nor always-seen bits, nor
// pins, which an enter could bring in beyond the cap), and no target of its view left.
bool events_beyond(const InterestInput& in, const InterestOptions& opt, int64_t w, const UncappedEvents& ev,
                   const OldView& old) noexcept {
    if (!opt.max || opt.always || old.edge == kAllChosen) return false;
    const Pins& pins = *in.pins;
    if (pins_has_watcher(pins, w)) return false;
    for (uint64_t l = ev.l_lo; l < ev.l_hi; ++l)
        if (old.has(ev.leave->pair[2 * l + 1])) return false;
    return true;
}

// Whether every enter of the watcher is one of its movers not seen before (s.order: their
// positions, s.rank: kNoSlot), which movers_stay found beyond the cap's edge.
bool enters_moved(const InterestInput& in, const InterestScratch& s, const UncappedEvents& ev, uint32_t movers) noexcept {
    const Visible& v = *in.visible;
    for (uint64_t e = ev.e_lo; e < ev.e_hi; ++e) {
        const int64_t id = ev.enter->pair[2 * e + 1];
        bool found = false;
        for (uint32_t j = 0; j < movers && !found; ++j)
            found = s.rank[j] == kNoSlot && v.ids[v.rank_at[s.order[j]]] == id;
        if (!found) return false;
    }
    return true;
}

// Keeps special watcher k's view as it was, when an incremental update (which marks what
// changed) changed neither its options, its pins nor its position, each target of it that
// moved stays on its side of the cap's edge E (the boundary key of the last selection): a seen
// one below E, another above, and its uncapped view changed only beyond E: no target of its
// view left it, and every target that entered it moved there, beyond E (events_beyond,
// enters_moved). Then every seen key is <= E and every other >= E (a target that did not move
// only gains the margin's bonus if seen, or loses it if not; one that left the uncapped view
// was not seen), with any tie at E between targets that have not moved since that selection,
// settled then as now: the selection would come out the same. The moved targets' periods
// follow their d2. Returns false (nothing written) when the view must be chosen anew. A budget
// orders by d2, which the pairs do not keep: such a watcher is always recomputed.
bool try_keep(const InterestInput& in, InterestScratch& s, const InterestOptions& opt, uint8_t dirty, int64_t w,
              uint32_t k, const UncappedEvents& ev, const OldView& old, PeriodTable* table,
              InterestLists& after, Deferred* deferred) noexcept {
    if (!in.changed || dirty || opt.budget) return false;
    const bool events = ev.e_lo != ev.e_hi || ev.l_lo != ev.l_hi;
    if (events && !events_beyond(in, opt, w, ev, old)) return false;
    uint32_t movers;
    if (!movers_stay(in, s, opt, w, k, old, &movers)) return false;
    if (events && !enters_moved(in, s, ev, movers)) return false;
    run_deferred(in, s, after, *deferred);  // before the next list's pairs are written
    const uint64_t off = open_list(after, w, old.n, old.edge, old.pivot);
    after.reach[after.n - 1] = next_reach(in, opt, w, old.edge);
    const PairRun out = run_at(after, off);
    std::memcpy(out.target, old.target, size_t(old.n) * sizeof(int64_t));
    SOAGEO_ASSERT(!in.new_pos);  // an incremental update: the positions stay
    std::memcpy(after.pos + off, old.pos, size_t(old.n) * sizeof(uint32_t));
    PeriodTable& periods = *table;
    periods.build(opt);
    if (periods.in_lanes()) {
        // The kernel counts every pair's period from its d2 (the watcher did not move: a pair
        // that did not either keeps the d2 its period came from) and reads the schedule from
        // the last lists, as for a view chosen the same.
        SOAGEO_ASSERT(in.visible->pos[k] != kNoSlot || old.n == 0);  // no entity: an empty view
        d2_from(in, in.visible->pos[k], old.pos, old.n, s.pair_d2);
        defer_schedule(*deferred, periods, after, off, old.n, &old);
        return true;
    }
    std::memcpy(out.deadline, old.deadline, size_t(old.n) * sizeof(uint32_t));
    std::memcpy(out.period, old.period, size_t(old.n) * sizeof(uint32_t));
    std::memcpy(out.since, old.since, size_t(old.n) * sizeof(uint32_t));
    for (uint32_t j = 0; j < movers; ++j)
        if (s.rank[j] != kNoSlot) keep_pair(out, s.rank[j], periods.again(out.period[s.rank[j]], s.d2[j]));
    uint32_t* const firsts = s.order;  // free: the movers are done
    uint32_t n_first;
    const uint32_t tick = uint32_t(in.tick);
    const uint32_t n_due = follow_all(out, old.n, tick, after.due + off, firsts, &n_first);
    if (n_first) first_listings(out, old.n, tick, firsts, n_first, s.count);
    after.due_len[after.n - 1] = n_due;
    return true;
}

}  // namespace

InterestNeed interest_need(const Visible& v_before, const EventList& enter, const EventList& leave,
                           const Specials& sp, const Pins& pins, const InterestLists& before,
                           uint32_t positions) noexcept {
    // One merge over the watchers special now or at the last update (ids ascending), their last
    // uncapped lists, their enters and their pins; a view is at most its cap when none passes it.
    // A capped watcher listed at the last update needs neither list nor enters: its cap bounds
    // its list and enters, and its leaves are its last list's (before.pairs). (So does one the
    // AOI wrote no events for, aoi.cpp: a floor is only set on such a watcher.)
    uint64_t pairs = 0, others = 0, old_sum = 0, longest = 0;
    uint32_t i = 0, j = 0, k = 0, p = 0;
    uint64_t e = 0;
    while (i < sp.n || j < before.n) {
        const int64_t w = i < sp.n && (j >= before.n || sp.id[i] <= before.watcher[j]) ? sp.id[i] : before.watcher[j];
        const InterestOptions* opt = i < sp.n && sp.id[i] == w ? &sp.opt[i++] : nullptr;
        const bool listed = j < before.n && before.watcher[j] == w;
        j += listed;
        while (p < pins.n && pins.pin[p].watcher < w) ++p;
        const bool pinned = p < pins.n && pins.pin[p].watcher == w;
        if (opt && opt->max && !opt->always && !pinned && listed) {
            // Capped, and special at the last update too (its leaves are its last list's, in
            // before.pairs): its cap bounds it, whatever it saw (most watchers of a capped aoi).
            pairs += opt->max;
            continue;
        }
        // Galloping over the other watchers (many, when few are special).
        k = gallop(k, v_before.n, [&v_before, w](uint32_t q) { return v_before.watcher[q] < w; });
        const uint64_t old_len = k < v_before.n && v_before.watcher[k] == w ? v_before.len[k] : 0;
        e = gallop(e, enter.n, [&enter, w](uint64_t q) { return enter.pair[2 * q] < w; });
        uint64_t enters = 0;
        while (e < enter.n && enter.pair[2 * e] == w) ++e, ++enters;
        uint64_t bound = old_len + enters;
        if (opt && opt->max && !opt->always && !pinned) bound = std::min<uint64_t>(bound, opt->max);
        if (opt) pairs += bound, old_sum += old_len;
        else others += bound;
        // The pass rebuilds a last uncapped view (with its leaves) only for these watchers.
        longest = std::max(longest, old_len);
    }
    InterestNeed need;
    need.watchers = sp.n;
    need.pairs = pairs;
    need.enter = enter.n + pairs + others;
    need.leave = leave.n + before.pairs + old_sum;
    need.scratch = uint32_t(std::max<uint64_t>(positions, longest)) + 2;
    return need;
}

namespace {

// One watcher of interest_update: special now (opt) or at the last update (old.target), with its
// index k in the visible lists when it watches, and its uncapped events [lo, hi).
struct Turn {
    int64_t w;
    const InterestOptions* opt;  // null: special no more
    uint8_t dirty;
    bool watching;
    uint32_t k;
    OldView old;
    uint64_t e_lo, e_hi, l_lo, l_hi;
    PeriodTable* periods;  // the update's, built for the options of the last watcher that used it
    Deferred* deferred;    // the last list's schedule, not run yet
};

// The candidates of the watcher: its uncapped view, with their d2 (s.candidate_d2, by list
// index) from where the AOI had the watcher (one without an entity sees nothing): read where
// the scan handed them on, else computed again from the positions (the same float32 operations).
uint32_t candidates(const InterestInput& in, InterestScratch& s, const Turn& t) noexcept {
    const Visible& v = *in.visible;
    if (!t.watching || !v.len[t.k]) return 0;
    const uint32_t m = v.len[t.k];
    SOAGEO_ASSERT(m <= s.cap);
    if (in.distances) {
        s.candidate_d2 = in.distances + v.off[t.k];
    } else {
        d2_from(in, v.pos[t.k], v.target + v.off[t.k], m, s.d2);
        s.candidate_d2 = s.d2;
    }
    return m;
}

// Pair n of s.old_target...: target t, new to the schedule (due at `tick`, no period yet, never listed).
inline void new_pair(InterestScratch& s, uint32_t n, int64_t t, uint64_t tick) noexcept {
    s.old_target[n] = t;
    s.old_deadline[n] = uint32_t(tick);
    s.old_period[n] = 0;
    s.old_since[n] = 0;
}

// A watcher not special at the last update saw its uncapped view then: this one without its
// enters and with its leaves. Into s.old_target..., ascending, as pairs new to the schedule (period
// 0: none yet, so a kept one gets its own and is due at once), each one's position now in
// s.old_pos (kNoSlot for a leave: no candidate now), marked `seen` as mark_last_view marks;
// returns the count.
uint32_t mark_last_uncapped_view(const InterestInput& in, InterestScratch& s, const Turn& t, uint32_t m,
                                 uint32_t seen) noexcept {
    const Visible& v = *in.visible;
    const EventList &enter = *in.enter, &leave = *in.leave;
    const uint32_t* list = m ? v.target + v.off[t.k] : nullptr;
    for (uint32_t i = 0; i < m; ++i) s.sel[i] = uint64_t(v.rank_at[list[i]]) << 32 | list[i];
    std::sort(s.sel, s.sel + m);  // the ranks' order is the ids'
    uint32_t n = 0;
    uint64_t e = t.e_lo, l = t.l_lo;
    // The leaves below id, or all that are left (no sentinel: any int64 may be an id).
    const auto take_leaves = [&](bool all, int64_t id) {
        for (; l < t.l_hi && (all || leave.pair[2 * l + 1] < id); ++l, ++n) {
            new_pair(s, n, leave.pair[2 * l + 1], in.tick);
            s.old_pos[n] = kNoSlot;
            s.old_d2[n] = -1.0f;
        }
    };
    for (uint32_t i = 0; i < m; ++i) {
        const int64_t id = v.ids[s.sel[i] >> 32];
        take_leaves(false, id);
        while (e < t.e_hi && enter.pair[2 * e + 1] < id) ++e;
        if (e < t.e_hi && enter.pair[2 * e + 1] == id) continue;
        const uint32_t q = uint32_t(s.sel[i]);
        new_pair(s, n, id, in.tick);
        s.old_pos[n] = q;
        s.old_d2[n] = -1.0f;
        s.tag[q] = make_tag(seen, n++);
    }
    take_leaves(true, 0);
    return n;
}

// Chooses watcher t's view among its m candidates and writes its events: the difference of the
// last view and the new one. A watcher special now and watching gets its list and schedule in
// `after`; one special no more sees every candidate, one not watching none. The last view's
// targets are marked; a chosen one marked before gives its pair of the last view its d2 now
// (s.old_d2), so that the last view (ascending) splits in order into the kept and the leaves,
// and only the chosen not marked before (the enters, few) are sorted, then merged in.
void choose(const InterestInput& in, InterestScratch& s, Turn& t, uint32_t m, InterestLists& after,
            EventList& enter_out, EventList& leave_out) noexcept {
    const Visible& v = *in.visible;
    const InterestOptions* opt = t.opt;
    OldView& old = t.old;
    const uint32_t seen = next_stamp(s);
    if (old.target) {
        mark_last_view(in, s, old, seen);
    } else {
        old.n = mark_last_uncapped_view(in, s, t, m, seen);
        old.target = s.old_target, old.deadline = s.old_deadline, old.period = s.old_period, old.since = s.old_since;
    }
    const uint32_t* list = m ? v.target + v.off[t.k] : nullptr;
    const bool capped = opt && opt->max && m > opt->max;
    uint32_t chosen = m, edge = opt && opt->max && !capped ? kAllChosen : old.edge, pivot = old.pivot;
    if (capped) chosen = select_nearest(in, s, *opt, t.w, list, m, seen, &edge, &pivot);
    else for (uint32_t i = 0; i < m; ++i) s.order[i] = i;
    uint32_t entering = 0;
    {
        // In locals: the stores through them would otherwise reload the fields each candidate.
        const uint32_t* const order = s.order;
        const uint64_t* const tag = s.tag;
        const float* const candidate_d2 = s.candidate_d2;
        float* const old_d2 = s.old_d2;
        uint64_t* const sel = s.sel;
        for (uint32_t i = 0; i < chosen; ++i) {
            const uint32_t c = order[i];
            const uint64_t at = tag[list[c]];
            const uint32_t was = tag_mark(at);
            if (was == seen) old_d2[tag_index(at)] = candidate_d2[c];  // kept: most are
            sel[entering] = c;  // branch-free: enters are few
            entering += was != seen;
        }
    }
    // By rank (the ids' order) packed with the candidate: a sort of plain integers.
    for (uint32_t e = 0; e < entering; ++e) s.sel[e] |= uint64_t(v.rank_at[list[s.sel[e]]]) << 32;
    std::sort(s.sel, s.sel + entering);
    const bool listing = opt && t.watching;
    if (listing) run_deferred(in, s, after, *t.deferred);  // before the next list's pairs are written
    const uint64_t off = listing ? open_list(after, t.w, chosen, edge, pivot) : 0;
    if (listing) after.reach[after.n - 1] = next_reach(in, *opt, t.w, capped ? edge : kAllChosen);
    const PairRun out = run_at(after, off);
    uint32_t* const out_pos = after.pos + off;
    PeriodTable& periods = *t.periods;
    if (listing) periods.build(*opt);
    // The kernels count the periods (and follow the schedule) unless a budget orders the due
    // pairs or the table is longer than their lanes: then the merge counts them.
    const bool lanes = listing && !opt->budget && periods.in_lanes();
    const uint32_t tick = uint32_t(in.tick);
    // Three loops: one writing no list (a watcher special no more, or not watching), one writing a
    // list for the kernels (each pair's d2 beside it), and one counting the periods as well, so
    // that the usual one tests nothing per pair for the others. The schedule is followed after it.
    const auto merge = [&](auto listed, auto counted) {
        constexpr bool kList = decltype(listed)::value, kPeriods = decltype(counted)::value;
        uint32_t a = 0, b = 0;
        // The last view's pairs below `limit` (all that are left when `all`: any int64 may be an
        // id, so no sentinel), kept or left: most watchers have no enter, and then this loop is
        // the whole merge.
        const auto olds_below = [&](auto all, int64_t limit) {
            for (; a < old.n && (decltype(all)::value || old.target[a] < limit); ++a) {
                const float d2 = s.old_d2[a];
                if (d2 < 0) {
                    push_event(leave_out, t.w, old.target[a]);
                    continue;
                }
                if constexpr (kList) {
                    out.target[b] = old.target[a];
                    out.deadline[b] = old.deadline[a];
                    out.period[b] = old.period[a];
                    out.since[b] = old.since[a];
                    out_pos[b] = s.old_pos[a];
                    s.pair_d2[b] = d2;
                    if constexpr (kPeriods) keep_pair(out, b, periods.again(old.period[a], d2));
                }
                ++b;
            }
        };
        for (uint32_t e = 0; e < entering; ++e) {
            const int64_t te = v.ids[s.sel[e] >> 32];
            olds_below(std::false_type{}, te);
            const uint32_t c = uint32_t(s.sel[e]);
            push_event(enter_out, t.w, te);
            if constexpr (kList) {
                out.target[b] = te;  // due at once, never listed
                out.deadline[b] = tick;
                out.period[b] = kPeriods ? periods.of(s.candidate_d2[c]) : 0;
                out.since[b] = 0;
                out_pos[b] = list[c];
                s.pair_d2[b] = s.candidate_d2[c];
            }
            ++b;
        }
        olds_below(std::true_type{}, 0);
        SOAGEO_ASSERT(b == chosen);
    };
    if (!listing) return merge(std::false_type{}, std::false_type{});
    if (lanes && !entering && chosen == old.n && old.target != s.old_target) {
        // The same view as at the last update (no enter, none left; most watchers): its pairs
        // copied whole, and the kernel reads their schedule from the last lists, which stay.
        std::memcpy(out.target, old.target, size_t(chosen) * sizeof(int64_t));
        std::memcpy(out_pos, s.old_pos, size_t(chosen) * sizeof(uint32_t));
        std::memcpy(s.pair_d2, s.old_d2, size_t(chosen) * sizeof(float));
        defer_schedule(*t.deferred, periods, after, off, chosen, &old);
        return;
    }
    if (lanes) {
        merge(std::true_type{}, std::false_type{});
        defer_schedule(*t.deferred, periods, after, off, chosen);
        return;
    }
    merge(std::true_type{}, std::true_type{});
    if (opt->budget) {
        schedule_budget(*opt, tick, s, after, off, chosen);
        return;
    }
    // Every due pair is listed; those due their first listing (s.order, free now) are placed
    // after the others' next deadlines are set.
    uint32_t* const firsts = s.order;
    uint32_t n_first;
    after.due_len[after.n - 1] = follow_all(out, chosen, tick, after.due + off, firsts, &n_first);
    if (n_first) first_listings(out, chosen, tick, firsts, n_first, s.count);
}

// Asks for the k-th last list's pairs a turn before their watcher's: read once an update, in
// arrays of their own, they come from beyond the caches, and the kernel's block loads of a list
// kept whole waited for them.
void prefetch_list(const InterestLists& before, uint32_t k) noexcept {
    if (k >= before.n) return;
    const uint32_t off = before.off[k], len = before.len[k];
    for (uint32_t b = 0; b < len; b += 16) {  // a 64-byte line: 16 of the 4-byte fields, 8 targets
        __builtin_prefetch(before.target + off + b);
        __builtin_prefetch(before.target + off + b + 8);
        __builtin_prefetch(before.deadline + off + b);
        __builtin_prefetch(before.period + off + b);
        __builtin_prefetch(before.since + off + b);
        __builtin_prefetch(before.pos + off + b);
    }
}

// Asks for the d2 the AOI handed on for the k-th list a turn before it is read: written during
// the AOI's loop over every watcher, they are beyond the caches by then.
void prefetch_distances(const InterestInput& in, uint32_t k) noexcept {
    const Visible& v = *in.visible;
    if (k >= v.n || !v.len[k]) return;
    const float* d2 = in.distances + v.off[k];
    for (uint32_t b = 0; b < v.len[k]; b += 16) __builtin_prefetch(d2 + b);
    __builtin_prefetch(d2 + v.len[k] - 1);  // the last line, when the list does not start one
}

// The next watcher special now or at the last update (ids ascending in both), with its old view.
Turn next_turn(const InterestInput& in, uint32_t& i, uint32_t& j) noexcept {
    const Specials& sp = *in.specials;
    const InterestLists& before = *in.before;
    Turn t;
    t.w = i < sp.n && (j >= before.n || sp.id[i] <= before.watcher[j]) ? sp.id[i] : before.watcher[j];
    const bool now = i < sp.n && sp.id[i] == t.w;
    t.opt = now ? &sp.opt[i] : nullptr;
    t.dirty = now ? sp.dirty[i] : 0;
    i += now;
    t.old = OldView{nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 0};
    if (j < before.n && before.watcher[j] == t.w) {
        const uint32_t off = before.off[j];
        t.old.target = before.target + off;
        t.old.deadline = before.deadline + off;
        t.old.period = before.period + off;
        t.old.since = before.since + off;
        t.old.pos = before.pos + off;
        t.old.n = before.len[j];
        t.old.edge = before.edge[j];
        t.old.pivot = before.pivot[j];
        ++j;
    }
    return t;
}

}  // namespace

uint32_t interest_update(const InterestInput& in, InterestScratch& s, InterestLists& after, EventList& enter_out,
                         EventList& leave_out) noexcept {
    uint32_t kept = 0;
    const Visible& v = *in.visible;
    const EventList &enter = *in.enter, &leave = *in.leave;
    after.n = 0, after.pairs = 0;
    enter_out.n = leave_out.n = 0;
    uint64_t e_at = 0, l_at = 0;  // next uncapped event not yet copied
    uint32_t i = 0, j = 0, k = 0;  // specials, before, visible watchers
    PeriodTable periods;
    Deferred deferred;
    while (i < in.specials->n || j < in.before->n) {
        Turn t = next_turn(in, i, j);
        prefetch_list(*in.before, j);
        t.periods = &periods;
        t.deferred = &deferred;
        // The other watchers' events before this one's stay as the AOI wrote them.
        run_of(enter, e_at, t.w, &t.e_lo, &t.e_hi);
        run_of(leave, l_at, t.w, &t.l_lo, &t.l_hi);
        copy_events(enter, e_at, t.e_lo, enter_out);
        copy_events(leave, l_at, t.l_lo, leave_out);
        e_at = t.e_hi, l_at = t.l_hi;
        k = gallop(k, v.n, [&v, &t](uint32_t q) { return v.watcher[q] < t.w; });
        if (in.distances) prefetch_distances(in, k + 1);
        t.k = k;
        t.watching = k < v.n && v.watcher[k] == t.w;
        const bool both = t.opt && t.watching && t.old.target;  // special now and then
        if (both && try_keep(in, s, *t.opt, t.dirty, t.w, k, UncappedEvents{&enter, &leave, t.e_lo, t.e_hi, t.l_lo, t.l_hi},
                             t.old, &periods, after, &deferred)) {
            ++kept;
            continue;
        }
        choose(in, s, t, candidates(in, s, t), after, enter_out, leave_out);
    }
    run_deferred(in, s, after, deferred);
    copy_events(enter, e_at, enter.n, enter_out);
    copy_events(leave, l_at, leave.n, leave_out);
    return kept;
}

}  // namespace soageo
