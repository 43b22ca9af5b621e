// Carving aligned arrays out of one caller-provided block (the binding's Lua userdata).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels.hpp"

namespace soageo {

inline uintptr_t align_up(uintptr_t p) noexcept { return (p + (kAlign - 1)) & ~uintptr_t(kAlign - 1); }

// Hands out consecutive arrays, each starting on a 64-byte line. A block sized as
// "sum of array bytes + (arrays + 1) * kAlign" always has room.
struct Carver {
    uintptr_t p;
    explicit Carver(void* block) noexcept : p(align_up(reinterpret_cast<uintptr_t>(block))) {}
    template <class T>
    T* take(size_t count) noexcept {
        T* at = reinterpret_cast<T*>(p);
        p = align_up(p + count * sizeof(T));
        return at;
    }
};

}  // namespace soageo
