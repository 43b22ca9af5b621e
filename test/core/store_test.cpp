// The id map and swap-remove store against std::unordered_map.
#include <unordered_map>

#include "check.hpp"
#include "fixtures.hpp"

using namespace soageo;

TEST_CASE(store_matches_a_model_under_random_operations) {
    const uint32_t cap = 4096;
    std::vector<unsigned char> col_block(columns_bytes(cap)), map_block(idmap_bytes(idmap_cap_for(cap)));
    Store s{columns_carve(col_block.data(), cap), idmap_init(map_block.data(), idmap_cap_for(cap)), 0, 0};
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
