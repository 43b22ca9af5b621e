// Memory layouts: aligned arrays carved out of one caller-provided block (the binding's Lua
// userdata). Each block has one layout function, `X lay_x(Carver& k, sizes...)`, that takes its
// arrays in order and writes nothing; it runs once measuring (layout_bytes: how big a block
// must be) and once carving (layout_carve), so the size and the carving cannot disagree, and
// the checked builds assert that they do not (invariant.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "invariant.hpp"
#include "kernels.hpp"

namespace soageo {

inline uintptr_t align_up(uintptr_t p) noexcept { return (p + (kAlign - 1)) & ~uintptr_t(kAlign - 1); }

// Hands out consecutive arrays, each starting on a 64-byte line. Successive arrays are also
// staggered by a few lines (kStagger), so that equal-sized columns do not start at the same
// offset modulo 4 KB: a query's hit stores then no longer alias the x/y loads it makes next
// (in_circle ran slower on a layer of capacity 10,240 than of 10,000 before; build/bench_layout).
struct Carver {
    static constexpr int kStaggers = 4;  // array i starts (i % kStaggers) lines later
    uintptr_t start, p;
    unsigned arrays;
    bool carving;
    Carver() noexcept : start(0), p(0), arrays(0), carving(false) {}  // measures
    explicit Carver(void* block) noexcept
        : start(align_up(reinterpret_cast<uintptr_t>(block))), p(start), arrays(0), carving(true) {}
    template <class T>
    T* take(size_t count) noexcept {
        p += (arrays++ % kStaggers) * kAlign;
        T* at = reinterpret_cast<T*>(p);  // measuring: an offset, never dereferenced
        p = align_up(p + count * sizeof(T));
        return at;
    }
    // One array of `count` for each column given, in order (the columns of one table).
    template <class... T>
    void take_each(size_t count, T**... column) noexcept {
        ((*column = take<T>(count)), ...);
    }
    // take, and zero the array when carving (padding lanes read as zeros, never as garbage).
    template <class T>
    T* take_zeroed(size_t count) noexcept {
        T* at = take<T>(count);
        if (carving) std::memset(static_cast<void*>(at), 0, count * sizeof(T));
        return at;
    }
    template <class... T>
    void take_zeroed_each(size_t count, T**... column) noexcept {
        ((*column = take_zeroed<T>(count)), ...);
    }
    // Bytes a block needs: what was taken, plus the slack for aligning the block's start.
    size_t bytes() const noexcept { return (p - start) + kAlign; }
};

template <class Lay, class... Sizes>
size_t layout_bytes(Lay lay, Sizes... sizes) noexcept {
    Carver k;
    lay(k, sizes...);
    return k.bytes();
}

// `block` holds at least layout_bytes(lay, sizes...) bytes.
template <class Lay, class... Sizes>
auto layout_carve(void* block, Lay lay, Sizes... sizes) noexcept {
    Carver k(block);
    auto carved = lay(k, sizes...);
    SOAGEO_ASSERT(k.p - reinterpret_cast<uintptr_t>(block) <= layout_bytes(lay, sizes...));
    return carved;
}

// Moves `count` rows of the columns given (member pointers of one table of carved columns) from
// `from`'s row from_at to `to`'s row `at`; the two may be one table, the rows may overlap. A
// table not carved yet (null columns) moves no rows.
template <class Table, class... T>
void move_rows(Table& to, uint32_t at, const Table& from, uint32_t from_at, uint32_t count,
               T* Table::*... column) noexcept {
    if (!count) return;
    (std::memmove(to.*column + at, from.*column + from_at, size_t(count) * sizeof(T)), ...);
}

// A block whose layout takes a capacity word first (the sweep scratch, the pair buffer) says
// what it was carved for, so the binding can tell whether a kept block is large enough.
inline uint64_t carved_cap(const void* block) noexcept {
    return *reinterpret_cast<const uint64_t*>(align_up(reinterpret_cast<uintptr_t>(block)));
}

}  // namespace soageo
