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
