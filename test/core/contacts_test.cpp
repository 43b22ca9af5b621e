// The incremental contacts' search kernel: every target reports exactly the positions the
// scalar reference does, in the same order, and those are the boxes that overlap the searching
// one by the four comparisons of its definition (touching counts, NaN never overlaps).
#include <limits>
#include <vector>

#include "check.hpp"
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
