// The AOI update driven as the binding drives it (aoi_update, then aoi_commit). The incremental
// update's marks go on from one update's stamps to the next and are cleared only when the
// stamps would wrap: a scene whose stamps are put next to the wrap gives the same events, tick
// after tick, as the same scene far from it, on the incremental path. And the inversion kept
// for watchers_of, with events applied to it, equals one built anew.
#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include "check.hpp"
#include "core/aoi.hpp"
#include "core/aoi_internal.hpp"
#include "core/radix.hpp"
#include "fixtures.hpp"

using namespace soageo;

namespace {

struct AoiScene {
    uint32_t n;
    std::vector<unsigned char> col, map, wb, vb[2], sb, eb, lb;
    Store st;
    Watchers w;
    Visible vis[2];
    int cur = 0;
    AoiScratch s;
    EventList enter, leave;
    AoiStats stats;
    WhoSeesMe* who = nullptr;  // followed by the commits when set

    explicit AoiScene(uint32_t count) : n(count) {
        const uint32_t cap = n + 16;
        const uint64_t pairs = uint64_t(n) * n + 64;
        col.resize(columns_bytes(cap));
        map.resize(idmap_bytes(idmap_cap_for(cap)));
        st = Store{columns_carve(col.data(), cap), idmap_init(map.data(), idmap_cap_for(cap)), 0, 0, {}, 0, 0, 0};
        wb.resize(watchers_bytes(cap));
        w = watchers_carve(wb.data(), cap);
        for (int i = 0; i < 2; ++i) {
            vb[i].resize(visible_bytes(cap, pairs, cap));
            vis[i] = visible_carve(vb[i].data(), cap, pairs, cap);
        }
        sb.resize(aoi_scratch_bytes(cap));
        s = aoi_scratch_carve(sb.data(), cap);
        eb.resize(events_bytes(pairs));
        enter = events_carve(eb.data(), pairs);
        lb.resize(events_bytes(pairs));
        leave = events_carve(lb.data(), pairs);
        fixture::Rng rng(91);
        for (uint32_t i = 1; i <= n; ++i) {
            store_set(st, i, float(rng.uniform(0, 100)), float(rng.uniform(0, 100)), 0, 1);
            watchers_insert(w, w.n, i, 10.0f, ~0u);
        }
    }

    // One update's events: the enter pairs, a separator, the leave pairs.
    std::vector<int64_t> update(bool same_watchers) {
        AoiInput in{&st, &w, &vis[cur], 1.0f, fixture::reference(), same_watchers, &stats, who};
        AoiProgress p;
        p.keys = who && who_sees_me_follows(*who);
        enter.n = leave.n = 0;
        uint64_t need = 0;
        CHECK(aoi_update(in, s, vis[1 - cur], enter, leave, p, &need) == AoiStatus::done);
        cur = aoi_commit(in, s, vis, cur, p);
        std::vector<int64_t> events(enter.pair, enter.pair + 2 * enter.n);
        events.push_back(-1);
        events.insert(events.end(), leave.pair, leave.pair + 2 * leave.n);
        return events;
    }

    // A tenth of the entities move up to 0.4 units per axis (the same moves for the same seed).
    void step(fixture::Rng& rng) {
        for (uint32_t i = 0; i < st.n; ++i) {
            if (rng.below(10)) continue;
            store_move(st, i, st.col.x[i] + float(rng.uniform(-0.4, 0.4)), st.col.y[i] + float(rng.uniform(-0.4, 0.4)));
        }
    }
};

}  // namespace

// Marks left by earlier updates may hold any value below 2 * mark_stamp + 2: fills them so.
void scramble_marks(AoiScene& sc, fixture::Rng& rng) {
    const uint32_t top = 2 * sc.s.mark_stamp + 1;
    for (uint32_t i = 0; i < padded(sc.n + 1) + kMaxWidth; ++i) {
        const uint32_t pick = rng.below(4);
        sc.s.mark[i] = pick == 0 ? top : pick == 1 ? top - 1 : pick == 2 ? rng.below(200) : top - rng.below(200);
    }
}

TEST_CASE(aoi_incremental_marks_near_the_stamp_wrap_give_the_same_events) {
    AoiScene far(400), near_wrap(400), at_top(400);
    far.update(false), near_wrap.update(false), at_top.update(false);
    fixture::Rng a(5), b(5), c(5), garbage(6);
    for (int tick = 0; tick < 6; ++tick) {
        far.step(a), near_wrap.step(b), at_top.step(c);
        // One scene clears its marks at this tick (the stamps would wrap); the other uses the
        // stamps up to about the largest (each of the 40-odd movers and their rescans takes one).
        near_wrap.s.mark_stamp = kMaxMarkStamp - 1;
        at_top.s.mark_stamp = kMaxMarkStamp - 2 * (at_top.n / 10) - 20;
        scramble_marks(near_wrap, garbage);
        scramble_marks(at_top, garbage);
        const std::vector<int64_t> want = far.update(true);
        CHECK_MSG(near_wrap.update(true) == want, "tick %d", tick);
        CHECK_MSG(at_top.update(true) == want, "tick %d", tick);
        CHECK_MSG(want.size() > 1, "tick %d: no events", tick);
    }
    CHECK(far.stats.incremental == 6 && near_wrap.stats.incremental == 6 && at_top.stats.incremental == 6);
}

// Events applied to the inversion (observers_apply, targets sorted by groups of ranks, in
// batches when there are more events than ids) give the lists a new build gives, every round.
TEST_CASE(observers_apply_equals_a_new_build) {
    fixture::Rng rng(93);
    for (uint32_t ids : {50u, 1024u, 1025u, 3000u}) {
        const uint32_t watchers = 400;
        const uint64_t pairs = uint64_t(watchers) * 64;
        std::vector<unsigned char> vb(visible_bytes(watchers, pairs, ids)), ob(observers_bytes(ids, 4 * pairs));
        Visible v = visible_carve(vb.data(), watchers, pairs, ids);
        Observers o = observers_carve(ob.data(), ids, 4 * pairs);
        std::vector<std::set<uint32_t>> sees(watchers);
        for (uint32_t i = 0; i < ids; ++i) v.ids[i] = int64_t(i) + 1, v.rank_at[i] = (i * 7 + 3) % ids;  // positions -> ranks
        v.id_count = ids;
        v.n = watchers;
        auto lay_out = [&]() {  // the visible lists from `sees`, each with room to spare
            v.top = v.pairs = 0;
            for (uint32_t k = 0; k < watchers; ++k) {
                v.watcher[k] = int64_t(k) + 1;
                v.off[k] = uint32_t(v.top), v.len[k] = uint32_t(sees[k].size()), v.room[k] = 64;
                uint32_t at = v.off[k];
                for (uint32_t p : sees[k]) v.target[at++] = p;
                v.top += 64, v.pairs += v.len[k];
            }
        };
        for (auto& set : sees)
            for (uint32_t j = 0, m = rng.below(40); j < m; ++j) set.insert(rng.below(ids));
        lay_out();
        observers_build(v, o);
        for (int round = 0; round < 4; ++round) {
            std::vector<uint64_t> leaves, enters;
            for (uint32_t k = 0; k < watchers; ++k) {
                std::vector<uint32_t> now(sees[k].begin(), sees[k].end());
                for (uint32_t p : now)
                    if (rng.below(4) == 0) sees[k].erase(p), leaves.push_back(uint64_t(k) << 32 | v.rank_at[p]);
                for (uint32_t j = 0, m = rng.below(round == 3 ? 24 : 8); j < m && sees[k].size() < 60; ++j) {
                    const uint32_t p = rng.below(ids);
                    if (sees[k].insert(p).second) enters.push_back(uint64_t(k) << 32 | v.rank_at[p]);
                }
            }
            for (size_t i = leaves.size(); i > 1; --i) std::swap(leaves[i - 1], leaves[rng.below(uint32_t(i))]);
            for (size_t i = enters.size(); i > 1; --i) std::swap(enters[i - 1], enters[rng.below(uint32_t(i))]);
            lay_out();
            CHECK_MSG(observers_apply(o, v.id_count, leaves.data(), leaves.size(), enters.data(), enters.size()),
                      "ids %u round %d", ids, round);
            std::vector<unsigned char> fb(observers_bytes(ids, 4 * pairs));
            Observers fresh = observers_carve(fb.data(), ids, 4 * pairs);
            observers_build(v, fresh);
            bool same = true;
            for (uint32_t r = 0; r < ids; ++r) {
                observers_sort(o, r);
                same &= std::equal(o.who + o.off[r], o.who + o.off[r] + o.len[r], fresh.who + fresh.off[r],
                                   fresh.who + fresh.off[r] + fresh.len[r]);
            }
            CHECK_MSG(same, "ids %u round %d (%zu leaves, %zu enters)", ids, round, leaves.size(), enters.size());
        }
    }
}

// The incremental update's sort of event keys (watcher index << 32 | target rank) equals
// std::sort for every shape of tick: keys spread over many watchers, a few watchers with many
// events each or one with all of them, few keys (std::sort itself), keys too wide to pack, or
// more than the packed room.
TEST_CASE(sort_keys_equals_std_sort) {
    fixture::Rng rng(97);
    struct Shape {
        uint32_t watchers, ranks;
        uint64_t n, packed_cap;
        uint32_t per_watcher;  // 0: each key's watcher drawn alone; else runs of this many
    };
    const Shape shapes[] = {
        {10000, 10000, 255, 1 << 16, 0},   {10000, 10000, 256, 1 << 16, 0},  {10000, 10000, 700, 1 << 16, 0},
        {10000, 10000, 4096, 1 << 16, 0},  {10000, 10000, 5000, 1 << 16, 0}, {10000, 10000, 20000, 1 << 16, 0},
        {2000, 2000, 2000, 1 << 16, 10},   {2000, 2000, 3000, 1 << 16, 30},  {2000, 2000, 1500, 1 << 16, 1500},
        {300, 40, 2000, 1 << 16, 0},       {1u << 20, 1u << 20, 3000, 1 << 16, 0},
        {10000, 10000, 3000, 1000, 0},     {100000, 100000, 4000, 1 << 16, 20},
    };
    for (const Shape& sh : shapes) {
        for (int round = 0; round < 3; ++round) {
            std::set<uint64_t> distinct;
            uint32_t k = rng.below(sh.watchers);
            while (distinct.size() < sh.n) {
                if (sh.per_watcher == 0 || distinct.size() % sh.per_watcher == 0) k = rng.below(sh.watchers);
                distinct.insert(uint64_t(k) << 32 | rng.below(sh.ranks));
            }
            std::vector<uint64_t> keys(distinct.begin(), distinct.end());
            for (size_t i = keys.size(); i > 1; --i) std::swap(keys[i - 1], keys[rng.below(uint32_t(i))]);
            std::vector<uint64_t> tmp(keys.size());
            std::vector<uint32_t> packed(sh.packed_cap), packed_tmp(sh.packed_cap);
            sort_pair_keys(keys.data(), tmp.data(), keys.size(), sh.watchers, sh.ranks, packed.data(), packed_tmp.data(),
                           sh.packed_cap);
            CHECK_MSG(std::equal(keys.begin(), keys.end(), distinct.begin(), distinct.end()),
                      "watchers %u ranks %u n %llu per watcher %u round %d", sh.watchers, sh.ranks,
                      (unsigned long long)sh.n, sh.per_watcher, round);
        }
    }
}

// Who sees me as the aoi keeps it: an ask builds the inversion; the next kWhoSeesMeIdle
// commits follow it (lists equal to a new build of the committed lists); a commit past them
// without an ask stops describing the lists, and the next ask builds them again.
TEST_CASE(who_sees_me_follows_commits_while_asked) {
    AoiScene sc(300);
    sc.update(false);
    const uint32_t id_cap = 400;
    const uint64_t pair_cap = 4 * uint64_t(300) * 300;
    std::vector<unsigned char> ob(observers_bytes(id_cap, pair_cap)), fb(observers_bytes(id_cap, pair_cap));
    WhoSeesMe who;
    who.lists = observers_carve(ob.data(), id_cap, pair_cap);
    sc.who = &who;
    uint32_t ic;
    uint64_t pc;
    CHECK(who_sees_me_room(who, sc.vis[sc.cur], &ic, &pc) == false);  // carved large enough
    who_sees_me_ask(who, sc.vis[sc.cur], &sc.stats);
    CHECK(who.current && sc.stats.inversion_builds == 1);
    fixture::Rng rng(17);
    for (uint32_t tick = 1; tick <= kWhoSeesMeIdle + 1; ++tick) {
        sc.step(rng);
        CHECK(who_sees_me_follows(who) == (tick <= kWhoSeesMeIdle));
        sc.update(true);
        CHECK_MSG(who.current == (tick <= kWhoSeesMeIdle), "tick %u", tick);
        if (!who.current) break;
        Observers fresh = observers_carve(fb.data(), id_cap, pair_cap);
        observers_build(sc.vis[sc.cur], fresh);
        bool same = true;
        for (uint32_t r = 0; r < sc.vis[sc.cur].id_count; ++r) {
            observers_sort(who.lists, r);
            same &= std::equal(who.lists.who + who.lists.off[r], who.lists.who + who.lists.off[r] + who.lists.len[r],
                               fresh.who + fresh.off[r], fresh.who + fresh.off[r] + fresh.len[r]);
        }
        CHECK_MSG(same, "tick %u", tick);
    }
    CHECK(sc.stats.inversion_follows == kWhoSeesMeIdle);
    who_sees_me_ask(who, sc.vis[sc.cur], &sc.stats);
    CHECK(who.current && who.idle == 0 && sc.stats.inversion_builds == 2);
}
