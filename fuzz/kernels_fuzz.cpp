// libFuzzer: every kernel of every target on arbitrary floats (NaN, inf, denormals, huge) must
// return exactly what the scalar reference returns. Aborts on the first difference.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "../test/core/fixtures.hpp"
#include "core/sweep.hpp"

using namespace soageo;

namespace {

struct Input {
    const uint8_t* p;
    size_t n;
    float f() {
        float v = 0;
        if (n >= 4) {
            std::memcpy(&v, p, 4);
            p += 4, n -= 4;
        }
        return v;
    }
    uint8_t byte() {
        uint8_t v = n ? *p : 0;
        if (n) ++p, --n;
        return v;
    }
};

template <class Shape>
void same(uint32_t (*KernelTable::*which)(const Points&, const Shape&, Filter, uint32_t*) noexcept,
          const fixture::Cloud& c, const Shape& s, Filter f) {
    std::vector<uint32_t> want(c.cap + kMaxWidth), got(c.cap + kMaxWidth);
    uint32_t n = (fixture::reference()->*which)(c.points(), s, f, want.data());
    for (const KernelTable* k : fixture::targets()) {
        uint32_t m = (k->*which)(c.points(), s, f, got.data());
        if (m != n || std::memcmp(want.data(), got.data(), n * sizeof(uint32_t)) != 0) std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Input in{data, size};
    uint32_t count = in.byte() % 40;
    fixture::Cloud c(count);
    for (uint32_t i = 0; i < count; ++i) {
        c.x[i] = in.f();
        c.y[i] = in.f();
        c.r[i] = in.f();
        c.mask[i] = in.byte();
    }
    Filter f{in.byte(), (in.byte() & 1) != 0};
    Sector s = make_sector(in.f(), in.f(), in.f(), in.f(), in.f(), in.f());
    s.wedge = static_cast<Wedge>(in.byte() % 3);
    same(&KernelTable::in_sector, c, s, f);
    same(&KernelTable::touch_sector, c, s, f);
    Circle circle{in.f(), in.f(), in.f()};
    same(&KernelTable::in_circle, c, circle, f);
    same(&KernelTable::touch_circle, c, circle, f);
    Box box{in.f(), in.f(), in.f(), in.f()};
    same(&KernelTable::in_box, c, box, f);
    same(&KernelTable::touch_box, c, box, f);
    Capsule cap{in.f(), in.f(), in.f(), in.f(), in.f(), in.f()};
    same(&KernelTable::touch_capsule, c, cap, f);
    Triangle t{in.f(), in.f(), in.f(), in.f(), in.f(), in.f()};
    same(&KernelTable::in_triangle, c, t, f);
    same(&KernelTable::touch_triangle, c, t, f);
    Segment seg{in.f(), in.f(), in.f(), in.f()};
    same(&KernelTable::cast_segment, c, seg, f);
    return 0;
}
