// The id map and swap-remove store against std::unordered_map.
#include <cmath>
#include <cstring>
#include <unordered_map>

#include "check.hpp"
#include "core/carve.hpp"
#include "core/slot_changes.hpp"
#include "fixtures.hpp"

using namespace soageo;

TEST_CASE(store_matches_a_model_under_random_operations) {
    const uint32_t cap = 4096;
    std::vector<unsigned char> col_block(columns_bytes(cap)), map_block(idmap_bytes(idmap_cap_for(cap)));
    Store s{columns_carve(col_block.data(), cap), idmap_init(map_block.data(), idmap_cap_for(cap)), 0, 0, {}, 0, 0, 0};
    std::unordered_map<int64_t, float> model;
    fixture::Rng g(3);
    for (int step = 0; step < 200000; ++step) {
        int64_t id = static_cast<int64_t>(g.below(6000)) - 3000;
        if (g.below(2) == 0) id = id * 1000003 + INT64_MIN / 2;  // far-apart keys too
        uint32_t op = g.below(3);
        if (op == 0 && (model.count(id) || model.size() < cap)) {
            float x = static_cast<float>(step);
            store_set(s, id, x, -x, 1, 1);
            model[id] = x;
        } else if (op == 1) {
            CHECK(store_remove(s, id) == (model.erase(id) == 1));
        } else {
            uint32_t slot = idmap_find(s.map, id);
            auto it = model.find(id);
            CHECK((slot == kNoSlot) == (it == model.end()));
            if (slot != kNoSlot && it != model.end()) {
                CHECK(s.col.x[slot] == it->second);
                CHECK(s.col.id[slot] == id);
            }
        }
        CHECK(s.n == model.size());
    }
    for (uint32_t i = 0; i < s.n; ++i) CHECK(idmap_find(s.map, s.col.id[i]) == i);
    for (uint32_t i = s.n; i < s.col.cap; ++i) CHECK(s.col.x[i] == 0.0f && s.col.mask[i] == 0);
}

// The change feed's seq moves with the set of ids only (layer:each() relies on it): adds,
// removes and a clear that empties something; never updates, moves, removes of absent ids or
// regrowth.
TEST_CASE(store_counts_changes_to_its_ids_only) {
    const uint32_t cap = 64;
    std::vector<unsigned char> col(columns_bytes(cap)), map(idmap_bytes(idmap_cap_for(cap)));
    Store s{columns_carve(col.data(), cap), idmap_init(map.data(), idmap_cap_for(cap)), 0, 0, {}, 0, 0, 0};
    store_set(s, 1, 0, 0, 0, 1);
    store_set(s, 2, 0, 0, 0, 1);
    CHECK(s.feed.seq == 2);
    store_set(s, 1, 5, 5, 1, 2);  // an update
    store_move(s, 0, 6, 6);
    const uint32_t slot = 1;
    const float xy[2] = {7, 7};
    store_move_many(s, &slot, xy, 1);
    CHECK(!store_remove(s, 99));
    CHECK(s.feed.seq == 2);
    std::vector<unsigned char> col2(columns_bytes(2 * cap)), map2(idmap_bytes(idmap_cap_for(2 * cap)));
    store_rehome(s, columns_carve(col2.data(), 2 * cap), idmap_init(map2.data(), idmap_cap_for(2 * cap)));
    CHECK(s.feed.seq == 2);
    CHECK(store_remove(s, 1));
    CHECK(s.feed.seq == 3);
    store_set(s, 1, 0, 0, 0, 1);  // back again: still a change
    CHECK(s.feed.seq == 4);
    store_clear(s);
    CHECK(s.feed.seq == 5);
    store_clear(s);  // nothing to clear
    CHECK(s.feed.seq == 5);
}

// The change feed against comparing every slot: consumers (a copy of the ids by slot and the
// feed's seq then) that fall behind by 0 to past the ring's length through adds, removes
// (the last slot's among them), re-adds of removed ids and clears of small and large layers
// get the same changes from the feed as from the full comparison, or are told to start over.
TEST_CASE(feed_slot_changes_equal_comparing_every_slot) {
    const uint32_t cap = 512;
    std::vector<unsigned char> col(columns_bytes(cap)), map(idmap_bytes(idmap_cap_for(cap)));
    Store s{columns_carve(col.data(), cap), idmap_init(map.data(), idmap_cap_for(cap)), 0, 0, {}, 0, 0, 0};
    fixture::Rng g(77);
    struct Consumer {
        std::vector<int64_t> ids;
        uint64_t seen;
    };
    std::vector<Consumer> consumers;
    uint32_t followed = 0, behind = 0;
    for (int step = 0; step < 20000; ++step) {
        const uint32_t what = g.below(100);
        if (what < 45 && s.n + 1 < cap) {
            store_set(s, static_cast<int64_t>(g.below(600)), 0, 0, 0, 1);
        } else if (what < 90 && s.n) {
            store_remove(s, s.col.id[g.below(4) == 0 ? s.n - 1 : g.below(s.n)]);
        } else if (what < 91) {
            store_clear(s);
        } else if (what < 95 || consumers.empty()) {
            consumers.push_back(Consumer{std::vector<int64_t>(s.col.id, s.col.id + s.n), s.feed.seq});
        } else {
            Consumer& c = consumers[g.below(uint32_t(consumers.size()))];
            SlotChanges by_feed, by_slot;
            const bool fed = feed_slot_changes(s, c.seen, c.ids.data(), uint32_t(c.ids.size()), by_feed);
            const bool compared = find_slot_changes(c.ids.data(), uint32_t(c.ids.size()), s.col.id, s.n, by_slot);
            CHECK(!fed || compared);
            CHECK(fed || !compared || s.feed.seq - c.seen > kMaxMembersBehind);
            if (fed) {
                ++followed;
                CHECK(by_feed.n_added == by_slot.n_added && by_feed.n_removed == by_slot.n_removed &&
                      by_feed.n_relocated == by_slot.n_relocated);
                for (uint32_t i = 0; i < by_feed.n_added; ++i)
                    CHECK(by_feed.added_id[i] == by_slot.added_id[i] && by_feed.added_slot[i] == by_slot.added_slot[i]);
                for (uint32_t i = 0; i < by_feed.n_removed; ++i)
                    CHECK(by_feed.removed_slot[i] == by_slot.removed_slot[i]);
                for (uint32_t i = 0; i < by_feed.n_relocated; ++i)
                    CHECK(by_feed.from[i] == by_slot.from[i] && by_feed.to[i] == by_slot.to[i]);
            } else {
                behind += s.feed.seq - c.seen > kMaxMembersBehind;
            }
            c = Consumer{std::vector<int64_t>(s.col.id, s.col.id + s.n), s.feed.seq};  // caught up
        }
        if (consumers.size() > 8) consumers.erase(consumers.begin());
    }
    CHECK_MSG(followed > 300 && behind > 100, "%u followed, %u behind", followed, behind);
}

// move_batch_lookup against one idmap_find per move: in order with prefetching (small maps or
// short batches) and in the map's order (long batches in a map past 2^17 buckets), with ids
// repeated (their moves must keep the caller's order) and absent ids (the first one reported).
TEST_CASE(move_batch_lookup_finds_every_id_in_either_order) {
    const uint32_t n = 300000;
    std::vector<unsigned char> col(columns_bytes(n)), map(idmap_bytes(idmap_cap_for(n)));
    Store s{columns_carve(col.data(), n), idmap_init(map.data(), idmap_cap_for(n)), 0, 0, {}, 0, 0, 0};
    fixture::Rng g(11);
    std::vector<int64_t> ids(n);
    for (uint32_t i = 0; i < n; ++i) {
        ids[i] = static_cast<int64_t>(g.next());
        store_set(s, ids[i], 0, 0, 0, 1);
    }
    CHECK(s.map.cap >= (1u << 17));  // past the in-order threshold: the map-order path
    for (uint32_t len : {0u, 1u, 100u, 20000u, 300000u}) {
        for (int absent_at : {-1, 0, 7, 19999}) {
            if (absent_at >= int(len)) continue;
            std::vector<unsigned char> scratch(move_batch_bytes(len));
            const MoveBatch b = move_batch_carve(scratch.data(), len);
            CHECK(carved_cap(scratch.data()) == len);
            for (uint32_t i = 0; i < len; ++i) {
                b.ids[i] = i % 5 == 4 ? b.ids[i - 3] : ids[g.below(n)];  // some ids twice
                b.xy[2 * i] = static_cast<float>(i);
                b.xy[2 * i + 1] = -static_cast<float>(i);
            }
            if (absent_at >= 0) {
                b.ids[absent_at] = 12345;  // no such id (g.next() ids are never this small here)
                if (len > uint32_t(absent_at) + 10) b.ids[absent_at + 10] = 54321;
            }
            for (uint32_t i = 0; i < len; ++i) b.slots[i] = idmap_home(s.map, b.ids[i]);
            CHECK(idmap_find(s.map, 12345) == kNoSlot && idmap_find(s.map, 54321) == kNoSlot);
            const MovePlan plan = move_batch_lookup(s.map, b, len);
            CHECK(plan.first_absent == (absent_at >= 0 ? uint32_t(absent_at) : len));
            if (absent_at >= 0) continue;
            // Applying the plan in its order gives what moves in the caller's order give.
            std::vector<float> want_x(n, NAN), got_x(n, NAN);
            for (uint32_t i = 0; i < len; ++i) want_x[idmap_find(s.map, b.ids[i])] = b.xy[2 * i];
            uint32_t bad = 0;
            for (uint32_t k = 0; k < len; ++k) {
                bad += plan.slots[k] >= s.n;
                if (plan.slots[k] < s.n) got_x[plan.slots[k]] = plan.xy[2 * k];
                bad += plan.xy[2 * k + 1] != -plan.xy[2 * k];
            }
            CHECK(bad == 0);
            CHECK(std::memcmp(want_x.data(), got_x.data(), n * sizeof(float)) == 0);
        }
    }
}

// The id map alone where its buckets overflow: ids picked so that many share a home bucket,
// chains that wrap past the last bucket, the map filled to the 80% it allows, and erasures in
// random order, each followed by a check that every id still there is found at its slot and
// every erased one is gone (an erase that left an id behind a bucket with room loses it).
TEST_CASE(idmap_keeps_every_id_reachable_when_buckets_overflow) {
    for (uint32_t entities : {4u, 40u, 400u}) {
        const uint32_t cap = idmap_cap_for(entities);
        CHECK(uint64_t(cap) * kIdBucket * 4 >= uint64_t(entities) * 5);
        std::vector<unsigned char> block(idmap_bytes(cap));
        IdMap m = idmap_init(block.data() + 8, cap);  // a misaligned block is aligned inside
        CHECK(reinterpret_cast<uintptr_t>(m.buckets) % kAlign == 0);
        fixture::Rng g(entities);
        for (int round = 0; round < 200; ++round) {
            // Half the ids aim at two buckets (one of them the last, so chains wrap), the rest
            // anywhere.
            std::vector<int64_t> ids;
            std::unordered_map<int64_t, uint32_t> model;
            while (ids.size() < entities) {
                const int64_t id = static_cast<int64_t>(g.next());
                const uint32_t home = idmap_home(m, id);
                if (ids.size() % 2 == 0 && home != 0 && home != cap - 1) continue;
                if (model.count(id)) continue;
                model[id] = static_cast<uint32_t>(ids.size());
                CHECK(idmap_insert_new(m, id, static_cast<uint32_t>(ids.size())));
                ids.push_back(id);
            }
            CHECK(!idmap_insert_new(m, ids[0], 7));
            idmap_put(m, ids[1], 99);  // overwrites
            model[ids[1]] = 99;
            for (size_t i = ids.size(); i > 1; --i) std::swap(ids[i - 1], ids[g.below(static_cast<uint32_t>(i))]);
            uint32_t bad = 0;
            for (size_t e = 0; e <= ids.size(); ++e) {
                for (const auto& [id, slot] : model) bad += idmap_find(m, id) != slot;
                if (e == ids.size()) break;
                idmap_erase(m, ids[e]);
                idmap_erase(m, ids[e]);  // again: absent, nothing moves
                model.erase(ids[e]);
                bad += idmap_find(m, ids[e]) != kNoSlot;
            }
            CHECK(bad == 0);
            for (uint32_t b = 0; b < cap; ++b)
                for (uint32_t p = 0; p < kIdBucket; ++p) bad += m.buckets[b].slot[p] != kNoSlot;
            CHECK(bad == 0);  // empty again, and reused by the next round
        }
    }
}

// layer:move_many bounds its scratch by move_batch_bytes_per_move (a 32-bit size_t must not
// wrap): the measured figure must cover what the layout takes for any number of moves.
TEST_CASE(move_batch_bytes_per_move_bounds_the_layout) {
    const size_t per = move_batch_bytes_per_move(), base = move_batch_bytes(0);
    CHECK(per >= sizeof(int64_t) + 2 * sizeof(float));  // at least an id and its x, y
    for (uint32_t cap : {1u, 7u, 63u, 64u, 1000u, 1024u, 4097u, 100000u}) {
        CHECK(move_batch_bytes(cap) >= base + size_t(cap) * per);
        CHECK(move_batch_bytes(cap) <= base + size_t(cap) * per + 1024);
    }
}
