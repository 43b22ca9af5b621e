// Snapshot throughput: layer:dump()'s encoding and soageo.load's checks + decoding, against a
// plain memcpy of the same number of bytes (the ceiling).
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "../test/core/fixtures.hpp"
#include "bench.hpp"
#include "core/snapshot.hpp"

using namespace soageo;

namespace {

using bench::best_of;

}  // namespace

int main() {
    std::printf("snapshot throughput (best of 10, one run; GB/s of snapshot bytes)\n");
    for (uint32_t n : {10000u, 1000000u}) {
        std::vector<unsigned char> col(columns_bytes(n)), map(idmap_bytes(idmap_cap_for(n)));
        Store s{columns_carve(col.data(), n), idmap_init(map.data(), idmap_cap_for(n)), 0, 0, {}, 0, 0, 0};
        fixture::Rng g(n);
        for (uint32_t i = 0; i < n; ++i)
            store_set(s, static_cast<int64_t>(g.next() >> 1), static_cast<float>(g.uniform(0, 1e4)),
                      static_cast<float>(g.uniform(0, 1e4)), static_cast<float>(g.uniform(0, 5)), 1);
        size_t bytes = snapshot_bytes(n);
        std::vector<unsigned char> snap(bytes), copy(bytes);
        std::vector<unsigned char> col2(columns_bytes(n)), map2(idmap_bytes(idmap_cap_for(n)));
        double t_copy = best_of(10, [&] { std::memcpy(copy.data(), snap.data(), bytes); });
        double t_dump = best_of(10, [&] { snapshot_write(s, snap.data()); });
        uint32_t count = 0;
        double t_load = best_of(10, [&] {
            Store t{columns_carve(col2.data(), n), idmap_init(map2.data(), idmap_cap_for(n)), 0, 0, {}, 0, 0, 0};
            if (snapshot_check(snap.data(), bytes, &count) || snapshot_read(snap.data(), count, t)) std::puts("rejected!");
        });
        double gb = bytes / 1e9;
        std::printf("%8u entities, %9zu bytes: memcpy %6.2f GB/s   dump %6.2f GB/s (%.2f of memcpy)   load %6.2f GB/s (%.2f of memcpy)\n",
                    n, bytes, gb / t_copy, gb / t_dump, t_copy / t_dump, gb / t_load, t_copy / t_load);
    }
    std::printf("load = header and checksum check, column copy, finiteness checks and rebuilding the id map\n");
    return 0;
}
