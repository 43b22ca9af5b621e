// The spatial index after changes (grid_refresh, grid.hpp): far jumps refiled, adds and
// removes patched in, radii and masks taken again.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "grid.hpp"

namespace soageo {
namespace {

// Entities that jump in one refresh (teleports, respawns) farther than kJumpShare of the drift
// bound per axis are refiled one by one (refile), at most kMaxJumps a refresh, so that they do
// not widen every other entity's search: one respawn a tick would otherwise make every refresh
// a rebuild. More jumps than that, and the refresh counts them like any move.
constexpr double kJumpShare = 0.25;
constexpr uint32_t kMaxJumps = 8;

// How the adds and removes in the store's feed since the index caught up renumbered the slots
// the grid holds: old slot from[i] is now to[i] (kDeadSlot: removed), for the few old slots that
// changed; the slots of the entities added since. At most one removal and two moves a change.
struct SlotChanges {
    uint32_t n_changed, n_added;
    uint32_t from[3 * kMaxMembersBehind], to[3 * kMaxMembersBehind];
    uint32_t added[kMaxMembersBehind];

    uint32_t now(uint32_t old) const noexcept {
        for (uint32_t i = 0; i < n_changed; ++i)
            if (from[i] == old) return to[i];
        return old;
    }
};

// Replays the feed's changes since the index's cursor over the slots [0, n_old) the grid holds;
// false when the feed no longer holds them, one is a clear, or they do not lead to the store's n
// (changes that do not belong to this grid: the caller builds from scratch).
bool replay(const Store& s, uint32_t n_old, uint32_t n_new, SlotChanges& c) noexcept {
    if (!feed_holds(s.feed, s.index_seen)) return false;
    // What each slot the changes touched holds now: an old slot's entity, an entity added since,
    // or nothing (past the end); a slot they never touched still holds its own old entity.
    constexpr uint32_t kAddedSince = 0xfffffffeu, kVacant = 0xfffffffdu;
    struct Holds {
        uint32_t slot, what;
    };
    Holds t[2 * kMaxMembersBehind];
    uint32_t m = 0;
    auto holds = [&](uint32_t slot) {
        for (uint32_t i = 0; i < m; ++i)
            if (t[i].slot == slot) return t[i].what;
        return slot;
    };
    auto put = [&](uint32_t slot, uint32_t what) {
        for (uint32_t i = 0; i < m; ++i)
            if (t[i].slot == slot) {
                t[i].what = what;
                return;
            }
        t[m++] = Holds{slot, what};
    };
    c.n_changed = c.n_added = 0;
    for (uint64_t k = s.index_seen; k < s.feed.seq; ++k) {
        const MemberOp op = feed_at(s.feed, k);
        if (op.slot == kMembersCleared) return false;
        if (op.last == kMemberAdded) {
            put(op.slot, kAddedSince);
            continue;
        }
        const uint32_t gone = holds(op.slot);
        if (gone < n_old) {
            c.from[c.n_changed] = gone;
            c.to[c.n_changed++] = kDeadSlot;
        }
        if (op.slot != op.last) put(op.slot, holds(op.last));
        put(op.last, kVacant);
    }
    uint32_t removed = c.n_changed;
    for (uint32_t i = 0; i < m; ++i) {
        const Holds h = t[i];
        if (h.slot >= n_new) {
            if (h.what != kVacant) return false;
        } else if (h.what == kAddedSince) {
            c.added[c.n_added++] = h.slot;
        } else if (h.what >= n_old) {
            return false;
        } else if (h.what != h.slot) {
            c.from[c.n_changed] = h.what;
            c.to[c.n_changed++] = h.slot;
        }
    }
    return uint64_t(n_old) - removed + c.n_added == n_new;
}

struct Gathered {
    float moved;       // how far any entity moved per axis since the last refresh (rounded up)
    float moved_rest;  // the same without the jumps
    uint32_t jumps;    // how many entities moved farther than the jump threshold
    uint32_t at[kMaxJumps];  // the cell-order positions of the first kMaxJumps of them
};

// The current positions into the last cell order, gathered by slot (through one interleaved
// copy of the columns, made in slot order: one cache miss a position, not two); says how far
// entities moved since, and which moved farther than `jump`. With `c` (adds and removes since),
// the old slots it names are renumbered first and removed entities' positions marked dead.
template <bool kRenumber>
Gathered gather_positions(Grid& g, const Store& s, float jump, const SlotChanges* c) noexcept {
    const uint32_t n = g.loose.n;
    const float* X = s.col.x;
    const float* Y = s.col.y;
    float* xy = g.xy;
    for (uint32_t i = 0; i < s.n; ++i) {
        xy[2 * i] = X[i];
        xy[2 * i + 1] = Y[i];
    }
    uint32_t* bits = g.bitmap;
    if (kRenumber) {
        std::memset(bits, 0, (size_t(n) + 31) / 32 * 4);  // old slots are below n
        for (uint32_t i = 0; i < c->n_changed; ++i) bits[c->from[i] >> 5] |= 1u << (c->from[i] & 31);
    }
    uint32_t* slot = g.slot;
    Gathered out{};
    float moved = 0.0f, rest = 0.0f;
    // The big entities (from n_cells) sit in the run every query visits: their moves do not matter.
    const uint32_t small = g.loose.n_cells;
    for (uint32_t p = 0; p < n; ++p) {
        // Prefetch distance of the gather: 16 measured slower at 1,000,000 (build/bench_index).
        constexpr uint32_t kAhead = 48;
        if (p + kAhead < n && slot[p + kAhead] != kDeadSlot) __builtin_prefetch(xy + 2 * size_t(slot[p + kAhead]));
        uint32_t at = slot[p];
        if (at == kDeadSlot) continue;
        if (kRenumber && (bits[at >> 5] >> (at & 31) & 1)) {
            at = slot[p] = c->now(at);
            if (at == kDeadSlot) {
                g.mask[p] = 0;
                ++g.loose.dead;
                continue;
            }
        }
        const float* e = xy + 2 * size_t(at);
        if (p < small) {
            const float m = std::max(std::fabs(e[0] - g.x[p]), std::fabs(e[1] - g.y[p]));
            moved = std::max(moved, m);
            if (m > jump) {
                if (out.jumps < kMaxJumps) out.at[out.jumps] = p;
                ++out.jumps;
            } else {
                rest = std::max(rest, m);
            }
        }
        g.x[p] = e[0];
        g.y[p] = e[1];
    }
    // A float difference is rounded to nearest (2^-24 of it at most): one part in 2^20 more
    // bounds the exact one, with room left for the rounding of the double sum in grid_refresh
    // and of the widened area's bounds in grid_plan.
    out.moved = moved * (1.0f + 0x1p-20f);
    out.moved_rest = rest * (1.0f + 0x1p-20f);
    return out;
}

// Radii and masks again from the store (after layer:set changed some); the largest radius in
// cells becomes `reach` again. False when an entity in cells has grown wider than a cell: it
// belongs in the big entities' run, and only a build puts it there.
bool gather_shapes(Grid& g, const Store& s) noexcept {
    float reach = 0.0f;
    bool fits = true;
    for (uint32_t p = 0; p < g.loose.n; ++p) {
        const uint32_t at = g.slot[p];
        if (at == kDeadSlot) continue;
        const float r = s.col.r[at];
        g.r[p] = r;
        g.mask[p] = s.col.mask[at];
        if (p < g.loose.n_cells) {
            fits = fits && r <= g.cell;
            reach = std::max(reach, r);
        }
    }
    g.reach = reach;
    return fits;
}

// Moves the small entity at cell-order position p into the bucket of its position, shifting the
// positions between by one (the buckets' order is kept); returns where it went. Costs the
// distance it goes in the cell order, at most a pass over the grid.
uint32_t refile(Grid& g, uint32_t p) noexcept {
    uint32_t* start = g.loose.start;
    const uint32_t B = g.loose.buckets;
    // Its bucket now: the last one starting at or before p (empty ones start where the next does).
    const uint32_t a = static_cast<uint32_t>(std::upper_bound(start, start + B + 1, p) - start) - 1;
    const uint32_t b = row_bucket(B, cell_of(g.x[p], g.loose.inv_cell), cell_of(g.y[p], g.loose.inv_cell));
    if (b == a) return p;
    // The end of bucket b: after p, the positions between come one back; before it, one on.
    const uint32_t q = b > a ? start[b + 1] - 1 : start[b + 1];
    auto shift = [&](auto* column) {
        const auto v = column[p];
        if (q > p)
            std::memmove(column + p, column + p + 1, size_t(q - p) * sizeof v);
        else
            std::memmove(column + q + 1, column + q, size_t(p - q) * sizeof v);
        column[q] = v;
    };
    shift(g.x);
    shift(g.y);
    shift(g.r);
    shift(g.mask);
    shift(g.slot);
    if (b > a)
        for (uint32_t c = a + 1; c <= b; ++c) --start[c];
    else
        for (uint32_t c = b + 1; c <= a; ++c) ++start[c];
    return q;
}

}  // namespace

void grid_build(Grid& g, const Store& s, bool moves_only) noexcept {
    const bool reuse = moves_only && g.built && g.loose.n == s.n && g.loose.dead == 0;
    if (reuse) gather_positions<false>(g, s, HUGE_VALF, nullptr);
    grid_fill(g, s, reuse);
}

bool grid_refresh(Grid& g, const Store& s) noexcept {
    SlotChanges c;
    const bool members = s.stale & kStaleMembers;
    const uint32_t n_old = g.loose.n - g.loose.dead;
    // Not built, or changes it cannot follow (not in the feed any more, no room for the adds).
    if (!g.built || (members ? !replay(s, n_old, s.n, c) || uint64_t(g.loose.n) + c.n_added > g.room : n_old != s.n)) {
        grid_fill(g, s, false);
        return false;
    }
    const float jump = static_cast<float>(kJumpShare * g.loose.drift_limit);
    Gathered m = members ? gather_positions<true>(g, s, jump, &c) : gather_positions<false>(g, s, jump, nullptr);
    for (uint32_t i = 0; i < (members ? c.n_added : 0); ++i) {
        const uint32_t q = g.loose.n++, at = c.added[i];
        g.x[q] = s.col.x[at];
        g.y[q] = s.col.y[at];
        g.r[q] = s.col.r[at];
        g.mask[q] = s.col.mask[at];
        g.slot[q] = at;
    }
    const bool shapes_fit = !(s.stale & kStaleShape) || gather_shapes(g, s);
    const bool loose = shapes_fit && loose_takes(g.loose, 0, 0);
    if (loose && m.jumps <= kMaxJumps && loose_drift_ok(g.loose, g.loose.drift + double(m.moved_rest))) {
        // The jumps to their buckets; each refile shifts the positions between, some of the
        // other jumps' among them.
        for (uint32_t j = 0; j < m.jumps; ++j) {
            const uint32_t p = m.at[j], q = refile(g, p);
            for (uint32_t k = j + 1; k < m.jumps; ++k) {
                uint32_t& o = m.at[k];
                if (q > p && o > p && o <= q) --o;
                if (q < p && o >= q && o < p) ++o;
            }
        }
        g.loose.drift += double(m.moved_rest);
    } else if (loose && loose_drift_ok(g.loose, g.loose.drift + double(m.moved))) {
        g.loose.drift += double(m.moved);
    } else {
        grid_fill(g, s, true);
        return false;
    }
    grid_validate(g.loose, kGridRuns, [&](uint32_t p, float& x, float& y) {
        return x = g.x[p], y = g.y[p], g.slot[p] != kDeadSlot;
    });
    return true;
}

}  // namespace soageo
