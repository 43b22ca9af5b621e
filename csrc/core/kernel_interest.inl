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

// The cap's selection (kernels.hpp, SelectLanes): each candidate's count of smaller d2 among
// all m, one compare a candidate and block, where the passes over packed keys had a trip count
// that varies from watcher to watcher and mispredicts. A group of blocks (up to
// kSelectBlocks, their accumulators in registers: a capped watcher's candidates most often in
// one group) is swept once, each broadcast d2 compared with all of its blocks. The lanes past m
// read +inf: never chosen, never counted.
constexpr int kSelectBlocks = W >= 16 ? 4 : W >= 4 ? 6 : 8;

struct SelectState {
    wf edge, next;
    uint32_t chosen;
};

// The group of B blocks from candidate i: counted, then its chosen emitted. The blocks'
// accumulators are named one by one (G...): a loop over them kept them in memory.
template <int B, int... G>
inline void select_group(const SelectLanes& s, uint32_t i, SelectState& st, std::integer_sequence<int, G...>) noexcept {
    const wf inf = splat(std::numeric_limits<float>::infinity()), zero = splat(0.0f);
    wf d2[B];
    wi smaller[B];
    ((d2[G] = select(from_bits(live_lanes(s.m - i - uint32_t(G * W))), loadu(s.d2 + i + G * W), inf),
      smaller[G] = isplat(0)), ...);
    for (uint32_t j = 0; j < s.m; ++j) {
        const wf dj = splat(s.d2[j]);
        ((smaller[G] = count_lanes(smaller[G], lt(dj, d2[G]))), ...);
    }
    const wi cap = isplat(s.n);
    for (int g = 0; g < B; ++g) {
        const uint32_t at = i + uint32_t(g * W);
        const wm fewer = ineg(isub(smaller[g], cap));  // fewer than n smaller: chosen
        st.chosen += emit(s.order + st.chosen, at, bits(fewer) & live_lanes(s.m - at));
        st.edge = vmax(st.edge, select(fewer, d2[g], zero));
        st.next = vmin(st.next, select(fewer, inf, d2[g]));
    }
}

template <int B>
inline void select_blocks(const SelectLanes& s, uint32_t i, SelectState& st) noexcept {
    select_group<B>(s, i, st, std::make_integer_sequence<int, B>{});
}

// A pass for a guess of the boundary, `cut`: the candidates below it emitted to s.order
// (ascending; a pass that does not hold is written over), with the largest of them (s.edge) and
// the smallest of the others (s.next); returns their count. Emitting as it counts measured
// cheaper than a second pass once the guess holds.
inline uint32_t select_below(SelectLanes& s, float cut) noexcept {
    const wf inf = splat(std::numeric_limits<float>::infinity()), zero = splat(0.0f), bound = splat(cut);
    wf edge = zero, next = inf;
    uint32_t chosen = 0;
    for (uint32_t i = 0; i < s.m; i += W) {
        const wf d2 = select(from_bits(live_lanes(s.m - i)), loadu(s.d2 + i), inf);  // past m: +inf, never below
        const wm below = lt(d2, bound);
        chosen += emit(s.order + chosen, i, bits(below));
        edge = vmax(edge, select(below, d2, zero));
        next = vmin(next, select(below, inf, d2));
    }
    s.edge = hmax(edge), s.next = hmin(next);
    return chosen;
}

// How many guesses are tried before counting: each after the first moves the boundary past the
// nearest d2 beyond it, one way or the other; a pass costs about what counting does for 2 or 3
// candidates (of about 25 in the uniform case of bench/bench_interest_lua.lua).
constexpr int kGuesses = 4;

// From s.below: whether a guess held (then s.order, s.chosen, s.edge and s.next are set).
inline bool select_by_guesses(SelectLanes& s) noexcept {
    float cut = s.below;
    for (int guess = 0; guess < kGuesses; ++guess) {
        const uint32_t below = select_below(s, cut);
        if (below == s.n) {
            s.chosen = below;
            return true;
        }
        if (below > s.n) {
            cut = s.edge;  // at least the largest below goes
        } else {
            if (!(s.next < std::numeric_limits<float>::infinity())) return false;
            uint32_t b;  // the float just above next: next and every equal one come in
            std::memcpy(&b, &s.next, sizeof b);
            ++b;
            std::memcpy(&cut, &b, sizeof cut);
        }
    }
    return false;
}

inline void interest_select(SelectLanes& s) noexcept {
    static_assert(kSelectBlocks <= 8, "the switch below dispatches up to 8 blocks");
    // Most often the boundary moved less than half the gap around it since the last update: the
    // guess holds, and the m compares a candidate are not needed.
    if (s.below > 0.0f && select_by_guesses(s)) return;
    SelectState st{splat(0.0f), splat(std::numeric_limits<float>::infinity()), 0};
    uint32_t i = 0;
    for (; s.m - i >= uint32_t(kSelectBlocks * W); i += kSelectBlocks * W) select_blocks<kSelectBlocks>(s, i, st);
    // The rest, in as many blocks as it fills, at most kSelectBlocks (each loaded only where it
    // starts below m: d2 has kMaxWidth of room).
    switch ((s.m - i + W - 1) / W) {  // 0 when m is a whole number of groups
        case 1: select_blocks<1>(s, i, st); break;
        case 2: select_blocks<(kSelectBlocks >= 2 ? 2 : 1)>(s, i, st); break;
        case 3: select_blocks<(kSelectBlocks >= 3 ? 3 : 1)>(s, i, st); break;
        case 4: select_blocks<(kSelectBlocks >= 4 ? 4 : 1)>(s, i, st); break;
        case 5: select_blocks<(kSelectBlocks >= 5 ? 5 : 1)>(s, i, st); break;
        case 6: select_blocks<(kSelectBlocks >= 6 ? 6 : 1)>(s, i, st); break;
        case 7: select_blocks<(kSelectBlocks >= 7 ? 7 : 1)>(s, i, st); break;
        case 8: select_blocks<(kSelectBlocks >= 8 ? 8 : 1)>(s, i, st); break;
        default: break;
    }
    s.edge = hmax(st.edge), s.next = hmin(st.next);  // d2, 0 or +inf: never NaN
    s.chosen = st.chosen;
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo
