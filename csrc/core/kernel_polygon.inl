// Convex polygon kernels, written once against wide.hpp (see target.inl): the triangle's
// float filter and exact fallback, over n edges.

namespace soageo {
namespace SOAGEO_TARGET {

// The polygon is counter-clockwise, so a lane is outside as soon as one edge has it surely
// right, inside when every edge has it surely left, and otherwise (on or near an edge,
// overflow, NaN) decided by the exact predicate.
inline wm in_polygon_block(const Polygon& g, const float* xs, const float* ys, uint32_t live) {
    wf x = load(xs), y = load(ys);
    wm outside = none(), sure_in = all();
    for (uint32_t k = 0; k < g.n; ++k) {
        EdgeSide s = edge_side(x, y, splat(g.x[k]), splat(g.y[k]), splat(g.ex[k]), splat(g.ey[k]));
        outside = mor(outside, s.right);
        sure_in = mand(sure_in, s.left);
    }
    uint32_t unsure = bits(mnot(mor(outside, sure_in))) & live;
    return decide_exactly(bits(sure_in), unsure, xs, ys,
                          [&](float px, float py) { return in_polygon_exact(g, px, py); });
}

inline uint32_t in_polygon(const Points& pts, const Polygon& g, Filter f, uint32_t* out) noexcept {
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        return in_polygon_block(g, p.x + i, p.y + i, live_lanes(p.n - i));
    });
}

// A disk touches the closed polygon when an edge segment is within its radius (float32,
// closed, as touch_triangle) or its centre is inside (exactly).
inline uint32_t touch_polygon(const Points& pts, const Polygon& g, Filter f, uint32_t* out) noexcept {
    const ScaledEdge* e = g.edge;
    const auto test = [&](auto scaled) {
        return scan(pts, f, out, [&](const Points& p, uint32_t i) {
            wf x = load(p.x + i), y = load(p.y + i), r = load(p.r + i);
            wf r2 = r * r;
            wm near = none();
            for (uint32_t k = 0; k < g.n; ++k) {
                wf d2 = segment_distance2<decltype(scaled)::value>(x - splat(g.x[k]), y - splat(g.y[k]), splat(g.ex[k]),
                                                                   splat(g.ey[k]), splat(e[k].sx), splat(e[k].sy),
                                                                   splat(e[k].len2), splat(e[k].scale));
                near = mor(near, le(d2, r2));
            }
            uint32_t rest = ~bits(near) & live_lanes(p.n - i);
            if (!rest) return near;
            return mor(near, mand(in_polygon_block(g, p.x + i, p.y + i, rest), from_bits(rest)));
        });
    };
    return g.scaled ? test(std::true_type{}) : test(std::false_type{});
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo
