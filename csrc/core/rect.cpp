// Oriented rectangles: their kernel form; and the bounds an index routes rectangles, rings and
// polygons by.
#include <cmath>

#include "kernels.hpp"

namespace soageo {
namespace {

// The kernels' float32 steps err by a few units in the last place of the distances involved;
// 2^-20 of the shape's extent covers that with room to spare. Squared distances below 2^-149
// underflow to 0, so touch tests cannot tell distances below about 2^-74 apart: 2^-60 absolute
// covers that. `reach` widens every side too. The float box is then rounded outwards once more.
Box padded_box(double minx, double miny, double maxx, double maxy, double extent, double reach) noexcept {
    double pad = extent * 0x1p-20 + 0x1p-60 + reach;
    auto down = [](double v) { return std::nextafter(static_cast<float>(v), -HUGE_VALF); };
    auto up = [](double v) { return std::nextafter(static_cast<float>(v), HUGE_VALF); };
    return Box{down(minx - pad), down(miny - pad), up(maxx + pad), up(maxy + pad)};
}

}  // namespace

Rect make_rect(double x, double y, double dx, double dy, double length, double half_width) noexcept {
    double m = std::fabs(dx) > std::fabs(dy) ? std::fabs(dx) : std::fabs(dy);
    double sx = dx / m, sy = dy / m;
    double len = std::sqrt(sx * sx + sy * sy);
    return Rect{static_cast<float>(x),      static_cast<float>(y),      static_cast<float>(sx / len),
                static_cast<float>(sy / len), static_cast<float>(length), static_cast<float>(half_width)};
}

Box rect_bounds(const Rect& r, float reach) noexcept {
    const double ux = r.ux, uy = r.uy, len = r.length, hw = r.half_width, rr = reach;
    const double cx[4] = {r.ax + hw * -uy, r.ax - hw * -uy, r.ax + len * ux + hw * -uy, r.ax + len * ux - hw * -uy};
    const double cy[4] = {r.ay + hw * ux, r.ay - hw * ux, r.ay + len * uy + hw * ux, r.ay + len * uy - hw * ux};
    double minx = cx[0], maxx = cx[0], miny = cy[0], maxy = cy[0];
    for (int k = 1; k < 4; ++k) {
        minx = std::fmin(minx, cx[k]), maxx = std::fmax(maxx, cx[k]);
        miny = std::fmin(miny, cy[k]), maxy = std::fmax(maxy, cy[k]);
    }
    return padded_box(minx - rr, miny - rr, maxx + rr, maxy + rr, len + hw + rr, 0.0);
}

Box ring_bounds(const Ring& g, float reach) noexcept {
    const double e = static_cast<double>(g.outer) + reach;
    return padded_box(g.cx - e, g.cy - e, g.cx + e, g.cy + e, e, 0.0);
}

Box polygon_bounds(const Polygon& p, float reach) noexcept {
    double minx = p.x[0], maxx = p.x[0], miny = p.y[0], maxy = p.y[0];
    for (uint32_t k = 1; k < p.n; ++k) {
        minx = std::fmin(minx, p.x[k]), maxx = std::fmax(maxx, p.x[k]);
        miny = std::fmin(miny, p.y[k]), maxy = std::fmax(maxy, p.y[k]);
    }
    return padded_box(minx, miny, maxx, maxy, (maxx - minx) + (maxy - miny) + reach, reach);
}

}  // namespace soageo
