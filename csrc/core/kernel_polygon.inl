// Convex polygon kernels, written once against wide.hpp (see target.inl): the triangle's
// float filter and exact fallback, over n edges.

namespace soageo {
namespace SOAGEO_TARGET {

// Per edge, the same filter as in_triangle_block (float32 det = dl - dr, trusted beyond
// 4u (|dl| + |dr|) + 2^-120). The polygon is counter-clockwise, so a lane is outside as soon as
// one edge says "right of it" for sure, inside when every edge says "left of it" for sure, and
// otherwise (on or near an edge, overflow, NaN) decided by the exact predicate.
inline wm in_polygon_block(const Polygon& g, const float* xs, const float* ys, uint32_t live) {
    wf x = load(xs), y = load(ys);
    const wf rel = splat(0x1p-22f), tiny = splat(0x1p-120f), zero = splat(0.0f);
    wm outside = none(), sure_in = all();
    for (uint32_t k = 0; k < g.n; ++k) {
        wf dl = splat(g.ex[k]) * (y - splat(g.y[k]));
        wf dr = splat(g.ey[k]) * (x - splat(g.x[k]));
        wf det = dl - dr;
        wf bound = rel * (vmax(dl, zero - dl) + vmax(dr, zero - dr)) + tiny;
        outside = mor(outside, lt(det, zero - bound));
        sure_in = mand(sure_in, gt(det, bound));
    }
    uint32_t unsure = bits(mnot(mor(outside, sure_in))) & live;
    uint32_t inside = bits(sure_in);
    while (unsure) {  // the exact path, lane by lane
        int lane = __builtin_ctz(unsure);
        unsure &= unsure - 1;
        if (in_polygon_exact(g, xs[lane], ys[lane])) inside |= 1u << lane;
    }
    return from_bits(inside);
}

inline uint32_t in_polygon(const Points& pts, const Polygon& g, Filter f, uint32_t* out) noexcept {
    const Points p = pts;
    return scan(p, f, out, [&](uint32_t i) { return in_polygon_block(g, p.x + i, p.y + i, live_lanes(p.n - i)); });
}

// A disk touches the closed polygon when an edge segment is within its radius (float32,
// closed, as touch_triangle) or its centre is inside (exactly).
inline uint32_t touch_polygon(const Points& pts, const Polygon& g, Filter f, uint32_t* out) noexcept {
    const Points p = pts;
    return scan(p, f, out, [&](uint32_t i) {
        wf x = load(p.x + i), y = load(p.y + i), r = load(p.r + i);
        wf r2 = r * r;
        wm near = none();
        for (uint32_t k = 0; k < g.n; ++k)
            near = mor(near, le(segment_distance2(x - splat(g.x[k]), y - splat(g.y[k]), splat(g.ex[k]), splat(g.ey[k]),
                                                  splat(g.len2[k])),
                                r2));
        uint32_t rest = ~bits(near) & live_lanes(p.n - i);
        if (!rest) return near;
        return mor(near, mand(in_polygon_block(g, p.x + i, p.y + i, rest), from_bits(rest)));
    });
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo
