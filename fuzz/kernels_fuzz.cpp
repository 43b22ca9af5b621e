// libFuzzer: every kernel of every target on arbitrary floats (NaN, inf, denormals, huge) must
// return exactly what the scalar reference returns (the cap's selection: with any guess of its
// boundary, what the reference's counting returns). Aborts on the first difference.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
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
void same(fixture::Kernel<Shape> KernelTable::*which, const fixture::Cloud& c, const Shape& s, Filter f) {
    if (fixture::first_mismatch(which, c, s, f)) std::abort();
}

// One scan over the whole cloud (one window), from `marks`: aoi_scan, or aoi_scan_d2 when `d2`
// is given, with no enters asked for when `quiet`.
AoiMeet scan_whole(const KernelTable* k, const fixture::Cloud& c, const uint32_t* marks, float cx, float cy,
                   float view, float reach, bool filtered, uint32_t filter, bool quiet, std::vector<uint32_t>& mark,
                   std::vector<uint32_t>& out, float* d2) {
    mark.assign(marks, marks + c.cap + kMaxWidth);
    out.assign(2 * (c.cap + kMaxWidth), 0);
    AoiMeet meet{out.data(), quiet ? nullptr : out.data() + c.cap + kMaxWidth, 0, 0, 0};
    const uint32_t whole[2] = {0, c.n};
    const AoiWindow w{c.x, c.y, mark.data(), whole, 1, cx, cy, view, reach, 2, 3, filtered ? c.mask : nullptr, filter};
    if (d2)
        k->aoi_scan_d2(w, meet, d2);
    else
        k->aoi_scan(w, meet);
    return meet;
}

// The AOI scan with marks from the input: positions, counts and marks left behind must all
// match, and aoi_scan_d2's as well, with its distances bit for bit.
void same_aoi_scan(const fixture::Cloud& c, const uint32_t* marks, float cx, float cy, float view, float reach,
                   bool filtered, uint32_t filter) {
    auto run = [&](const KernelTable* k, std::vector<uint32_t>& mark, std::vector<uint32_t>& out, float* d2) {
        return scan_whole(k, c, marks, cx, cy, view, reach, filtered, filter, false, mark, out, d2);
    };
    std::vector<uint32_t> want_mark, want_out, got_mark, got_out;
    std::vector<float> want_d2(c.cap + kMaxWidth), got_d2(c.cap + kMaxWidth);
    const AoiMeet want = run(fixture::reference(), want_mark, want_out, nullptr);
    {
        std::vector<uint32_t> mark, out;
        run(fixture::reference(), mark, out, want_d2.data());
    }
    for (const KernelTable* k : fixture::targets()) {
        for (float* d2 : {static_cast<float*>(nullptr), got_d2.data()}) {
            const AoiMeet got = run(k, got_mark, got_out, d2);
            if (got.n_visible != want.n_visible || got.n_enter != want.n_enter || got.met != want.met) std::abort();
            if (std::memcmp(got.visible, want.visible, want.n_visible * 4) ||
                std::memcmp(got.enters, want.enters, want.n_enter * 4))
                std::abort();
            if (std::memcmp(got_mark.data(), want_mark.data(), c.n * 4)) std::abort();
        }
        if (std::memcmp(got_d2.data(), want_d2.data(), want.n_visible * 4)) std::abort();
    }
}

// A scan asking for no enters (a quiet watcher's, AoiMeet::enters null) over marks with none
// `open`: the positions, marks and distances of the reference's scan that keeps them, no enters,
// nothing met.
void same_quiet_scan(const fixture::Cloud& c, std::vector<uint32_t> marks, float cx, float cy, float view,
                     float reach, bool filtered, uint32_t filter) {
    for (uint32_t& m : marks) m = m == 2 ? 0 : m;
    std::vector<uint32_t> want_mark, want_out, got_mark, got_out;
    std::vector<float> want_d2(c.cap + kMaxWidth), got_d2(c.cap + kMaxWidth);
    const AoiMeet want = scan_whole(fixture::reference(), c, marks.data(), cx, cy, view, reach, filtered, filter, false,
                                    want_mark, want_out, want_d2.data());
    for (const KernelTable* k : fixture::targets()) {
        const AoiMeet got = scan_whole(k, c, marks.data(), cx, cy, view, reach, filtered, filter, true, got_mark,
                                       got_out, got_d2.data());
        if (got.n_visible != want.n_visible || got.n_enter != 0 || got.met != 0) std::abort();
        if (std::memcmp(got.visible, want.visible, want.n_visible * 4)) std::abort();
        if (std::memcmp(got_mark.data(), want_mark.data(), c.n * 4)) std::abort();
        if (std::memcmp(got_d2.data(), want_d2.data(), want.n_visible * 4)) std::abort();
    }
}

// The cap's selection with any guess of the boundary, beyond SelectLanes' contract too (NaN and
// negative ones, which the kernel takes as none; inf, denormals): the reference's counting,
// with no guess, on every target.
void same_select(const std::vector<float>& d2, uint32_t n, float below) {
    const uint32_t m = uint32_t(d2.size() - kMaxWidth);
    auto run = [&](const KernelTable* k, float guess, std::vector<uint32_t>& order) {
        order.assign(m + kMaxWidth, 0xdeadbeefu);
        SelectLanes s{d2.data(), m, n, guess, order.data(), 0, -1.0f, -1.0f};
        k->interest_select(s);
        order.resize(s.chosen);
        return s;
    };
    std::vector<uint32_t> want_order, got_order;
    const SelectLanes want = run(fixture::reference(), 0.0f, want_order);
    for (const KernelTable* k : fixture::targets()) {
        const SelectLanes got = run(k, below, got_order);
        if (got.chosen != want.chosen || got_order != want_order) std::abort();
        if (std::memcmp(&got.edge, &want.edge, 4) || std::memcmp(&got.next, &want.next, 4)) std::abort();
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
    // Rectangles and rings as raw kernel forms: any floats, NaN and inf included.
    Rect rect{in.f(), in.f(), in.f(), in.f(), in.f(), in.f()};
    same(&KernelTable::in_rect, c, rect, f);
    same(&KernelTable::touch_rect, c, rect, f);
    Ring ring{in.f(), in.f(), in.f(), in.f()};
    same(&KernelTable::in_ring, c, ring, f);
    same(&KernelTable::touch_ring, c, ring, f);
    // Polygons as the binding makes them: finite vertices that make_polygon accepts.
    {
        uint32_t m = 3 + in.byte() % 10;
        float xs[16], ys[16];
        for (uint32_t k = 0; k < m; ++k) {
            xs[k] = in.f(), ys[k] = in.f();
            if (!std::isfinite(xs[k])) xs[k] = static_cast<float>(k);
            if (!std::isfinite(ys[k])) ys[k] = static_cast<float>(k * k % 7);
        }
        Polygon poly;
        uint32_t at;
        if (make_polygon(xs, ys, m, poly, &at) == PolygonError::ok) {
            same(&KernelTable::in_polygon, c, poly, f);
            same(&KernelTable::touch_polygon, c, poly, f);
        }
    }
    Segment seg{in.f(), in.f(), in.f(), in.f()};
    same(&KernelTable::cast_segment, c, seg, f);
    std::vector<uint32_t> marks(c.cap + kMaxWidth, 0);
    for (uint32_t i = 0; i < count; ++i) marks[i] = in.byte() % 5;  // 2 open, 3 kept, others
    const float cx = in.f(), cy = in.f(), view = in.f(), reach = in.f();
    const uint8_t masks = in.byte();  // low bit: the watcher filters by the rest
    same_aoi_scan(c, marks.data(), cx, cy, view, reach, masks & 1, masks >> 1);
    same_quiet_scan(c, marks, cx, cy, view, reach, masks & 1, masks >> 1);
    // The selection's d2 as the pass has them: squares of finite floats (never negative, never
    // NaN; +inf when they overflow), read in whole blocks past m.
    const uint32_t m = 2 + in.byte() % (kSelectLanesMost - 1);
    std::vector<float> d2(m + kMaxWidth, std::numeric_limits<float>::quiet_NaN());
    for (uint32_t i = 0; i < m; ++i) {
        const float v = in.f();
        d2[i] = std::isfinite(v) ? v * v : 0.0f;
    }
    same_select(d2, 1 + in.byte() % (m - 1), in.f());
    return 0;
}
