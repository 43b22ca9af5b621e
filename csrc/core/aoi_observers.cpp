// Who sees me: the AOI's visible lists inverted by target (observers_build), kept up to date
// by an update's events (observers_apply).
#include <algorithm>
#include <cstring>

#include "aoi.hpp"
#include "carve.hpp"

namespace soageo {

namespace {
Observers lay_observers(Carver& k, uint32_t id_cap, uint64_t pair_cap) noexcept {
    Observers o{};
    k.take_each(id_cap, &o.off, &o.len, &o.room);
    o.who = k.take<uint32_t>(pair_cap);
    o.sort_cap = id_cap > 64 ? id_cap : 64;
    o.sort = k.take<uint64_t>(o.sort_cap);
    o.count = k.take<uint32_t>(size_t(id_cap) + 1);
    o.unsorted = k.take<uint8_t>(id_cap);
    o.id_cap = id_cap;
    o.pair_cap = pair_cap;
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
    // Local copies: stores into who and off would otherwise reload every pointer and bound.
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
// (leaves first), so the lists are visited in memory order: by watcher, each event met a list at
// random, as costly as a new build at 10,000 uniform watchers all moving. A leave takes the
// list's last watcher in its place, an enter goes last, and the list is marked unsorted
// (observers_sort). One event at a time: loops per target over its 0-2 leaves and 0-2 enters
// missed their exit at almost every target (bench/bench_pairs_lua.lua's "who sees me" line).
bool apply_batch(Observers& o, const uint64_t* ev, uint32_t n) noexcept {
    uint32_t* const off = o.off;
    uint32_t* const len = o.len;
    uint32_t* const who = o.who;
    for (uint32_t i = 0; i < n; ++i) {
        if (i + 32 < n) {  // the lists are far apart even in this order: fetched ahead
            const uint32_t* ahead = who + off[uint32_t(ev[i + 32] >> 33)];
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

// The targets are sorted in groups of 2^shift ranks, at most this many groups.
constexpr uint32_t kApplyGroups = 1024;

}  // namespace

bool observers_apply(Observers& o, uint32_t ids, const uint64_t* leave_keys, uint64_t n_leave,
                     const uint64_t* enter_keys, uint64_t n_enter) noexcept {
    SOAGEO_ASSERT(o.id_cap >= ids);
    uint32_t* const count = o.count;
    // A counting sort of each batch by group of targets, stable (every list takes its events in
    // the order given). A group's lists lie together, so the apply stays local, and a few hundred
    // counts replace one per target, whose clearing and prefix sum were a tenth of the apply.
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
        for (uint64_t i = first; i < last; ++i) ++count[(uint32_t(key_at(i) >> 33) >> shift) + 1];
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
// observers_apply for an incremental update that patched members in: its keys' ranks are the
// last update's ids_before plus the `added` after them, its watcher indices the last update's
// plus the new ones. Once applied, the lists take this update's ranks (remap: each one's new
// one, kNoSlot: removed; ids_now of them) and watcher indices (index_now); null: the same.
bool observers_apply_renumbered(Observers& o, uint32_t ids_before, uint32_t added, uint32_t ids_now,
                                const uint32_t* remap, const uint32_t* index_now, const uint64_t* leave_keys,
                                uint64_t n_leave, const uint64_t* enter_keys, uint64_t n_enter) noexcept {
    const uint32_t ranks = ids_before + added;
    if (o.id_cap < ranks || o.id_cap < ids_now) return false;
    for (uint32_t r = ids_before; r < ranks; ++r) {  // the added: no watcher yet, no room
        o.off[r] = o.len[r] = o.room[r] = 0;
        o.unsorted[r] = 0;
    }
    if (!observers_apply(o, ranks, leave_keys, n_leave, enter_keys, n_enter)) return false;
    // Each list to its rank now (a removed entity's is empty), through the sort and count scratch.
    uint64_t* const at = o.sort;     // sort_cap >= id_cap entries
    uint32_t* const room = o.count;  // id_cap + 1 entries
    for (uint32_t e = 0; e < ranks; ++e) {
        const uint32_t r = remap ? remap[e] : e;
        if (r == kNoSlot) {
            SOAGEO_ASSERT(o.len[e] == 0);
            continue;
        }
        at[r] = uint64_t(o.len[e]) << 32 | o.off[e];
        room[r] = o.room[e] | uint32_t(o.unsorted[e]) << 31;
    }
    for (uint32_t r = 0; r < ids_now; ++r) {
        o.off[r] = uint32_t(at[r]);
        o.len[r] = uint32_t(at[r] >> 32);
        o.room[r] = room[r] & 0x7fffffffu;
        o.unsorted[r] = uint8_t(room[r] >> 31);
    }
    // Every entry takes its watcher's new index (the map keeps order: sorted lists stay sorted).
    for (uint32_t r = 0; index_now && r < ids_now; ++r) {
        uint32_t* t = o.who + o.off[r];
        for (uint32_t j = 0, m = o.len[r]; j < m; ++j) {
            SOAGEO_ASSERT(index_now[t[j]] != kNoSlot);
            t[j] = index_now[t[j]];
        }
    }
    return true;
}
}  // namespace

bool who_sees_me_room(const WhoSeesMe& w, const Visible& v, uint32_t* id_cap, uint64_t* pair_cap) noexcept {
    if (w.current) return false;
    const uint64_t pairs = observers_need(v);
    if (w.lists.off && w.lists.id_cap >= v.id_count && w.lists.pair_cap >= pairs) return false;
    *id_cap = v.id_count + v.id_count / 2 + 16;
    *pair_cap = pairs + pairs / 2 + 64;  // lists that outgrow their room move to the end
    return true;
}

void who_sees_me_ask(WhoSeesMe& w, const Visible& v, AoiStats* stats) noexcept {
    w.idle = 0;
    if (w.current) return;
    observers_build(v, w.lists);
    w.current = true;
    if (stats) ++stats->inversion_builds;
}

// At a commit (committed: the lists now current; previous: the other pair of lists, which an
// update that changed the watchers left their new indices in).
void who_sees_me_commit(WhoSeesMe& w, const AoiScratch& s, const Visible& committed, const Visible& previous,
                        const AoiProgress& p, AoiStats* stats) noexcept {
    const bool follow = who_sees_me_follows(w);
    w.idle += w.idle < kWhoSeesMeIdle;
    w.current = false;
    if (!follow || !(p.incremental || p.keys)) return;
    // An update that patched members in renumbers the lists (the maps: the scratch's, previous's).
    const AoiScratch::Members& m = s.members;
    w.current = !p.members
                    ? observers_apply(w.lists, committed.id_count, p.leave_keys, p.n_leave, p.enter_keys, p.n_enter)
                    : observers_apply_renumbered(w.lists, m.ids_before, m.n_added, committed.id_count,
                                                 m.layer_changed ? s.remap : nullptr,
                                                 m.watchers_changed() ? previous.mask : nullptr, p.leave_keys,
                                                 p.n_leave, p.enter_keys, p.n_enter);
    if (w.current && stats) ++stats->inversion_follows;
}

}  // namespace soageo
