// The interest pass's kernels: every target's interest_schedule writes exactly what a plain
// pair-by-pair reading of its contract (kernels.hpp, ScheduleLanes) gives, deadlines across the
// wrap of the 32-bit update numbers included; and every target's interest_select chooses what
// counting each candidate's smaller d2 one by one gives (SelectLanes), ties included, with a
// guess of the boundary that holds or not.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "check.hpp"
#include "core/kernels.hpp"
#include "fixtures.hpp"

using namespace soageo;

namespace {

struct Pairs {
    std::vector<float> d2;
    std::vector<uint32_t> deadline, period, since;
};

struct Schedule {
    std::vector<uint32_t> deadline, period, since, due, first;
    std::vector<uint32_t> at_offset;  // with a single first listing: its period's pairs by offset,
    uint32_t same = 0;                // and their count
    bool operator==(const Schedule& o) const {
        return deadline == o.deadline && period == o.period && since == o.since && due == o.due &&
               first == o.first && at_offset == o.at_offset && same == o.same;
    }
};

// The contract, one pair at a time.
Schedule by_pairs(const Pairs& in, uint32_t n, const float* limit, uint32_t tick) {
    Schedule out;
    for (uint32_t b = 0; b < n; ++b) {
        uint32_t p = 1;
        for (int k = 0; k < kScheduleLimits; ++k) p += limit[k] <= in.d2[b] ? 1 : 0;
        uint32_t deadline = in.deadline[b], since = in.since[b];
        const bool listed = since != 0;
        if (listed && p != in.period[b]) {
            const uint32_t last = deadline - since;
            if (int32_t(last + p - deadline) < 0) deadline = last + p;
            since = deadline - last;
        }
        const bool due = int32_t(deadline - tick) <= 0;
        if (due && listed) deadline = tick + p, since = p;
        if (due) out.due.push_back(b);
        if (due && !listed) out.first.push_back(b);
        out.deadline.push_back(deadline);
        out.period.push_back(p);
        out.since.push_back(since);
    }
    if (out.first.size() == 1) {
        const uint32_t p = out.period[out.first[0]], lim = std::min(p, n + 1);
        out.at_offset.assign(lim, 0);
        for (uint32_t b = 0; b < n; ++b) {
            if (out.period[b] != p) continue;
            ++out.same;
            const uint32_t ahead = out.deadline[b] - tick;
            if (out.since[b] != 0 && ahead >= 1 && ahead <= lim) ++out.at_offset[ahead - 1];
        }
    }
    return out;
}

Schedule by_kernel(const KernelTable* k, const Pairs& in, uint32_t n, const float* limit, uint32_t tick) {
    Pairs work = in;  // padded: the kernel reads and writes whole blocks
    std::vector<uint32_t> due(n + kMaxWidth), first(n + kMaxWidth);
    // In place, or from arrays of their own (a list kept whole).
    Pairs from = in;
    const bool apart = n % 2 == 1;
    ScheduleLanes lanes{work.d2.data(),
                        apart ? from.deadline.data() : work.deadline.data(),
                        apart ? from.period.data() : work.period.data(),
                        apart ? from.since.data() : work.since.data(),
                        work.deadline.data(), work.period.data(), work.since.data(), limit, n, tick,
                        due.data(), first.data(), 0, 0, 0, {}};
    if (apart) std::fill(work.deadline.begin(), work.deadline.end(), 0xdeadu);
    k->interest_schedule(lanes);
    Schedule out;
    out.deadline.assign(work.deadline.begin(), work.deadline.begin() + n);
    out.period.assign(work.period.begin(), work.period.begin() + n);
    out.since.assign(work.since.begin(), work.since.begin() + n);
    out.due.assign(due.begin(), due.begin() + lanes.n_due);
    out.first.assign(first.begin(), first.begin() + lanes.n_first);
    if (lanes.n_first == 1) {
        out.at_offset.assign(lanes.at_offset, lanes.at_offset + std::min(out.period[out.first[0]], n + 1));
        out.same = lanes.same;
    }
    return out;
}

}  // namespace

TEST_CASE(interest_schedule_follows_each_pair_as_its_contract_on_every_target) {
    fixture::Rng rng(36);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (uint32_t n : {0u, 1u, 3u, 4u, 5u, 8u, 15u, 16u, 17u, 20u, 33u, 70u}) {
        for (int round = 0; round < 40; ++round) {
            // Thresholds of a band 10 table with max_period 1 + t (NaN past them), or none at all.
            float limit[kScheduleLimits];
            const uint32_t thresholds = round % 5 == 4 ? 0 : 1 + rng.below(kScheduleLimits);
            for (uint32_t k = 0; k < kScheduleLimits; ++k) limit[k] = k < thresholds ? float((k + 1) * (k + 1)) * 100.0f : nan;
            // Updates near 0, near the wrap of 32 bits, and anywhere.
            const uint32_t tick = round % 3 == 0 ? 1u + rng.below(20) : round % 3 == 1 ? 0xfffffff0u + rng.below(32)
                                                                                         : uint32_t(rng.next());
            Pairs in;
            for (uint32_t b = 0; b < n + kMaxWidth; ++b) {
                const uint32_t k = rng.below(kScheduleLimits + 2);
                // d2 on a threshold, just beside it, or anywhere below the largest.
                float d2 = k < kScheduleLimits && rng.below(3) == 0 ? float((k + 1) * (k + 1)) * 100.0f
                                                                     : float(rng.uniform(0, 9000));
                if (rng.below(8) == 0) d2 = std::nextafter(d2, rng.below(2) ? 0.0f : 1e9f);
                const uint32_t period = rng.below(10);
                const uint32_t since = rng.below(3) == 0 ? 0 : 1 + rng.below(period + 2);
                const uint32_t deadline = tick + uint32_t(int32_t(rng.below(20)) - 8);
                in.d2.push_back(d2);
                in.period.push_back(period);
                in.since.push_back(since);
                in.deadline.push_back(deadline);
            }
            // Every fourth round, a single pair never listed (the usual first listing).
            if (round % 4 == 1 && n > 0) {
                for (uint32_t b = 0; b < n; ++b) in.since[b] = in.since[b] ? in.since[b] : 1 + rng.below(4);
                const uint32_t b = rng.below(n);
                in.since[b] = 0, in.deadline[b] = tick;
            }
            const Schedule want = by_pairs(in, n, limit, tick);
            for (const KernelTable* k : fixture::targets())
                CHECK_MSG(by_kernel(k, in, n, limit, tick) == want, "%s n=%u round %d", k->name, n, round);
        }
    }
}

namespace {

struct Selection {
    std::vector<uint32_t> order;
    float edge = 0, next = 0;
    bool operator==(const Selection& o) const { return order == o.order && edge == o.edge && next == o.next; }
};

// The contract, one candidate at a time: chosen when fewer than n others have a smaller d2.
Selection select_by_counts(const std::vector<float>& d2, uint32_t m, uint32_t n) {
    Selection out;
    out.next = std::numeric_limits<float>::infinity();
    for (uint32_t i = 0; i < m; ++i) {
        uint32_t smaller = 0;
        for (uint32_t j = 0; j < m; ++j) smaller += d2[j] < d2[i];
        if (smaller < n) out.order.push_back(i), out.edge = std::max(out.edge, d2[i]);
        else out.next = std::min(out.next, d2[i]);
    }
    return out;
}

Selection select_by_kernel(const KernelTable* k, const std::vector<float>& d2, uint32_t m, uint32_t n, float below) {
    std::vector<uint32_t> order(m + kMaxWidth, 0xdeadbeefu);
    SelectLanes s{d2.data(), m, n, below, order.data(), 0, -1.0f, -1.0f};
    k->interest_select(s);
    order.resize(s.chosen);
    return Selection{order, s.edge, s.next};
}

// Whether a guess holds: exactly n of the m d2 below it.
bool guess_holds(const std::vector<float>& d2, uint32_t m, uint32_t n, float below) {
    uint32_t under = 0;
    for (uint32_t i = 0; i < m; ++i) under += d2[i] < below;
    return below > 0.0f && under == n;
}

// Guesses of the boundary: none, one that holds (halfway between the n-th and the next d2 when
// they differ), and ones beside it or anywhere.
std::vector<float> boundary_guesses(const std::vector<float>& d2, uint32_t m, uint32_t n, fixture::Rng& rng) {
    std::vector<float> sorted(d2.begin(), d2.begin() + m);
    std::sort(sorted.begin(), sorted.end());
    const float near = sorted[n - 1], far = sorted[n];
    return {0.0f, near + (far - near) * 0.5f, far, near, std::nextafter(far, 0.0f),
            float(rng.uniform(0, 2500)), std::numeric_limits<float>::infinity()};
}

}  // namespace

TEST_CASE(interest_select_chooses_as_counting_each_candidate_on_every_target) {
    fixture::Rng rng(37);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    int ties = 0, plain = 0, held = 0;
    for (uint32_t m = 2; m <= kSelectLanesMost; ++m) {
        for (int round = 0; round < 30; ++round) {
            const uint32_t n = 1 + rng.below(m - 1);
            // d2 anywhere, or from a few values (ties, across the boundary too), with 0 and the
            // largest float among them; past m, garbage the kernel must not read as candidates.
            const uint32_t values = round % 3 == 0 ? 1 + rng.below(4) : 0;
            std::vector<float> d2(m + kMaxWidth);
            for (uint32_t i = 0; i < m + kMaxWidth; ++i) {
                float v = values ? float(rng.below(values)) * 2.5f : float(rng.uniform(0, 2500));
                if (rng.below(40) == 0) v = rng.below(2) ? 0.0f : std::numeric_limits<float>::max();
                d2[i] = i < m ? v : (rng.below(2) ? nan : -1.0f);
            }
            const Selection want = select_by_counts(d2, m, n);
            (want.order.size() == n ? plain : ties) += 1;
            for (const float below : boundary_guesses(d2, m, n, rng)) {
                held += guess_holds(d2, m, n, below);
                for (const KernelTable* k : fixture::targets())
                    CHECK_MSG(select_by_kernel(k, d2, m, n, below) == want, "%s m=%u n=%u round %d below %g", k->name, m,
                              n, round, double(below));
            }
        }
    }
    // `held` counts the guesses that hold by the d2 alone (the outputs are the same either way, by
    // design): enough of them, so that the one-pass path is the one compared.
    CHECK_MSG(ties > 100 && plain > 1000 && held > 1000, "ties %d, plain %d, guesses that hold %d", ties, plain, held);
}
