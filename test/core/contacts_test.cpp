// The incremental contacts' search kernel: every target reports exactly the positions the
// scalar reference does, in the same order, and those are the boxes that overlap the searching
// one by the four comparisons of its definition (touching counts, NaN never overlaps).
#include <algorithm>
#include <limits>
#include <vector>

#include "check.hpp"
#include "core/bands.hpp"
#include "core/contacts.hpp"
#include "core/kernels.hpp"
#include "fixtures.hpp"

using namespace soageo;

TEST_CASE(contact_search_matches_scalar_and_its_definition) {
    fixture::Rng rng(97);
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    const uint32_t sizes[] = {0, 1, 3, 4, 5, 8, 9, 15, 16, 17, 31, 33, 100, 1000};
    for (uint32_t n : sizes) {
        for (int round = 0; round < 20; ++round) {
            // Coordinates on a coarse lattice, so that boxes touch exactly and often.
            std::vector<float> minx(n + kMaxWidth), neg_maxx(n + kMaxWidth), miny(n + kMaxWidth), neg_maxy(n + kMaxWidth);
            for (uint32_t p = 0; p < n + kMaxWidth; ++p) {
                const float x = static_cast<float>(static_cast<int>(rng.below(21)) - 10);
                const float y = static_cast<float>(static_cast<int>(rng.below(21)) - 10);
                const float r = static_cast<float>(rng.below(4));
                minx[p] = x - r, neg_maxx[p] = -(x + r), miny[p] = y - r, neg_maxy[p] = -(y + r);
                if (rng.below(50) == 0) minx[p] = -inf;  // a box that reaches infinity
                if (rng.below(50) == 0) neg_maxy[p] = nan;
                if (round % 7 == 6) minx[p] *= 1e30f, neg_maxx[p] *= 1e30f;
            }
            // Runs anywhere in [0, n), of any length, possibly empty or repeated.
            std::vector<uint32_t> runs;
            const uint32_t n_runs = rng.below(5);
            for (uint32_t k = 0; k < n_runs; ++k) {
                const uint32_t a = n ? rng.below(n + 1) : 0, b = n ? rng.below(n + 1) : 0;
                runs.push_back(a < b ? a : b);
                runs.push_back(a < b ? b : a);
            }
            if (round == 0) runs = {0, n};
            const float x = static_cast<float>(static_cast<int>(rng.below(21)) - 10);
            const float y = static_cast<float>(static_cast<int>(rng.below(21)) - 10);
            const float r = static_cast<float>(rng.below(5));
            ContactSearch s{minx.data(), neg_maxx.data(), miny.data(), neg_maxy.data(), runs.data(),
                            static_cast<uint32_t>(runs.size() / 2), x + r, -(x - r), y + r, -(y - r)};
            std::vector<uint32_t> defined;
            uint32_t total = 0;
            for (size_t k = 0; k < runs.size(); k += 2) {
                total += runs[k + 1] - runs[k];
                for (uint32_t p = runs[k]; p < runs[k + 1]; ++p)
                    if (minx[p] <= s.maxx && neg_maxx[p] <= s.neg_minx && miny[p] <= s.maxy && neg_maxy[p] <= s.neg_miny)
                        defined.push_back(p);
            }
            std::vector<uint32_t> got(total + kMaxWidth);
            for (const KernelTable* k : fixture::targets()) {
                const uint32_t h = k->contact_search(s, got.data());
                CHECK_MSG(std::vector<uint32_t>(got.begin(), got.begin() + h) == defined, "%s n=%u round %d", k->name, n,
                          round);
            }
        }
    }
}

// The incremental contacts' change detection: every target reports the slots of [first, last)
// whose x, y or r bits differ from the kept copy, ascending, as the definition does (0 against
// -0 is a change; NaN against the same NaN is none), and flags an id that differs in either half,
// never one past `last`.
TEST_CASE(contact_changed_matches_scalar_and_its_definition) {
    fixture::Rng rng(101);
    const uint32_t values[] = {0u, 0x80000000u, 0x3f800000u, 0x7fc00000u, 0x40000000u, 7u};
    for (uint32_t last : {0u, 1u, 3u, 4u, 5u, 15u, 16u, 17u, 31u, 33u, 100u, 256u, 300u}) {
        for (int round = 0; round < 30; ++round) {
            const uint32_t first = kMaxWidth * rng.below(last / kMaxWidth + 1);
            const uint32_t cap = last + 2 * kMaxWidth;
            alignas(64) static uint32_t cols[8][704];  // rows of whole 64-byte lines: every column aligned
            for (auto& col : cols)
                for (uint32_t i = 0; i < 2 * cap; ++i) col[i] = values[rng.below(6)];
            // Mostly the same as kept: a change in a few slots, in one column each.
            for (int c = 0; c < 3; ++c)
                for (uint32_t i = 0; i < cap; ++i) cols[4 + c][i] = cols[c][i];
            for (uint32_t i = 0; i < 2 * cap; ++i) cols[7][i] = cols[3][i];
            const uint32_t changes = rng.below(6);
            for (uint32_t k = 0; k < changes; ++k) cols[rng.below(3)][rng.below(cap)] ^= 1u << rng.below(32);
            const bool id_change = round % 3 == 0;
            uint32_t id_at = 0;
            if (id_change) {
                id_at = rng.below(2 * cap);
                cols[3][id_at] ^= 1u << rng.below(32);
            }
            ContactChanges c{cols[0], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7], first, last};
            std::vector<uint32_t> defined;
            for (uint32_t i = first; i < last; ++i)
                if (cols[0][i] != cols[4][i] || cols[1][i] != cols[5][i] || cols[2][i] != cols[6][i]) defined.push_back(i);
            const bool other = id_change && id_at >= 2 * first && id_at < 2 * last;
            std::vector<uint32_t> got(last - first + kMaxWidth);
            for (const KernelTable* k : fixture::targets()) {
                bool flagged = false;
                const uint32_t h = k->contact_changed(c, got.data(), &flagged);
                CHECK_MSG(std::vector<uint32_t>(got.begin(), got.begin() + h) == defined && flagged == other,
                          "%s first=%u last=%u round %d", k->name, first, last, round);
            }
        }
    }
}

namespace {

using IdPairs = std::vector<std::pair<int64_t, int64_t>>;

// Every pair of the store's boxes that overlap (touching counts), by the float32 bounds the
// sweep computes, as ascending id pairs: what any update must leave its frame holding.
IdPairs overlapping(const Store& st) {
    IdPairs p;
    const Columns& c = st.col;
    for (uint32_t i = 0; i < st.n; ++i)
        for (uint32_t j = i + 1; j < st.n; ++j)
            if (c.x[i] - c.r[i] <= c.x[j] + c.r[j] && c.x[j] - c.r[j] <= c.x[i] + c.r[i] &&
                c.y[i] - c.r[i] <= c.y[j] + c.r[j] && c.y[j] - c.r[j] <= c.y[i] + c.r[i])
                p.push_back(std::minmax(c.id[i], c.id[j]));
    std::sort(p.begin(), p.end());
    return p;
}

IdPairs frame_pairs(const ContactFrame& f) {
    IdPairs p;
    for (uint64_t i = 0; i < f.n; ++i) p.push_back({f.ids[f.buf.keys[i] >> 32], f.ids[f.buf.keys[i] & 0xffffffffu]});
    return p;
}

// The events applied to the pairs they follow.
void replay(IdPairs& p, const EventList& began, const EventList& ended) {
    for (uint64_t e = 0; e < ended.n; ++e) {
        const auto at = std::lower_bound(p.begin(), p.end(), std::make_pair(ended.pair[2 * e], ended.pair[2 * e + 1]));
        CHECK(at != p.end() && at->first == ended.pair[2 * e] && at->second == ended.pair[2 * e + 1]);
        if (at != p.end()) p.erase(at);
    }
    for (uint64_t e = 0; e < began.n; ++e) p.push_back({began.pair[2 * e], began.pair[2 * e + 1]});
    std::sort(p.begin(), p.end());
}

}  // namespace

// The incremental path over ticks where a tenth moves and entities die and spawn: its frame
// and its events give the pairs of the boxes now, and its loose grid (grid_validate in this
// checked build) drifts, takes adds and removes, and is built again once drifted too far.
TEST_CASE(contacts_incremental_follows_moves_adds_and_removes) {
    const uint32_t cap = 4000, n = 3000;
    const uint64_t pair_cap = 1 << 15, event_cap = 1 << 15;
    fixture::SweepWorld w(cap);
    fixture::Rng g(31);
    for (uint32_t id = 1; id <= n; ++id)
        store_set(w.s, id, float(g.uniform(0, 600)), float(g.uniform(0, 600)), float(g.uniform(0.5, 3)), 1);
    std::vector<unsigned char> fa(contact_frame_bytes(pair_cap, cap)), fb(contact_frame_bytes(pair_cap, cap));
    ContactFrame frame[2] = {contact_frame_carve(fa.data(), pair_cap, cap), contact_frame_carve(fb.data(), pair_cap, cap)};
    std::vector<unsigned char> state(contact_state_bytes(cap)), ea(events_bytes(event_cap)), eb(events_bytes(event_cap));
    ContactState cs = contact_state_carve(state.data(), cap);
    EventList began = events_carve(ea.data(), event_cap), ended = events_carve(eb.data(), event_cap);
    const KernelTable* k = fixture::reference();
    int cur = 0;
    // The full path, as the binding runs it: one sweep, one diff.
    sweep_prepare(w.s, w.sw, true);
    const BandPlan plan = band_plan(w.sw.boxes);
    std::vector<unsigned char> bands(plan.bands ? band_scratch_bytes(plan.entries, plan.bands) : 0);
    BandScratch bs{};
    if (plan.bands) bs = band_scratch_carve(bands.data(), plan.entries, plan.bands);
    contacts_keep(w.s, frame[1]);
    frame[1].n = pairs_ordered(plan, w.sw, bs, k->sweep_complete, frame[1].buf);
    contacts_diff(frame[0], frame[1], w.sw.id_keys, w.s.n, w.sw.rank_remap, began, ended);
    cur = 1;
    contacts_commit(cs, frame[cur], false);
    IdPairs now = overlapping(w.s), followed = now;
    CHECK(frame_pairs(frame[cur]) == now && began.n == now.size() && ended.n == 0);
    int64_t next_id = n + 1;
    uint32_t incremental = 0;
    for (int tick = 0; tick < 30; ++tick) {
        for (uint32_t i = 0; i < w.s.n; ++i)
            if (g.below(10) == 0)
                store_move(w.s, i, w.s.col.x[i] + float(g.uniform(-0.4, 0.4)), w.s.col.y[i] + float(g.uniform(-0.4, 0.4)));
        for (int d = 0; d < 2 && tick % 3 != 2; ++d) {
            store_remove(w.s, w.s.col.id[g.below(w.s.n)]);
            store_set(w.s, next_id++, float(g.uniform(0, 600)), float(g.uniform(0, 600)), float(g.uniform(0.5, 3)), 1);
        }
        uint64_t need = 0;
        began.n = ended.n = 0;
        const ContactStep step = contacts_incremental(w.s, w.sw, true, frame[cur], frame[1 - cur], cs, *k, began, ended, &need);
        CHECK_MSG(step == ContactStep::done, "tick %d", tick);
        if (step != ContactStep::done) return;
        ++incremental;
        cur = 1 - cur;
        contacts_commit(cs, frame[cur], true);
        now = overlapping(w.s);
        replay(followed, began, ended);
        CHECK_MSG(frame_pairs(frame[cur]) == now && followed == now, "tick %d", tick);
    }
    CHECK_MSG(incremental == 30 && cs.builds >= 2 && cs.loose.n > cs.loose.n_built && cs.loose.dead > 0, "%u %llu %u %u %u", incremental, (unsigned long long)cs.builds, cs.loose.n, cs.loose.n_built, cs.loose.dead);
}
