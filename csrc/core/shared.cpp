#include "shared.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <string>
#include <string_view>

#include "carve.hpp"

namespace soageo {

const char* shared_kind_name(SharedKind k) noexcept {
    switch (k) {
        case SharedKind::layer: return "layer";
        case SharedKind::walls: return "walls";
        case SharedKind::tiles: return "tiles";
    }
    return "?";
}

namespace {

void free_version(SharedVersion* v) noexcept {
    std::free(v->block);
    v->refs.~atomic();
    std::free(v);
}

// A version of `kind`, nothing published yet, with a malloc block of `bytes` (calloc when
// `zeroed`), counted in its bytes; null (nothing left allocated) when out of memory.
SharedVersion* version_with_block(SharedKind kind, const char* name, size_t len, size_t bytes, bool zeroed) noexcept {
    auto* v = static_cast<SharedVersion*>(std::calloc(1, sizeof(SharedVersion)));
    if (!v) return nullptr;
    new (&v->refs) std::atomic<uint64_t>(1);
    v->kind = kind;
    v->name_len = len;
    std::memcpy(v->name, name, len);
    v->name[len] = '\0';
    v->bytes = sizeof(SharedVersion) + bytes;
    v->block = zeroed ? std::calloc(1, bytes) : std::malloc(bytes);
    if (!v->block) {
        free_version(v);
        return nullptr;
    }
    return v;
}

// The frozen layer in one block (calloc'd: zeroed): its columns and id map, and its index's
// cell order and bucket starts (the index's other arrays null).
SharedLayer lay_layer(Carver& k, uint32_t cap, uint32_t map_cap) noexcept {
    SharedLayer l{};
    l.col.cap = cap;
    k.take_each(cap, &l.col.x, &l.col.y, &l.col.r, &l.col.mask, &l.col.id);
    l.map = IdMap{k.take<IdMap::Bucket>(map_cap), map_cap};
    Grid& g = l.grid = grid_sized(cap);
    k.take_each(grid_column_len(g.room), &g.x, &g.y, &g.r, &g.mask, &g.slot);
    g.loose.start = k.take<uint32_t>(loose_start_len(g.loose.buckets, kGridRuns));
    return l;
}

struct Entry {
    SharedKind kind;
    uint64_t last;          // the last version number given (never reused)
    SharedVersion* newest;  // null after unshare
};

struct Registry {
    std::mutex lock;
    std::map<std::string, Entry, std::less<>> names;  // std::less<>: looked up by string_view, no copy
    bool pinned = false;
};

// Made on first use and never destroyed: a thread may still release a version while the
// process exits, and static destructors would run under it.
Registry* registry() noexcept {
    static Registry* r = new (std::nothrow) Registry();
    return r;
}

// The entry named `name`, or null; the caller holds the lock. A lookup by string_view
// allocates nothing, so it cannot throw.
Entry* find_entry(Registry& r, const char* name, size_t len) noexcept {
    auto it = r.names.find(std::string_view(name, len));
    return it == r.names.end() ? nullptr : &it->second;
}

// Whether `addr` lies in the main program: soageo linked into the executable (as the test hosts
// link it), which nothing unloads, so there is nothing to pin. The loader lists the main
// program first.
bool in_main_program(const void* addr) noexcept {
    struct Find {
        uintptr_t addr;
        bool found;
    } f{reinterpret_cast<uintptr_t>(addr), false};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) -> int {
            auto* f = static_cast<Find*>(data);
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& p = info->dlpi_phdr[i];
                const uintptr_t lo = info->dlpi_addr + p.p_vaddr;
                if (p.p_type == PT_LOAD && f->addr >= lo && f->addr - lo < p.p_memsz) f->found = true;
            }
            return 1;  // the first object only
        },
        &f);
    return f.found;
}

}  // namespace

SharedVersion* shared_freeze_layer(const Store& s, const Grid* fresh, const char* name, size_t len) noexcept {
    const uint32_t cap = s.col.cap, map_cap = s.map.cap;
    const size_t glen = grid_column_len(grid_sized(cap).room);
    // calloc: fresh pages come zeroed, so the padding lanes kernels read cost no pass of their own.
    SharedVersion* v = version_with_block(SharedKind::layer, name, len, layout_bytes(lay_layer, cap, map_cap), true);
    auto* key = v && !fresh ? static_cast<uint32_t*>(std::malloc(glen * sizeof(uint32_t))) : nullptr;
    if (!v || (!fresh && !key)) {
        if (v) free_version(v);
        return nullptr;
    }
    SharedLayer& l = v->layer = layout_carve(v->block, lay_layer, cap, map_cap);
    // The id map is copied as it is: the frozen columns keep every entity's slot.
    columns_copy(l.col, s.col, s.n);
    std::memcpy(static_cast<void*>(l.map.buckets), s.map.buckets, sizeof(IdMap::Bucket) * map_cap);
    l.n = s.n;
    Grid& g = l.grid;
    const Grid frozen = g;
    if (fresh) {
        // The layer's own index, as its queries see it (loose or not): the same plans.
        g = *fresh;
        g.x = frozen.x, g.y = frozen.y, g.r = frozen.r, g.mask = frozen.mask, g.slot = frozen.slot;
        g.loose.start = frozen.loose.start;
        move_rows(g, 0, *fresh, 0, uint32_t(glen), &Grid::x, &Grid::y, &Grid::r, &Grid::mask, &Grid::slot);
        std::memcpy(g.loose.start, fresh->loose.start, loose_start_len(g.loose.buckets, kGridRuns) * sizeof(uint32_t));
    } else {
        // Built straight into the frozen arrays: a full build writes the other half and swaps.
        Store f{};
        f.col = l.col;
        f.map = l.map;
        f.n = l.n;
        g.x2 = frozen.x, g.y2 = frozen.y, g.r2 = frozen.r, g.mask2 = frozen.mask, g.slot2 = frozen.slot;
        g.key = key;
        grid_build(g, f, false);
        std::free(key);
    }
    g.x2 = g.y2 = g.r2 = nullptr;
    g.mask2 = g.slot2 = nullptr;
    g.xy = nullptr;
    g.key = g.hits = g.bitmap = nullptr;
    return v;
}

SharedVersion* shared_freeze_walls(const Walls& w, const char* name, size_t len) noexcept {
    const uint64_t cells = uint64_t(w.frame.cols) * w.frame.rows;
    const uint64_t refs = w.start[cells];
    const size_t bytes = size_t(w.n) * sizeof(Seg) + size_t(cells + 1) * sizeof(uint32_t) +
                         size_t(refs) * (sizeof(Seg) + sizeof(uint32_t)) + sizeof(uint32_t);
    SharedVersion* v = version_with_block(SharedKind::walls, name, len, bytes, false);
    if (!v) return nullptr;
    void* block = v->block;
    // Segments first (16-byte records), then the 4-byte arrays: every array stays aligned.
    auto* seg = static_cast<Seg*>(block);
    auto* start = reinterpret_cast<uint32_t*>(seg + w.n);
    auto* cell_seg = reinterpret_cast<Seg*>(start + cells + 1);
    auto* cell_wall = reinterpret_cast<uint32_t*>(cell_seg + refs);
    if (w.n) std::memcpy(seg, w.seg, size_t(w.n) * sizeof(Seg));
    std::memcpy(start, w.start, size_t(cells + 1) * sizeof(uint32_t));
    if (refs) {
        std::memcpy(cell_seg, w.cell_seg, size_t(refs) * sizeof(Seg));
        std::memcpy(cell_wall, w.cell_wall, size_t(refs) * sizeof(uint32_t));
    }
    v->walls = Walls{seg, w.n, w.frame, start, cell_seg, cell_wall};
    return v;
}

SharedVersion* shared_freeze_tiles(const TileMap& m, const char* name, size_t len) noexcept {
    const uint64_t words = tile_words(m.cols, m.rows);
    const size_t bytes = size_t(words ? words : 1) * sizeof(uint64_t);
    SharedVersion* v = version_with_block(SharedKind::tiles, name, len, bytes, false);
    if (!v) return nullptr;
    void* block = v->block;
    if (words) std::memcpy(block, m.bits, size_t(words) * sizeof(uint64_t));
    v->tiles = m;
    v->tiles.bits = static_cast<uint64_t*>(block);
    return v;
}

void shared_release(SharedVersion* v) noexcept {
    // acq_rel: the thread that frees sees every other holder's reads finished.
    if (v->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) free_version(v);
}

ShareStatus shared_publish(SharedVersion* v, SharedKind* had) noexcept {
    Registry* r = registry();
    if (!r) return ShareStatus::memory;
    SharedVersion* old = nullptr;
    {
        std::lock_guard<std::mutex> g(r->lock);
        try {
            auto it = r->names.find(std::string_view(v->name, v->name_len));
            if (it == r->names.end()) it = r->names.emplace(std::string(v->name, v->name_len), Entry{v->kind, 0, nullptr}).first;
            Entry& e = it->second;
            if (e.kind != v->kind) {
                *had = e.kind;
                return ShareStatus::kind;
            }
            old = e.newest;
            v->version = ++e.last;
            e.newest = v;
        } catch (...) {
            return ShareStatus::memory;
        }
    }
    if (old) shared_release(old);
    return ShareStatus::ok;
}

SharedVersion* shared_attach(const char* name, size_t len) noexcept {
    Registry* r = registry();
    if (!r) return nullptr;
    std::lock_guard<std::mutex> g(r->lock);
    Entry* e = find_entry(*r, name, len);
    if (!e || !e->newest) return nullptr;
    e->newest->refs.fetch_add(1, std::memory_order_relaxed);
    return e->newest;
}

uint64_t shared_version(const char* name, size_t len, SharedKind* kind) noexcept {
    if (kind) *kind = SharedKind(0);
    Registry* r = registry();
    if (!r) return 0;
    std::lock_guard<std::mutex> g(r->lock);
    const Entry* e = find_entry(*r, name, len);
    if (!e) return 0;
    if (kind) *kind = e->kind;
    return e->newest ? e->newest->version : 0;
}

bool shared_unshare(const char* name, size_t len) noexcept {
    Registry* r = registry();
    if (!r) return false;
    SharedVersion* old = nullptr;
    {
        std::lock_guard<std::mutex> g(r->lock);
        Entry* e = find_entry(*r, name, len);
        if (!e) return false;
        old = e->newest;
        e->newest = nullptr;
    }
    if (old) shared_release(old);
    return old != nullptr;
}

size_t shared_list(SharedInfo* out, size_t max) noexcept {
    Registry* r = registry();
    if (!r) return 0;
    std::lock_guard<std::mutex> g(r->lock);
    size_t count = 0;
    for (const auto& kv : r->names) {
        const SharedVersion* v = kv.second.newest;
        if (!v) continue;
        if (count < max) {
            SharedInfo& i = out[count];
            i.name_len = v->name_len;
            std::memcpy(i.name, v->name, v->name_len + 1);
            i.kind = v->kind;
            i.version = v->version;
            i.bytes = v->bytes;
            i.holders = v->refs.load(std::memory_order_relaxed) - 1;
        }
        ++count;
    }
    return count;
}

bool shared_pin(const void* addr) noexcept {
    Registry* r = registry();
    if (!r) return false;
    std::lock_guard<std::mutex> g(r->lock);
    if (r->pinned) return true;
    Dl_info info;
    if (!dladdr(addr, &info) || !info.dli_fname) return false;
    // NOLOAD: the module is loaded already (it is running this); NODELETE: no dlclose unloads it.
    void* h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    if (!h) h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NODELETE);
    r->pinned = h != nullptr || in_main_program(addr);
    return r->pinned;
}

}  // namespace soageo
