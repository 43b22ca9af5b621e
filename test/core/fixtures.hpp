// Test fixtures for the core: padded aligned columns, a seeded generator, the target list.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/dispatch.hpp"
#include "core/kernels.hpp"
#include "core/store.hpp"

namespace fixture {

// Columns with the layer's padding and alignment, owned by the test.
struct Cloud {
    uint32_t n = 0, cap = 0;
    float *x = nullptr, *y = nullptr, *r = nullptr;
    uint32_t* mask = nullptr;
    explicit Cloud(uint32_t count) : n(count), cap(soageo::padded(count ? count : 1)) {
        x = alloc<float>();
        y = alloc<float>();
        r = alloc<float>();
        mask = alloc<uint32_t>();
    }
    ~Cloud() {
        std::free(x);
        std::free(y);
        std::free(r);
        std::free(mask);
    }
    Cloud(const Cloud&) = delete;
    Cloud& operator=(const Cloud&) = delete;
    soageo::Points points() const { return {x, y, r, mask, n}; }

  private:
    template <class T>
    T* alloc() {
        void* p = std::aligned_alloc(soageo::kAlign, ((cap * sizeof(T) + 63) / 64) * 64);
        std::memset(p, 0, cap * sizeof(T));
        return static_cast<T*>(p);
    }
};

// xorshift64*: the same sequence on every platform.
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed ? seed : 1) {}
    uint64_t next() {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 2685821657736338717ull;
    }
    double uniform(double lo, double hi) { return lo + (hi - lo) * (double)(next() >> 11) * 0x1p-53; }
    uint32_t below(uint32_t n) { return static_cast<uint32_t>(next() % n); }
};

inline std::vector<const soageo::KernelTable*> targets() {
    const soageo::KernelTable* all[8];
    size_t n = soageo::kernels_available(all, 8);
    return std::vector<const soageo::KernelTable*>(all, all + n);
}

inline const soageo::KernelTable* reference() { return soageo::kernels_named("scalar"); }

template <class Shape>
using Kernel = uint32_t (*)(const soageo::Points&, const Shape&, soageo::Filter, uint32_t*) noexcept;

// The slots kernel k finds for shape s over c, in the order it writes them.
template <class Shape>
std::vector<uint32_t> run(Kernel<Shape> k, const Cloud& c, const Shape& s, soageo::Filter f) {
    std::vector<uint32_t> out(c.cap + soageo::kMaxWidth, 0xdeadbeef);
    out.resize(k(c.points(), s, f, out.data()));
    return out;
}

// Every target against the scalar reference (every target must answer exactly as it does):
// the first target that differs, or null. `want` receives the reference's answer.
template <class Shape>
const soageo::KernelTable* first_mismatch(Kernel<Shape> soageo::KernelTable::*which, const Cloud& c, const Shape& s,
                                          soageo::Filter f, std::vector<uint32_t>* want = nullptr) {
    std::vector<uint32_t> ref = run(reference()->*which, c, s, f);
    const soageo::KernelTable* all[8];
    const size_t n = soageo::kernels_available(all, 8);
    const soageo::KernelTable* bad = nullptr;
    for (size_t i = 0; i < n && !bad; ++i)
        if (run(all[i]->*which, c, s, f) != ref) bad = all[i];
    if (want) *want = std::move(ref);
    return bad;
}

}  // namespace fixture
