// Objects shared by every Lua state of a process (soageo.share / soageo.attach): frozen copies
// of a layer (its columns, id map and a built index), of walls or of tiles, in memory from
// malloc (never a Lua allocator: a skynet service's allocator counts without atomics and dies
// with its service), and the registry that names them (doc/design.md): one mutex, versions
// frozen once published and read without a lock, an atomic count whose last holder frees. No Lua.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include "grid.hpp"
#include "store.hpp"
#include "tiles.hpp"
#include "walls.hpp"

namespace soageo {

enum class SharedKind : uint8_t { layer = 1, walls = 2, tiles = 3 };
const char* shared_kind_name(SharedKind k) noexcept;  // "layer", "walls", "tiles"

constexpr size_t kMaxSharedName = 255;

// A frozen layer: columns (hits and order null: each view has its own), id map, and an index
// built at share time (hits, bitmap and the build's arrays null), so no view ever builds one.
struct SharedLayer {
    Columns col;
    IdMap map;
    uint32_t n;
    Grid grid;
};

struct SharedVersion {
    std::atomic<uint64_t> refs;
    SharedKind kind;
    uint64_t version;  // set by shared_publish
    size_t bytes;      // everything this version holds, header included
    size_t name_len;
    char name[kMaxSharedName + 1];
    SharedLayer layer;  // kind layer
    Walls walls;        // kind walls
    TileMap tiles;      // kind tiles
    void* block;        // one malloc block holding the data
};

// Frozen copies (one reference, the caller's; version 0 until published); null when out of
// memory. `name` is copied (len <= kMaxSharedName).
// A layer's copy keeps its capacity and slots; `fresh`, the layer's index when it is up to date,
// is copied (as the layer's queries use it), else one is built.
SharedVersion* shared_freeze_layer(const Store& s, const Grid* fresh, const char* name, size_t len) noexcept;
SharedVersion* shared_freeze_walls(const Walls& w, const char* name, size_t len) noexcept;
SharedVersion* shared_freeze_tiles(const TileMap& m, const char* name, size_t len) noexcept;

// Drops one reference; the last one frees the version (on whichever thread).
void shared_release(SharedVersion* v) noexcept;

enum class ShareStatus { ok, kind, memory };
// Publishes `v` under its name: the caller's reference becomes the registry's, v->version the
// name's next number, and the previous newest version loses the registry's reference. On
// `kind` (the name holds another kind; *had says which) or `memory`, nothing changes and the
// caller keeps its reference.
ShareStatus shared_publish(SharedVersion* v, SharedKind* had) noexcept;
// The newest version under `name` with one more reference (the caller's), or null.
SharedVersion* shared_attach(const char* name, size_t len) noexcept;
// The newest version's number under `name`, 0 when nothing is published there; *kind (when
// given) the name's kind, 0 for a name never used.
uint64_t shared_version(const char* name, size_t len, SharedKind* kind = nullptr) noexcept;
// Drops the registry's reference to the newest version under `name`; false when none. The
// name keeps its kind and its count.
bool shared_unshare(const char* name, size_t len) noexcept;

struct SharedInfo {
    char name[kMaxSharedName + 1];
    size_t name_len;
    SharedKind kind;
    uint64_t version;
    size_t bytes;
    uint64_t holders;  // references besides the registry's
};
// Fills out[0 .. min(count, max)) with the names that have a version published, in name
// order; returns count.
size_t shared_list(SharedInfo* out, size_t max) noexcept;

// Keeps the shared object that holds `addr` loaded until the process exits (the first
// publish): a skynet Lua state dlcloses its C modules when it closes, and the last one to
// close must not unload the registry while versions live. False when the loader refused.
bool shared_pin(const void* addr) noexcept;

}  // namespace soageo
