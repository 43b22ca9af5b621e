// Layer snapshots: a compact, versioned, little-endian byte string with a checksum, so a layer
// can travel between services (skynet.pack cannot carry full userdata) and cluster nodes.
//
// Layout (all little-endian):
//   0  4  magic "SGEO"
//   4  2  format version (1)
//   6  2  flags (0)
//   8  4  entity count n
//   12 4  reserved (0)
//   16    id   int64[n], x float32[n], y float32[n], r float32[n], mask uint32[n]
//   end-8 checksum: uint64 of everything before it
#pragma once

#include <cstddef>
#include <cstdint>

#include "store.hpp"

namespace soageo {

constexpr size_t kSnapshotHeader = 16;
constexpr size_t kSnapshotTrailer = 8;
constexpr uint16_t kSnapshotVersion = 1;

inline size_t snapshot_bytes(uint32_t n) noexcept { return kSnapshotHeader + size_t(n) * 24 + kSnapshotTrailer; }

// Writes the snapshot of `s` into `out` (snapshot_bytes(s.n) bytes).
void snapshot_write(const Store& s, unsigned char* out) noexcept;

// Checks everything that can be checked before any layer exists: size, magic, version, flags,
// count, checksum. Returns null on success (the entity count in *n), else why it is rejected.
const char* snapshot_check(const unsigned char* data, size_t size, uint32_t* n) noexcept;

// Fills an empty store (capacity >= n) from a checked snapshot. Returns null on success, else
// why the content is rejected (non-finite value, negative radius, duplicate id); the store is
// then half-filled and must be discarded by the caller.
const char* snapshot_read(const unsigned char* data, uint32_t n, Store& s) noexcept;

// Writes the snapshot of the entities at `slots[0..k)` (in that order) into `out`
// (snapshot_bytes(k) bytes): a partial snapshot, loadable and mergeable like a whole one.
void snapshot_write_slots(const Store& s, const uint32_t* slots, uint32_t k, unsigned char* out) noexcept;

// One entity of a checked snapshot holding n entities.
struct SnapshotEntity {
    int64_t id;
    float x, y, r;
    uint32_t mask;
};
SnapshotEntity snapshot_entity(const unsigned char* data, uint32_t n, uint32_t i) noexcept;

// The content checks of snapshot_read without a store: values, and duplicate ids found with
// `scratch`, an empty map of idmap_cap_for(n) buckets. Null when the snapshot can be merged.
const char* snapshot_check_content(const unsigned char* data, uint32_t n, IdMap& scratch) noexcept;

// The checksum: four independent multiply-rotate lanes over 64-bit words, so it runs near
// memory speed (a byte-wise FNV-1a was far from it; build/bench_snapshot compares with memcpy).
uint64_t snapshot_checksum(const unsigned char* data, size_t size) noexcept;

}  // namespace soageo
