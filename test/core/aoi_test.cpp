// The AOI scan: every target's aoi_scan returns exactly what the scalar reference does (the
// same positions in the same order, the same counts, the same marks left behind).
#include <algorithm>
#include <cstring>
#include <vector>

#include "check.hpp"
#include "core/kernels.hpp"
#include "fixtures.hpp"

using namespace soageo;

namespace {

struct ScanResult {
    std::vector<uint32_t> visible, enters, mark;
    uint32_t met;
    bool operator==(const ScanResult& o) const {
        return visible == o.visible && enters == o.enters && mark == o.mark && met == o.met;
    }
};

// What a scan wrote: the meet's lists up to its counts, the marks of the n entities, `met`.
ScanResult scan_result(const AoiMeet& meet, const std::vector<uint32_t>& visible, const std::vector<uint32_t>& enters,
                       const uint32_t* mark, uint32_t n) {
    ScanResult r;
    r.visible.assign(visible.begin(), visible.begin() + meet.n_visible);
    r.enters.assign(enters.begin(), enters.begin() + meet.n_enter);
    r.mark.assign(mark, mark + n);
    r.met = meet.met;
    return r;
}

constexpr uint32_t kOpen = 6, kKept = 7;

// An aligned copy of `marks` with the padding the kernels may read (std::free it).
uint32_t* aligned_marks(const std::vector<uint32_t>& marks, uint32_t cap) {
    uint32_t* mark = static_cast<uint32_t*>(std::aligned_alloc(kAlign, ((cap + kMaxWidth) * 4 + 63) / 64 * 64));
    std::memcpy(mark, marks.data(), marks.size() * 4);
    return mark;
}

// The reference's aoi_mover over the mover window `mw` (windows `runs`) of a cloud of capacity `cap`.
std::vector<uint32_t> reference_moved(const AoiMoverWindow& mw, uint32_t cap, const std::vector<uint32_t>& runs) {
    std::vector<uint32_t> moved(cap + 2 * kMaxWidth * (runs.size() + 1));
    moved.resize(fixture::reference()->aoi_mover(mw, moved.data()));
    return moved;
}

// Runs one scan over the windows `runs` (pairs [first, last)) of the cloud, one call for all of
// them or (`per_window`) one call each; marks start as `marks`.
// With `d2` given, through aoi_scan_d2, whose distances it receives (one per visible position);
// `quiet`: with no enters asked for.
ScanResult scan_runs(const KernelTable* k, const fixture::Cloud& c, std::vector<uint32_t> marks,
                     const std::vector<uint32_t>& runs, float cx, float cy, float view, float reach, bool filtered = false,
                     uint32_t filter = 0, bool per_window = false, std::vector<float>* d2 = nullptr,
                     bool quiet = false) {
    uint32_t* mark = aligned_marks(marks, c.cap);
    uint32_t total = 0;
    for (size_t j = 0; j < runs.size(); j += 2) total += runs[j + 1] - runs[j];
    std::vector<uint32_t> visible(total + 2 * kMaxWidth), enters(total + 2 * kMaxWidth);
    std::vector<float> distances(total + 2 * kMaxWidth, -1.0f);
    AoiMeet meet{visible.data(), quiet ? nullptr : enters.data(), 0, 0, 0};
    AoiWindow w{c.x, c.y, mark, runs.data(), uint32_t(runs.size() / 2), cx, cy, view, reach, kOpen, kKept,
                filtered ? c.mask : nullptr, filter};
    const auto call = [&] {
        if (d2)
            k->aoi_scan_d2(w, meet, distances.data());
        else
            k->aoi_scan(w, meet);
    };
    if (per_window) {
        for (size_t j = 0; j < runs.size(); j += 2) {
            w.runs = runs.data() + j, w.n_runs = 1;
            call();
        }
    } else {
        call();
    }
    ScanResult r = scan_result(meet, visible, enters, mark, c.n);
    if (d2) d2->assign(distances.begin(), distances.begin() + meet.n_visible);
    std::free(mark);
    return r;
}

// One window: positions [first, first + n).
ScanResult scan(const KernelTable* k, const fixture::Cloud& c, std::vector<uint32_t> marks, uint32_t first, uint32_t n,
                float cx, float cy, float view, float reach, bool filtered = false, uint32_t filter = 0) {
    return scan_runs(k, c, std::move(marks), {first, first + n}, cx, cy, view, reach, filtered, filter);
}

// Random windows over a cloud of n: firsts on blocks, some empty, some overlapping.
std::vector<uint32_t> random_runs(fixture::Rng& rng, uint32_t n) {
    std::vector<uint32_t> runs;
    for (uint32_t j = 0, count = rng.below(7); j < count; ++j) {
        const uint32_t first = 16 * rng.below(n / 16 + 1);
        const uint32_t last = std::min(n, first + rng.below(60));
        runs.push_back(first);
        runs.push_back(std::max(first, last));
    }
    return runs;
}

// A random scene for the watcher kernels: n entities on a small lattice (far apart in x when
// `far`), some with a mask 0 or no view; c.r holds each one's squared view (-1: not a watcher)
// and reach2.x its squared reach; random windows over them, random marks, a filter (odd rounds),
// and the view and reach of the one being scanned.
struct WatcherScene {
    fixture::Cloud c, reach2;
    std::vector<uint32_t> runs, marks;
    bool filtered;
    uint32_t filter;
    float view, reach;
    WatcherScene(fixture::Rng& rng, int round, bool far) : WatcherScene(rng, 1 + rng.below(200), round, far) {}
    WatcherScene(fixture::Rng& rng, uint32_t n, int round, bool far) : c(n + 16), reach2(n + 16) {
        for (uint32_t i = 0; i < c.n; ++i) {
            c.x[i] = static_cast<float>(static_cast<int>(rng.below(41)) - 20);
            c.y[i] = static_cast<float>(static_cast<int>(rng.below(41)) - 20);
            if (far) c.x[i] *= 1e18f;
            c.mask[i] = rng.below(4) == 0 ? 0 : 1u << rng.below(3);
            const float v = static_cast<float>(rng.below(15)), r = v + static_cast<float>(rng.below(4));
            c.r[i] = rng.below(4) == 0 ? -1.0f : v * v;
            reach2.x[i] = c.r[i] < 0 ? -1.0f : r * r;
        }
        runs = random_runs(rng, n);
        marks.resize(c.n);
        const uint32_t values[] = {0, kOpen, kKept, 5};
        for (auto& m : marks) m = values[rng.below(4)];
        filtered = round % 2;
        filter = 1u << rng.below(3);
        view = static_cast<float>(rng.below(15));
        reach = view + static_cast<float>(rng.below(4));
    }
};

}  // namespace

TEST_CASE(aoi_scan_matches_scalar_on_random_windows) {
    fixture::Rng rng(77);
    const uint32_t sizes[] = {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 100, 1000};
    for (uint32_t n : sizes) {
        for (int round = 0; round < 20; ++round) {
            const uint32_t lead = 16 * rng.below(3);
            fixture::Cloud c(lead + n + 16);
            // Integer coordinates put many entities exactly at the view or reach distance.
            for (uint32_t i = 0; i < c.n; ++i) {
                c.x[i] = static_cast<float>(static_cast<int>(rng.below(41)) - 20);
                c.y[i] = static_cast<float>(static_cast<int>(rng.below(41)) - 20);
                if (round % 5 == 4) c.x[i] *= 1e18f;  // far apart, squares near float32 overflow
            }
            std::vector<uint32_t> marks(c.n);
            const uint32_t values[] = {0, kOpen, kKept, 5, 8};
            for (auto& m : marks) m = values[rng.below(5)];
            const float view = static_cast<float>(rng.below(15)), reach = view + static_cast<float>(rng.below(4));
            const float cx = static_cast<float>(static_cast<int>(rng.below(11)) - 5), cy = 0.5f * rng.below(3);
            const ScanResult want = scan(fixture::reference(), c, marks, lead, n, cx, cy, view, reach);
            for (const KernelTable* k : fixture::targets())
                CHECK_MSG(scan(k, c, marks, lead, n, cx, cy, view, reach) == want, "%s n=%u round %d", k->name, n, round);
        }
    }
}

TEST_CASE(aoi_scan_takes_each_position_once_and_counts_what_it_saw) {
    fixture::Cloud c(32);
    for (uint32_t i = 0; i < c.n; ++i) c.x[i] = static_cast<float>(i), c.y[i] = 0;
    std::vector<uint32_t> marks(c.n, 0);
    marks[2] = kOpen;   // seen before, still within view: kept, not an enter, counted as met
    marks[3] = kKept;   // met already by an earlier window: not taken again
    marks[20] = kOpen;  // seen before, now out of reach: neither kept nor met
    for (const KernelTable* k : fixture::targets()) {
        // Watcher at x = 0: view 5, reach 6 (hysteresis): 0..4 within view, 5 only within reach.
        ScanResult r = scan(k, c, marks, 0, c.n, 0, 0, 5, 6);
        CHECK_MSG((r.visible == std::vector<uint32_t>{0, 1, 2, 4}), "%s", k->name);
        CHECK_MSG((r.enters == std::vector<uint32_t>{0, 1, 4}), "%s", k->name);
        CHECK_MSG(r.met == 1, "%s", k->name);
        for (uint32_t i = 0; i <= 5; ++i) CHECK_MSG(r.mark[i] == kKept, "%s mark %u", k->name, i);
        CHECK_MSG(r.mark[20] == kOpen && r.mark[6] == 0, "%s", k->name);
    }
}

TEST_CASE(aoi_scan_with_masks_matches_scalar_and_filters) {
    fixture::Rng rng(78);
    const uint32_t sizes[] = {1, 3, 4, 5, 8, 9, 16, 17, 100, 1000};
    const uint32_t filters[] = {0xffffffffu, 1, 2, 6, 0x80000000u, 0};
    for (uint32_t n : sizes) {
        for (int round = 0; round < 12; ++round) {
            const uint32_t lead = 16 * rng.below(3);
            fixture::Cloud c(lead + n + 16);
            for (uint32_t i = 0; i < c.n; ++i) {
                c.x[i] = static_cast<float>(static_cast<int>(rng.below(41)) - 20);
                c.y[i] = static_cast<float>(static_cast<int>(rng.below(41)) - 20);
                c.mask[i] = rng.below(4) == 0 ? 0 : 1u << rng.below(32);
            }
            std::vector<uint32_t> marks(c.n);
            const uint32_t values[] = {0, kOpen, kKept, 5};
            for (auto& m : marks) m = values[rng.below(4)];
            const uint32_t filter = filters[rng.below(6)];
            const float view = static_cast<float>(rng.below(15)), reach = view + static_cast<float>(rng.below(4));
            const ScanResult want = scan(fixture::reference(), c, marks, lead, n, 0, 0, view, reach, true, filter);
            for (const KernelTable* k : fixture::targets())
                CHECK_MSG(scan(k, c, marks, lead, n, 0, 0, view, reach, true, filter) == want, "%s n=%u round %d", k->name, n,
                          round);
            // The reference itself: nothing filtered out is kept, met or entered.
            for (uint32_t p : want.visible) CHECK_MSG((c.mask[p] & filter) != 0, "visible position %u filtered out", p);
            for (uint32_t i = lead; i < lead + n; ++i)
                if ((c.mask[i] & filter) == 0) CHECK_MSG(want.mark[i] == marks[i], "mark of filtered position %u changed", i);
        }
    }
}

// The search the incremental commit makes in a watcher's list: every target returns the first
// match, as std::find does, from any alignment and length, and none past the end (the value
// sought is put right after it).
TEST_CASE(find_u32_returns_the_first_match_on_every_target) {
    fixture::Rng rng(81);
    std::vector<uint32_t> buf(1200);
    for (uint32_t n : {0u, 1u, 3u, 4u, 5u, 7u, 8u, 15u, 16u, 17u, 31u, 33u, 100u, 1000u}) {
        for (int round = 0; round < 30; ++round) {
            const uint32_t lead = rng.below(17);
            for (auto& x : buf) x = rng.below(round % 3 == 0 ? 4 : 1000);
            const uint32_t* t = buf.data() + lead;
            const uint32_t v = round % 5 == 4 ? 5000 : (n && round % 2 ? t[rng.below(n)] : rng.below(1000));
            buf[lead + n] = v;  // just past the end: never found there
            const uint32_t want = static_cast<uint32_t>(std::find(t, t + n, v) - t);
            for (const KernelTable* k : fixture::targets())
                CHECK_MSG(k->find_u32(t, n, v) == want, "%s n=%u round %d", k->name, n, round);
        }
    }
}

// The incremental update's scan of one changed entity against still watchers: every target
// reports exactly the positions the scalar reference does, which are those where the entity
// entered a watcher's view or left its reach (each side filtered by the watcher's mask). Every
// third round passes the views as the reaches too (no margin: the kernels' one-column path).
TEST_CASE(aoi_mover_matches_scalar_and_its_definition) {
    fixture::Rng rng(79);
    const uint32_t sizes[] = {0, 1, 3, 4, 5, 8, 9, 16, 17, 100, 1000};
    const uint32_t masks[] = {0, 1, 2, 3, 0xffffffffu};
    for (uint32_t n : sizes) {
        for (int round = 0; round < 20; ++round) {
            const uint32_t lead = 16 * rng.below(3);
            fixture::Cloud w(lead + n + 16), reach2(lead + n + 16);  // w.r: squared view; reach2.x: squared reach
            for (uint32_t i = 0; i < w.n; ++i) {
                w.x[i] = static_cast<float>(static_cast<int>(rng.below(41)) - 20);
                w.y[i] = static_cast<float>(static_cast<int>(rng.below(41)) - 20);
                if (round % 5 == 4) w.x[i] *= 1e18f;
                w.mask[i] = masks[rng.below(5)];
                if (rng.below(4) == 0) {
                    w.r[i] = reach2.x[i] = -1.0f;  // no watcher here
                } else {
                    const float view = static_cast<float>(rng.below(15)), reach = view + static_cast<float>(rng.below(4));
                    w.r[i] = view * view, reach2.x[i] = reach * reach;
                }
            }
            const uint32_t run[2] = {lead, lead + n};
            AoiMoverWindow mw{w.x, w.y, w.r, round % 3 == 2 ? w.r : reach2.x, w.mask, run, 1,
                              static_cast<float>(static_cast<int>(rng.below(11)) - 5), 0.5f * rng.below(3),
                              static_cast<float>(static_cast<int>(rng.below(11)) - 5), 0.5f * rng.below(3),
                              masks[rng.below(5)], masks[rng.below(5)]};
            std::vector<uint32_t> want(w.cap + kMaxWidth), got(w.cap + kMaxWidth);
            const uint32_t m = fixture::reference()->aoi_mover(mw, want.data());
            want.resize(m);
            std::vector<uint32_t> defined;
            for (uint32_t i = lead; i < lead + n; ++i) {
                const float ndx = mw.nx - w.x[i], ndy = mw.ny - w.y[i], odx = mw.ox - w.x[i], ody = mw.oy - w.y[i];
                const float dn = ndx * ndx + ndy * ndy, d_o = odx * odx + ody * ody;
                const bool pn = (w.mask[i] & mw.nmask) != 0, po = (w.mask[i] & mw.omask) != 0;
                const bool vn = pn && dn < w.r[i], rn = pn && dn < mw.reach_squared[i];
                const bool vo = po && d_o < w.r[i], ro = po && d_o < mw.reach_squared[i];
                if ((vn && !vo) || (ro && !rn)) defined.push_back(i);
            }
            CHECK_MSG(want == defined, "scalar n=%u round %d", n, round);
            for (const KernelTable* k : fixture::targets()) {
                const uint32_t h = k->aoi_mover(mw, got.data());
                CHECK_MSG(std::vector<uint32_t>(got.begin(), got.begin() + h) == want, "%s n=%u round %d", k->name, n, round);
            }
        }
    }
}

// All the windows of a cover go in one call: every target gives what one call per window gives
// (the same positions in the same order, counts and marks), for scans and for movers.
TEST_CASE(aoi_scan_and_aoi_mover_over_several_windows_equal_one_call_per_window) {
    fixture::Rng rng(87);
    for (int round = 0; round < 200; ++round) {
        WatcherScene scene(rng, round, false);
        auto& [c, reach2, runs, marks, filtered, filter, view, reach] = scene;
        const ScanResult want = scan_runs(fixture::reference(), c, marks, runs, 0, 0, view, reach, filtered, filter, true);
        AoiMoverWindow mw{c.x, c.y, c.r, reach2.x, c.mask, nullptr, 0,
                          static_cast<float>(static_cast<int>(rng.below(11)) - 5), 0.5f * rng.below(3),
                          static_cast<float>(static_cast<int>(rng.below(11)) - 5), 0.5f * rng.below(3),
                          1u + rng.below(7), 1u + rng.below(7)};
        std::vector<uint32_t> moved;  // one call per window, outputs one after another
        for (size_t j = 0; j < runs.size(); j += 2) {
            std::vector<uint32_t> out(c.cap + kMaxWidth);
            mw.runs = runs.data() + j, mw.n_runs = 1;
            out.resize(fixture::reference()->aoi_mover(mw, out.data()));
            moved.insert(moved.end(), out.begin(), out.end());
        }
        mw.runs = runs.data(), mw.n_runs = uint32_t(runs.size() / 2);
        for (const KernelTable* k : fixture::targets()) {
            CHECK_MSG(scan_runs(k, c, marks, runs, 0, 0, view, reach, filtered, filter) == want, "%s scan round %d", k->name,
                      round);
            std::vector<uint32_t> got(moved.size() + c.cap + kMaxWidth);
            got.resize(k->aoi_mover(mw, got.data()));
            CHECK_MSG(got == moved, "%s mover round %d", k->name, round);
        }
    }
}

// The scan that hands its distances on to the interest pass: on every target, what aoi_scan
// gives (positions, counts, marks), and beside each visible position its d2 from the watcher,
// bit for bit the float32 the pass would compute from the positions (dx * dx + dy * dy); with no
// enters asked for, over a list not marked, the same without enters.
TEST_CASE(aoi_scan_d2_matches_aoi_scan_and_hands_on_each_d2) {
    fixture::Rng rng(88);
    int had_enters = 0;  // rounds where the quiet scan skips enters a scan would keep
    for (int round = 0; round < 300; ++round) {
        WatcherScene scene(rng, round, round % 7 == 3);
        auto& [c, reach2, runs, marks, filtered, filter, view, reach] = scene;
        const float cx = 0.25f * static_cast<float>(static_cast<int>(rng.below(81)) - 40);
        const float cy = 0.5f * static_cast<float>(static_cast<int>(rng.below(41)) - 20);
        const bool per_window = round % 3 == 1;
        const ScanResult want = scan_runs(fixture::reference(), c, marks, runs, cx, cy, view, reach, filtered, filter, per_window);
        for (const KernelTable* k : fixture::targets()) {
            std::vector<float> d2;
            CHECK_MSG(scan_runs(k, c, marks, runs, cx, cy, view, reach, filtered, filter, per_window, &d2) == want,
                      "%s round %d", k->name, round);
            CHECK_MSG(d2.size() == want.visible.size(), "%s round %d: %zu distances", k->name, round, d2.size());
            for (size_t i = 0; i < d2.size() && i < want.visible.size(); ++i) {
                const uint32_t p = want.visible[i];
                const float dx = c.x[p] - cx, dy = c.y[p] - cy, expect = dx * dx + dy * dy;
                CHECK_MSG(std::memcmp(&d2[i], &expect, sizeof expect) == 0, "%s round %d: d2 of position %u", k->name,
                          round, p);
            }
        }
        // A scan with no enters asked for, over a last list not marked (no mark is `open`): the
        // same positions, marks and d2, no enters and nothing met.
        std::vector<uint32_t> unmarked = marks;
        for (uint32_t& m : unmarked) m = m == kOpen ? 0 : m;
        std::vector<float> want_d2;
        ScanResult quiet = scan_runs(fixture::reference(), c, unmarked, runs, cx, cy, view, reach, filtered, filter,
                                     per_window, &want_d2);
        had_enters += !quiet.enters.empty();
        CHECK_MSG(quiet.met == 0, "round %d: %u met with no mark open", round, quiet.met);
        quiet.enters.clear();
        for (const KernelTable* k : fixture::targets()) {
            std::vector<float> d2;
            CHECK_MSG(scan_runs(k, c, unmarked, runs, cx, cy, view, reach, filtered, filter, per_window, &d2, true) == quiet,
                      "%s quiet round %d", k->name, round);
            CHECK_MSG(d2 == want_d2, "%s quiet round %d: distances", k->name, round);
        }
    }
    CHECK_MSG(had_enters > 100, "%d rounds with enters", had_enters);
}

// A watcher that moved is rescanned and searched for as a mover in one pass: every target gives
// what aoi_scan and aoi_mover give over the same windows (the scan's positions, counts and marks,
// the mover's positions), filtered or not. Every third round has no margin: the watcher's reach
// is its view and the views are passed as the reaches (the one-column path).
TEST_CASE(aoi_scan_mover_equals_aoi_scan_and_aoi_mover) {
    fixture::Rng rng(89);
    for (int round = 0; round < 300; ++round) {
        WatcherScene scene(rng, round, round % 7 == 6);
        auto& [c, reach2, runs, marks, filtered, filter, view, reach] = scene;
        const bool one_reach = round % 3 == 2;
        if (one_reach) reach = view;
        const float cx = static_cast<float>(static_cast<int>(rng.below(11)) - 5), cy = 0.5f * rng.below(3);
        AoiMoverWindow mw{c.x, c.y, c.r, one_reach ? c.r : reach2.x, c.mask, runs.data(), uint32_t(runs.size() / 2),
                          static_cast<float>(static_cast<int>(rng.below(11)) - 5), 0.5f * rng.below(3), cx, cy,
                          1u + rng.below(7), 1u + rng.below(7)};
        const ScanResult want = scan_runs(fixture::reference(), c, marks, runs, cx, cy, view, reach, filtered, filter);
        const std::vector<uint32_t> moved = reference_moved(mw, c.cap, runs);
        for (const KernelTable* k : fixture::targets()) {
            uint32_t* mark = aligned_marks(marks, c.cap);
            std::vector<uint32_t> visible(c.cap * 4 + 2 * kMaxWidth), enters(c.cap * 4 + 2 * kMaxWidth);
            std::vector<uint32_t> out(c.cap * 4 + 2 * kMaxWidth);
            AoiMeet meet{visible.data(), enters.data(), 0, 0, 0};
            const AoiWindow w{c.x, c.y, mark, runs.data(), uint32_t(runs.size() / 2), cx, cy, view, reach, kOpen, kKept,
                              filtered ? c.mask : nullptr, filter};
            out.resize(k->aoi_scan_mover(w, mw, meet, out.data()));
            const ScanResult got = scan_result(meet, visible, enters, mark, c.n);
            std::free(mark);
            CHECK_MSG(got == want, "%s scan round %d", k->name, round);
            CHECK_MSG(out == moved, "%s mover round %d", k->name, round);
        }
    }
}

// With no margin, a moved watcher's rescan may recompute its last list instead of marking it
// (AoiWindow::ox): every target reports, window by window and each position once (kept marks),
// what is within view now (visible), now and not then (enters), then and not now (leaves), then
// being both ends where they were (ox, oy, with the masks om), filtered or not; and the same
// positions as aoi_mover for the watchers that see it move.
TEST_CASE(aoi_scan_mover_recounting_the_last_list_follows_its_definition) {
    fixture::Rng rng(97);
    for (int round = 0; round < 300; ++round) {
        WatcherScene scene(rng, round, round % 7 == 6);
        auto& [c, reach2, runs, marks, filtered, filter, view, reach] = scene;
        reach = view;
        fixture::Cloud old(c.n);
        for (uint32_t i = 0; i < c.n; ++i) {  // a third moved or changed mask since
            const bool moved = rng.below(3) == 0;
            old.x[i] = moved ? c.x[i] + static_cast<float>(static_cast<int>(rng.below(5)) - 2) : c.x[i];
            old.y[i] = moved ? c.y[i] + static_cast<float>(static_cast<int>(rng.below(5)) - 2) : c.y[i];
            old.mask[i] = moved && rng.below(2) ? 1u << rng.below(3) : c.mask[i];
        }
        const float cx = static_cast<float>(static_cast<int>(rng.below(11)) - 5), cy = 0.5f * rng.below(3);
        const float ox = cx + static_cast<float>(static_cast<int>(rng.below(5)) - 2), oy = cy + 0.5f * rng.below(3);
        AoiMoverWindow mw{c.x, c.y, c.r, c.r, c.mask, runs.data(), uint32_t(runs.size() / 2), ox, oy, cx, cy,
                          1u + rng.below(7), 1u + rng.below(7)};
        std::vector<uint32_t> want_visible, want_enters, want_leaves, want_mark(marks);
        for (size_t j = 0; j < runs.size(); j += 2)
            for (uint32_t i = runs[j]; i < runs[j + 1]; ++i) {
                const float dx = c.x[i] - cx, dy = c.y[i] - cy, tx = old.x[i] - ox, ty = old.y[i] - oy;
                const bool now = (!filtered || (c.mask[i] & filter)) && dx * dx + dy * dy < reach * reach;
                const bool then = (!filtered || (old.mask[i] & filter)) && tx * tx + ty * ty < reach * reach;
                if (!(now || then) || want_mark[i] == kKept) continue;
                want_mark[i] = kKept;
                if (now) want_visible.push_back(i);
                if (now && !then) want_enters.push_back(i);
                if (then && !now) want_leaves.push_back(i);
            }
        const std::vector<uint32_t> moved = reference_moved(mw, c.cap, runs);
        for (const KernelTable* k : fixture::targets()) {
            uint32_t* mark = aligned_marks(marks, c.cap);
            std::vector<uint32_t> visible(c.cap * 4 + 2 * kMaxWidth), enters(c.cap * 4 + 2 * kMaxWidth);
            std::vector<uint32_t> leaves(c.cap * 4 + 2 * kMaxWidth), out(c.cap * 4 + 2 * kMaxWidth);
            AoiMeet meet{visible.data(), enters.data(), 0, 0, 0};
            meet.leaves = leaves.data();
            AoiWindow w{c.x, c.y, mark, runs.data(), uint32_t(runs.size() / 2), cx, cy, view, reach, kOpen, kKept,
                        filtered ? c.mask : nullptr, filter};
            w.ox = old.x, w.oy = old.y, w.om = filtered ? old.mask : nullptr;
            out.resize(k->aoi_scan_mover(w, mw, meet, out.data()));
            visible.resize(meet.n_visible), enters.resize(meet.n_enter), leaves.resize(meet.n_leave);
            const bool marks_same = std::equal(want_mark.begin(), want_mark.end(), mark);
            std::free(mark);
            CHECK_MSG(visible == want_visible && enters == want_enters && leaves == want_leaves, "%s lists round %d",
                      k->name, round);
            CHECK_MSG(marks_same, "%s marks round %d", k->name, round);
            CHECK_MSG(out == moved, "%s mover round %d", k->name, round);
        }
    }
}

// The incremental update's pass over the layer: every target reports exactly the slots of
// [first, last) whose x, y (as floats: -0 equals +0) or mask differ from the copy, ascending,
// and whether a mask there is 0; nothing outside the range counts.
TEST_CASE(aoi_changed_reports_the_changed_slots_on_every_target) {
    fixture::Rng rng(83);
    const float values[] = {0.0f, -0.0f, 1.0f, -1.5f, 1e30f, 3.25f};
    for (uint32_t n : {0u, 1u, 3u, 4u, 5u, 8u, 15u, 16u, 17u, 100u, 256u, 300u}) {
        for (int round = 0; round < 30; ++round) {
            fixture::Cloud now(n + 64), copy(n + 64);
            for (uint32_t i = 0; i < now.n; ++i) {
                now.x[i] = values[rng.below(6)], now.y[i] = values[rng.below(6)];
                now.mask[i] = round % 3 == 0 ? rng.below(3) : 1u + rng.below(3);
                const uint32_t change = rng.below(round % 2 ? 4 : 40);  // some rounds change few
                copy.x[i] = change == 1 ? values[rng.below(6)] : now.x[i];
                copy.y[i] = change == 2 ? values[rng.below(6)] : now.y[i];
                copy.mask[i] = change == 3 ? rng.below(3) : now.mask[i];
                if (change == 0 && rng.below(2)) copy.x[i] = now.x[i] == 0.0f ? -now.x[i] : now.x[i];  // -0 vs +0
            }
            const uint32_t first = 16 * rng.below(3), last = first + n;
            std::vector<uint32_t> want;
            bool want_zero = false;
            for (uint32_t i = first; i < last; ++i) {
                if (now.x[i] != copy.x[i] || now.y[i] != copy.y[i] || now.mask[i] != copy.mask[i]) want.push_back(i);
                want_zero |= now.mask[i] == 0;
            }
            const AoiChanges ch{now.x, now.y, now.mask, copy.x, copy.y, copy.mask, first, last};
            for (const KernelTable* k : fixture::targets()) {
                std::vector<uint32_t> got(now.cap + kMaxWidth);
                bool zero = false, kept = true;
                const uint32_t m = k->aoi_changed(ch, got.data(), &zero);
                k->aoi_changed(ch, got.data(), &kept);  // never clears it
                got.resize(m);
                CHECK_MSG(got == want && zero == want_zero && kept, "%s n=%u round %d", k->name, n, round);
            }
        }
    }
}

// The positions holding a value, as the incremental update lists its movers: every target
// gives all of them, ascending, and none at or past n (the value is put there too).
TEST_CASE(match_u32_lists_every_match_on_every_target) {
    fixture::Rng rng(85);
    for (uint32_t n : {0u, 1u, 3u, 4u, 5u, 8u, 15u, 16u, 17u, 33u, 100u, 1000u}) {
        for (int round = 0; round < 30; ++round) {
            fixture::Cloud t(n + 32);
            const uint32_t v = round % 4 == 3 ? 0u : 7u;
            for (uint32_t i = 0; i < t.n; ++i) t.mask[i] = rng.below(round % 2 ? 2 : 20) ? 5u + rng.below(3) : v;
            for (uint32_t i = n; i < t.n; ++i) t.mask[i] = v;
            std::vector<uint32_t> want;
            for (uint32_t i = 0; i < n; ++i)
                if (t.mask[i] == v) want.push_back(i);
            for (const KernelTable* k : fixture::targets()) {
                std::vector<uint32_t> got(t.cap + kMaxWidth);
                got.resize(k->match_u32(t.mask, n, v, got.data()));
                CHECK_MSG(got == want, "%s n=%u round %d", k->name, n, round);
            }
        }
    }
}
