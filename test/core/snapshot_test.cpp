// Snapshots whose checksum is valid but whose content is not: the reader must refuse them.
#include <cmath>
#include <cstring>
#include <limits>

#include "check.hpp"
#include "core/snapshot.hpp"
#include "fixtures.hpp"

using namespace soageo;

namespace {

struct Owned {
    std::vector<unsigned char> col, map;
    Store s;
    explicit Owned(uint32_t cap) : col(columns_bytes(cap)), map(idmap_bytes(idmap_cap_for(cap))) {
        s = Store{columns_carve(col.data(), cap), idmap_init(map.data(), idmap_cap_for(cap)), 0, 0, {}, 0, 0, 0};
    }
};

std::vector<unsigned char> dump(const Store& s) {
    std::vector<unsigned char> out(snapshot_bytes(s.n));
    snapshot_write(s, out.data());
    return out;
}

void reseal(std::vector<unsigned char>& b) {
    size_t body = b.size() - kSnapshotTrailer;
    uint64_t h = snapshot_checksum(b.data(), body);
    std::memcpy(b.data() + body, &h, 8);  // this test runs on little-endian hosts only
}

const char* load(const std::vector<unsigned char>& b) {
    uint32_t n = 0;
    if (const char* why = snapshot_check(b.data(), b.size(), &n)) return why;
    Owned o(n ? n : 1);
    return snapshot_read(b.data(), n, o.s);
}

}  // namespace

TEST_CASE(snapshot_rejects_bad_content_behind_a_valid_checksum) {
    Owned o(8);
    for (int i = 0; i < 5; ++i) store_set(o.s, i * 10, float(i), float(-i), 1.0f, 1u);
    std::vector<unsigned char> good = dump(o.s);
    CHECK(load(good) == nullptr);

    const size_t ids = kSnapshotHeader, xs = ids + 5 * 8, rs = xs + 2 * 5 * 4;
    auto poke_float = [&](size_t at, float v) {
        std::vector<unsigned char> b = good;
        std::memcpy(b.data() + at, &v, 4);
        reseal(b);
        return b;
    };
    CHECK(load(poke_float(xs + 4, std::numeric_limits<float>::quiet_NaN())) != nullptr);
    CHECK(load(poke_float(xs, std::numeric_limits<float>::infinity())) != nullptr);
    CHECK(load(poke_float(rs + 8, -1.0f)) != nullptr);
    CHECK(load(poke_float(rs, std::numeric_limits<float>::quiet_NaN())) != nullptr);

    std::vector<unsigned char> dup = good;
    std::memcpy(dup.data() + ids + 8, dup.data() + ids, 8);
    reseal(dup);
    CHECK(load(dup) != nullptr);

    std::vector<unsigned char> big = good;
    uint32_t huge = kMaxEntities + 1;
    std::memcpy(big.data() + 8, &huge, 4);
    reseal(big);
    CHECK(load(big) != nullptr);
}
