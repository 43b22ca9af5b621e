// Test fixtures for the core: padded aligned columns, a seeded generator, the target list, the
// random and hostile clouds the target tests sweep, a layer with its sweep scratch.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <utility>
#include <vector>

#include "core/dispatch.hpp"
#include "core/kernels.hpp"
#include "core/store.hpp"
#include "core/sweep.hpp"

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

// Entities at random: positions in [-span, span]^2, radii in [0, max_r], each in one of the
// `bits` low mask bits (drawn in that order, entity by entity).
inline void scatter(Cloud& c, Rng& g, double span, double max_r, uint32_t bits) {
    for (uint32_t i = 0; i < c.n; ++i) {
        c.x[i] = static_cast<float>(g.uniform(-span, span));
        c.y[i] = static_cast<float>(g.uniform(-span, span));
        c.r[i] = static_cast<float>(g.uniform(0, max_r));
        c.mask[i] = 1u << g.below(bits);
    }
}

// The floats a kernel must survive: zeros of both signs, the smallest denormals, the smallest
// normal, the largest floats, infinities, NaN and two plain values; then `more`.
inline std::vector<float> hostile_floats(std::initializer_list<float> more = {}) {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> v = {0.0f, -0.0f, 1e-45f, -1e-45f, 1e-38f, 3.4e38f, -3.4e38f, inf, -inf, nan, 1.0f, -7.5f};
    v.insert(v.end(), more);
    return v;
}

// Every ordered pair of the `m` hostile floats as a position, with `per` radii taken from them
// too: c holds m * m * per entities, all in mask 1.
inline void fill_specials(Cloud& c, const float* specials, uint32_t m, uint32_t per) {
    uint32_t i = 0;
    for (uint32_t a = 0; a < m; ++a)
        for (uint32_t b = 0; b < m; ++b)
            for (uint32_t r = 0; r < per; ++r, ++i) {
                c.x[i] = specials[a];
                c.y[i] = specials[b];
                c.r[i] = specials[(a + b + r) % m];
                c.mask[i] = 1;
            }
}

// A cloud of fill_specials over hostile_floats(more): hostile_size(per, more) entities, then
// fill_hostile(c, per, more).
inline uint32_t hostile_size(uint32_t per, std::initializer_list<float> more = {}) {
    const uint32_t m = static_cast<uint32_t>(hostile_floats(more).size());
    return m * m * per;
}
inline void fill_hostile(Cloud& c, uint32_t per, std::initializer_list<float> more = {}) {
    const std::vector<float> specials = hostile_floats(more);
    fill_specials(c, specials.data(), static_cast<uint32_t>(specials.size()), per);
}

// The random scenes of the shape tests: clouds of 0 to 33 entities (around every lane count)
// and of 20,000 (scatter over [-100, 100], radii to 5, three mask bits); `compare(c, f)` 40
// times on each (10 on the large one), unfiltered and filtered by mask 2.
template <class Compare>
void on_random_scenes(Rng& g, Compare compare) {
    const uint32_t sizes[] = {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 20000};
    for (uint32_t n : sizes) {
        Cloud c(n);
        scatter(c, g, 100, 5, 3);
        for (int rep = 0; rep < (n > 1000 ? 10 : 40); ++rep) {
            compare(c, soageo::Filter{0, false});
            compare(c, soageo::Filter{2, true});
        }
    }
}

// A layer's columns and id map with room for `cap` entities, and its sweep scratch, owned by
// the test (or benchmark).
struct SweepWorld {
    std::vector<unsigned char> col, map, scratch;
    soageo::Store s;
    soageo::SweepScratch sw;
    explicit SweepWorld(uint32_t cap)
        : col(soageo::columns_bytes(cap)),
          map(soageo::idmap_bytes(soageo::idmap_cap_for(cap))),
          scratch(soageo::sweep_scratch_bytes(cap) + soageo::kAlign) {
        s = soageo::Store{soageo::columns_carve(col.data(), cap), soageo::idmap_init(map.data(), soageo::idmap_cap_for(cap)),
                          0, 0, {}, 0, 0, 0};
        sw = soageo::sweep_scratch_carve(scratch.data(), cap);
    }
};

using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

// The pairs of kernel k's complete sweep of b, in its order: counted first, then written into a
// buffer of that size; `written` gets what the second call reported.
inline Pairs complete_pairs(const soageo::KernelTable* k, const soageo::SweepBoxes& b, uint64_t* written = nullptr) {
    const uint64_t total = k->sweep_complete(b, nullptr, nullptr, 0);
    std::vector<uint32_t> a(total + 1), c(total + 1);
    const uint64_t n = k->sweep_complete(b, a.data(), c.data(), total);
    if (written) *written = n;
    Pairs p;
    for (uint64_t i = 0; i < total; ++i) p.push_back({a[i], c[i]});
    return p;
}

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
