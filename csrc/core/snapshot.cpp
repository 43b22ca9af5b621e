#include "snapshot.hpp"

#include <cmath>
#include <cstring>
#include <initializer_list>

namespace soageo {
namespace {

const unsigned char kMagic[4] = {'S', 'G', 'E', 'O'};

constexpr bool little_endian() noexcept { return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__; }

uint32_t byteswap(uint32_t v) noexcept { return __builtin_bswap32(v); }
uint64_t byteswap(uint64_t v) noexcept { return __builtin_bswap64(v); }

// A little-endian word of the snapshot format, whatever the host's byte order.
template <class Word>
Word load_le(const unsigned char* p) noexcept {
    Word v;
    std::memcpy(&v, p, sizeof v);
    return little_endian() ? v : byteswap(v);
}

template <class Word>
void store_le(unsigned char* p, Word v) noexcept {
    if (!little_endian()) v = byteswap(v);
    std::memcpy(p, &v, sizeof v);
}

// Copies a column of n Words (uint32_t for x, y, r, mask; uint64_t for ids) to the format's
// little-endian bytes or back (one byte swap either way on a big-endian host); returns its bytes.
template <class Word>
size_t copy_column(void* to, const void* from, uint32_t n) noexcept {
    const size_t bytes = size_t(n) * sizeof(Word);
    if (little_endian()) std::memcpy(to, from, bytes);
    for (size_t i = 0; !little_endian() && i < bytes; i += sizeof(Word)) {
        Word v;
        std::memcpy(&v, static_cast<const unsigned char*>(from) + i, sizeof v);
        store_le(static_cast<unsigned char*>(to) + i, v);
    }
    return bytes;
}

void write_header(unsigned char* out, uint32_t n) noexcept {
    std::memcpy(out, kMagic, 4);
    store_le<uint32_t>(out + 4, kSnapshotVersion);  // then the flags, 0
    store_le<uint32_t>(out + 8, n);
    store_le<uint32_t>(out + 12, 0);
}

void seal(unsigned char* out, uint32_t n) noexcept {
    size_t body = snapshot_bytes(n) - kSnapshotTrailer;
    store_le<uint64_t>(out + body, snapshot_checksum(out, body));
}

// Why an entity of a snapshot cannot be loaded, or null when it can: then it is in `m` (at i).
const char* check_entity(IdMap& m, uint32_t i, int64_t id, float x, float y, float r) noexcept {
    if (!std::isfinite(x) || !std::isfinite(y)) return "snapshot holds a non-finite position";
    if (!std::isfinite(r) || !(r >= 0.0f)) return "snapshot holds a bad radius";
    return idmap_insert_new(m, id, i) ? nullptr : "snapshot holds a duplicate id";
}

uint64_t rotl(uint64_t v, int k) noexcept { return (v << k) | (v >> (64 - k)); }

constexpr uint64_t kP1 = 0x9e3779b185ebca87ull, kP2 = 0xc2b2ae3d27d4eb4full, kP3 = 0x165667b19e3779f9ull;

}  // namespace

uint64_t snapshot_checksum(const unsigned char* data, size_t size) noexcept {
    uint64_t a = kP1 + kP2, b = kP2, c = 0, d = 0 - kP1;
    size_t i = 0;
    for (; i + 32 <= size; i += 32) {
        a = rotl(a + load_le<uint64_t>(data + i) * kP2, 31) * kP1;
        b = rotl(b + load_le<uint64_t>(data + i + 8) * kP2, 31) * kP1;
        c = rotl(c + load_le<uint64_t>(data + i + 16) * kP2, 31) * kP1;
        d = rotl(d + load_le<uint64_t>(data + i + 24) * kP2, 31) * kP1;
    }
    uint64_t h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + size;
    for (; i + 8 <= size; i += 8) h = rotl(h ^ (rotl(load_le<uint64_t>(data + i) * kP2, 31) * kP1), 27) * kP1 + kP3;
    for (; i < size; ++i) h = rotl(h ^ (data[i] * kP1), 11) * kP2;
    h ^= h >> 33;
    h *= kP2;
    h ^= h >> 29;
    h *= kP3;
    return h ^ (h >> 32);
}

void snapshot_write(const Store& s, unsigned char* out) noexcept {
    const uint32_t n = s.n;
    write_header(out, n);
    unsigned char* p = out + kSnapshotHeader;
    p += copy_column<uint64_t>(p, s.col.id, n);
    for (const void* col : {s.col.x, s.col.y, s.col.r}) p += copy_column<uint32_t>(p, col, n);
    copy_column<uint32_t>(p, s.col.mask, n);
    seal(out, n);
}

void snapshot_write_slots(const Store& s, const uint32_t* slots, uint32_t k, unsigned char* out) noexcept {
    write_header(out, k);
    unsigned char* p = out + kSnapshotHeader;
    const size_t col = size_t(k) * 4;  // a 4-byte column; the ids take two
    for (uint32_t i = 0; i < k; ++i) {
        uint32_t j = slots[i];
        unsigned char* px = p + 2 * col + 4 * size_t(i);  // entity i's x, then y, r and mask a column apart
        store_le<uint64_t>(p + 8 * size_t(i), static_cast<uint64_t>(s.col.id[j]));
        store_le<uint32_t>(px, float_bits(s.col.x[j]));
        store_le<uint32_t>(px + col, float_bits(s.col.y[j]));
        store_le<uint32_t>(px + 2 * col, float_bits(s.col.r[j]));
        store_le<uint32_t>(px + 3 * col, s.col.mask[j]);
    }
    seal(out, k);
}

SnapshotEntity snapshot_entity(const unsigned char* data, uint32_t n, uint32_t i) noexcept {
    const unsigned char* p = data + kSnapshotHeader;
    const unsigned char* px = p + size_t(n) * 8 + 4 * size_t(i);
    SnapshotEntity e;
    e.id = static_cast<int64_t>(load_le<uint64_t>(p + 8 * size_t(i)));
    e.x = bits_float(load_le<uint32_t>(px));
    e.y = bits_float(load_le<uint32_t>(px + size_t(n) * 4));
    e.r = bits_float(load_le<uint32_t>(px + size_t(n) * 8));
    e.mask = load_le<uint32_t>(px + size_t(n) * 12);
    return e;
}

const char* snapshot_check_content(const unsigned char* data, uint32_t n, IdMap& scratch) noexcept {
    for (uint32_t i = 0; i < n; ++i) {
        const SnapshotEntity e = snapshot_entity(data, n, i);
        if (const char* why = check_entity(scratch, i, e.id, e.x, e.y, e.r)) return why;
    }
    return nullptr;
}

const char* snapshot_check(const unsigned char* data, size_t size, uint32_t* n) noexcept {
    if (size < kSnapshotHeader + kSnapshotTrailer) return "snapshot is truncated";
    if (std::memcmp(data, kMagic, 4) != 0) return "not a soageo layer snapshot";
    unsigned version = data[4] | (unsigned(data[5]) << 8);
    if (version != kSnapshotVersion) return "unsupported snapshot version";
    if (data[6] || data[7] || load_le<uint32_t>(data + 12)) return "snapshot has unknown flags";
    uint32_t count = load_le<uint32_t>(data + 8);
    if (count > kMaxEntities) return "snapshot holds too many entities";
    if (size != snapshot_bytes(count)) return size < snapshot_bytes(count) ? "snapshot is truncated" : "snapshot has trailing bytes";
    size_t body = size - kSnapshotTrailer;
    if (snapshot_checksum(data, body) != load_le<uint64_t>(data + body)) return "snapshot checksum mismatch";
    *n = count;
    return nullptr;
}

const char* snapshot_read(const unsigned char* data, uint32_t n, Store& s) noexcept {
    const unsigned char* p = data + kSnapshotHeader;
    p += copy_column<uint64_t>(s.col.id, p, n);
    for (void* col : {s.col.x, s.col.y, s.col.r}) p += copy_column<uint32_t>(col, p, n);
    copy_column<uint32_t>(s.col.mask, p, n);
    // Map inserts land in random cache lines; asking for the line 16 inserts ahead makes loading
    // a million entities much faster (build/bench_snapshot's load).
    for (uint32_t i = 0; i < n; ++i) {
        if (i + 16 < n) idmap_prefetch(s.map, s.col.id[i + 16]);
        if (const char* why = check_entity(s.map, i, s.col.id[i], s.col.x[i], s.col.y[i], s.col.r[i])) return why;
        s.n = i + 1;
    }
    return nullptr;
}

}  // namespace soageo
