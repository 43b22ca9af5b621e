// The interest pass's schedule (kernels.hpp, ScheduleLanes), written once against wide.hpp: the
// pairs of one watcher's new list a block at a time, where one pair at a time took a branch-free
// blend of every field and two compacting stores per pair. The lanes' choices stay masks until
// the due and the first listings leave as lists of indices.

namespace soageo {
namespace SOAGEO_TARGET {

inline void interest_schedule(ScheduleLanes& s) noexcept {
    static_assert(kScheduleLimits == 8, "the thresholds are counted in eight compares");
    const wf l0 = splat(s.limit[0]), l1 = splat(s.limit[1]), l2 = splat(s.limit[2]), l3 = splat(s.limit[3]);
    const wf l4 = splat(s.limit[4]), l5 = splat(s.limit[5]), l6 = splat(s.limit[6]), l7 = splat(s.limit[7]);
    const wi tick = isplat(s.tick), one = isplat(1), zero = isplat(0);
    uint32_t n_due = 0, n_first = 0;
    for (uint32_t i = 0; i < s.n; i += W) {
        const wf d2 = loadu(s.d2 + i);
        wi period = one;
        period = count_lanes(period, le(l0, d2));
        period = count_lanes(period, le(l1, d2));
        period = count_lanes(period, le(l2, d2));
        period = count_lanes(period, le(l3, d2));
        period = count_lanes(period, le(l4, d2));
        period = count_lanes(period, le(l5, d2));
        period = count_lanes(period, le(l6, d2));
        period = count_lanes(period, le(l7, d2));
        wi deadline = iloadu(s.deadline_in + i), since = iloadu(s.since_in + i);
        const wm listed = mnot(ieq(since, zero));
        // A change of period: the deadline becomes min(deadline, last listing + p), compared as
        // the int32 difference, and since follows it.
        const wi sooner = iadd(isub(deadline, since), period);
        const wm cut = mand(mand(listed, mnot(ieq(period, iloadu(s.period_in + i)))), ineg(isub(sooner, deadline)));
        deadline = iselect(cut, sooner, deadline);
        since = iselect(cut, period, since);
        const wi ahead = isub(deadline, tick);
        const wm due = mor(ineg(ahead), ieq(ahead, zero));
        const wm again = mand(due, listed);
        deadline = iselect(again, iadd(tick, period), deadline);
        since = iselect(again, period, since);
        // Whole blocks: the lanes past n are the next list's, written after this one.
        istoreu(s.deadline + i, deadline);
        istoreu(s.since + i, since);
        istoreu(s.period + i, period);
        const uint32_t live = live_lanes(s.n - i), due_bits = bits(due) & live;
        n_due += emit(s.due + n_due, i, due_bits);
        n_first += emit(s.first + n_first, i, due_bits & ~bits(listed));
    }
    s.n_due = n_due, s.n_first = n_first;
    if (n_first != 1) return;
    // Where the single first listing goes: a pass over the blocks just written (the same loads
    // as the stores, so they are forwarded), where counting pair by pair chained its increments
    // through memory.
    const uint32_t p = s.period[s.first[0]], lim = p < s.n + 1 ? p : s.n + 1;
    const wi of_p = isplat(p);
    uint32_t same = 0;
    for (uint32_t k = 0; k < lim; ++k) s.at_offset[k] = 0;
    for (uint32_t i = 0; i < s.n; i += W) {
        const wm of = ieq(iloadu(s.period + i), of_p);
        const uint32_t live = live_lanes(s.n - i);
        same += count_bits(bits(of) & live);
        const uint32_t counted = bits(mand(of, mnot(ieq(iloadu(s.since + i), zero)))) & live;
        if (!counted) continue;
        const wi ahead = isub(iloadu(s.deadline + i), tick);
        for (uint32_t k = 0; k < lim; ++k) s.at_offset[k] += count_bits(bits(ieq(ahead, isplat(k + 1))) & counted);
    }
    s.same = same;
}

// The cap's selection (kernels.hpp, SelectLanes): each block's count of smaller d2 among all m,
// one compare a candidate, where the passes over packed keys had a trip count that varies from
// watcher to watcher and mispredicts. The lanes past m read +inf: never chosen, never counted.
inline void interest_select(SelectLanes& s) noexcept {
    const wf inf = splat(std::numeric_limits<float>::infinity()), zero = splat(0.0f);
    const wi cap = isplat(s.n);
    wf edge = zero, next = inf;
    uint32_t chosen = 0;
    for (uint32_t i = 0; i < s.m; i += W) {
        const uint32_t live = live_lanes(s.m - i);
        const wf d2 = select(from_bits(live), loadu(s.d2 + i), inf);
        wi smaller = isplat(0);
        for (uint32_t j = 0; j < s.m; ++j) smaller = count_lanes(smaller, lt(splat(s.d2[j]), d2));
        const wm in = ineg(isub(smaller, cap));  // fewer than n smaller
        chosen += emit(s.order + chosen, i, bits(in) & live);
        edge = vmax(edge, select(in, d2, zero));
        next = vmin(next, select(in, inf, d2));
    }
    float lanes[2][W];
    storeu(lanes[0], edge);
    storeu(lanes[1], next);
    s.edge = lanes[0][0], s.next = lanes[1][0];
    for (int k = 1; k < W; ++k) {
        s.edge = lanes[0][k] > s.edge ? lanes[0][k] : s.edge;
        s.next = lanes[1][k] < s.next ? lanes[1][k] : s.next;
    }
    s.chosen = chosen;
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo
