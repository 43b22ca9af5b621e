// Circle, box, capsule, triangle and segment kernels, written once against wide.hpp.
// Point tests use the entity centre, disk tests the entity disk (centre, r); touching counts.

namespace soageo {
namespace SOAGEO_TARGET {

inline wf squared(wf v) { return v * v; }

inline uint32_t in_circle(const Points& pts, const Circle& c, Filter f, uint32_t* out) noexcept {
    const wf cx = splat(c.cx), cy = splat(c.cy), r2 = splat(c.radius * c.radius);
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        return lt(squared(load(p.x + i) - cx) + squared(load(p.y + i) - cy), r2);
    });
}

inline uint32_t touch_circle(const Points& pts, const Circle& c, Filter f, uint32_t* out) noexcept {
    const wf cx = splat(c.cx), cy = splat(c.cy), radius = splat(c.radius);
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        wf reach = radius + load(p.r + i);
        return le(squared(load(p.x + i) - cx) + squared(load(p.y + i) - cy), reach * reach);
    });
}

inline uint32_t in_box(const Points& pts, const Box& b, Filter f, uint32_t* out) noexcept {
    const wf minx = splat(b.minx), miny = splat(b.miny), maxx = splat(b.maxx), maxy = splat(b.maxy);
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        wf x = load(p.x + i), y = load(p.y + i);
        return mand(mand(ge(x, minx), le(x, maxx)), mand(ge(y, miny), le(y, maxy)));
    });
}

// Arvo's test: the distance from the centre to the box, per axis, clamped at 0.
inline uint32_t touch_box(const Points& pts, const Box& b, Filter f, uint32_t* out) noexcept {
    const wf minx = splat(b.minx), miny = splat(b.miny), maxx = splat(b.maxx), maxy = splat(b.maxy);
    const wf zero = splat(0.0f);
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        wf x = load(p.x + i), y = load(p.y + i), r = load(p.r + i);
        wf ex = vmax(vmax(minx - x, x - maxx), zero);
        wf ey = vmax(vmax(miny - y, y - maxy), zero);
        return le(ex * ex + ey * ey, r * r);
    });
}

// Squared distance from lane points (ax, ay), relative to a segment's start, to the segment
// (dx, dy); t from the segment as scaled_edge reads it (kScaled: a scale other than 1, whose
// products the usual segments need not pay). A zero-length segment gives t = 0/0 = NaN, which
// vmax turns into 0 (it returns its second operand when the first is NaN, on every target), so
// the distance to the start.
template <bool kScaled>
inline wf segment_distance2(wf ax, wf ay, wf dx, wf dy, wf sx, wf sy, wf len2, wf scale) {
    wf dot = kScaled ? (ax * scale) * sx + (ay * scale) * sy : ax * sx + ay * sy;
    wf t = vmin(vmax(dot / len2, splat(0.0f)), splat(1.0f));
    return squared(ax - t * dx) + squared(ay - t * dy);
}

inline uint32_t touch_capsule(const Points& pts, const Capsule& c, Filter f, uint32_t* out) noexcept {
    const ScaledEdge e = scaled_edge(c.dx, c.dy);
    const wf x0 = splat(c.x0), y0 = splat(c.y0), dx = splat(c.dx), dy = splat(c.dy);
    const wf sx = splat(e.sx), sy = splat(e.sy), len2 = splat(e.len2), scale = splat(e.scale);
    const wf radius = splat(c.radius);
    const auto test = [&](auto scaled) {
        return scan(pts, f, out, [&](const Points& p, uint32_t i) {
            wf reach = radius + load(p.r + i);
            wf d2 = segment_distance2<decltype(scaled)::value>(load(p.x + i) - x0, load(p.y + i) - y0, dx, dy, sx, sy,
                                                               len2, scale);
            return le(d2, reach * reach);
        });
    };
    return e.scale != 1.0f ? test(std::true_type{}) : test(std::false_type{});
}

// A float filter in the manner of Shewchuk's orient2d stage A, for the lanes (x, y) against the
// edge from (ox, oy) along (ex, ey): det = dl - dr is computed in float32 and its sign trusted
// when |det| > 4u (|dl| + |dr|) + 2^-120 (u = 2^-24; his bound is (3u + 16u^2)(|dl| + |dr|);
// the absolute term covers products that underflow). Overflow or NaN leaves a lane in neither
// `left` nor `right`. Undecided lanes, rare outside degenerate input, go to the exact scalar
// predicate (decide_exactly), so every target returns the exact answer, as the scalar one does.
struct EdgeSide {
    wm left, right;
};
inline EdgeSide edge_side(wf x, wf y, wf ox, wf oy, wf ex, wf ey) {
    const wf zero = splat(0.0f);
    wf dl = ex * (y - oy);
    wf dr = ey * (x - ox);
    wf det = dl - dr;
    wf bound = splat(0x1p-22f) * (vmax(dl, zero - dl) + vmax(dr, zero - dr)) + splat(0x1p-120f);
    return {gt(det, bound), lt(det, zero - bound)};
}

// The lanes `inside` plus those of `unsure` that exact(x, y) accepts, lane by lane.
template <class Exact>
inline wm decide_exactly(uint32_t inside, uint32_t unsure, const float* xs, const float* ys, Exact exact) {
    while (unsure) {
        int lane = __builtin_ctz(unsure);
        unsure &= unsure - 1;
        if (exact(xs[lane], ys[lane])) inside |= 1u << lane;
    }
    return from_bits(inside);
}

// The triangle's edges as the filter sees them: origin and float32 direction of each.
// The distance reads each edge as scaled_edge gives it (sx, sy, len2, scale; `scaled` when
// any edge has a scale other than 1).
struct TriangleLanes {
    wf ox[3], oy[3], ex[3], ey[3], sx[3], sy[3], len2[3], scale[3];
    bool scaled = false;
    explicit TriangleLanes(const Triangle& t) {
        const float vx[3] = {t.ax, t.bx, t.cx}, vy[3] = {t.ay, t.by, t.cy};
        for (int k = 0; k < 3; ++k) {
            float dx = vx[(k + 1) % 3] - vx[k], dy = vy[(k + 1) % 3] - vy[k];
            const ScaledEdge e = scaled_edge(dx, dy);
            ox[k] = splat(vx[k]);
            oy[k] = splat(vy[k]);
            ex[k] = splat(dx);
            ey[k] = splat(dy);
            sx[k] = splat(e.sx);
            sy[k] = splat(e.sy);
            len2[k] = splat(e.len2);
            scale[k] = splat(e.scale);
            scaled = scaled || e.scale != 1.0f;
        }
    }
};

// Either winding: a lane is outside when some edge has it surely left and another surely right.
inline wm in_triangle_block(const TriangleLanes& q, const Triangle& t, const float* xs, const float* ys,
                            uint32_t live) {
    wf x = load(xs), y = load(ys);
    wm pos = none(), neg = none(), undecided = none();
    for (int k = 0; k < 3; ++k) {
        EdgeSide s = edge_side(x, y, q.ox[k], q.oy[k], q.ex[k], q.ey[k]);
        pos = mor(pos, s.left);
        neg = mor(neg, s.right);
        undecided = mor(undecided, mnot(mor(s.left, s.right)));
    }
    wm outside = mand(pos, neg);
    uint32_t unsure = bits(mand(undecided, mnot(outside))) & live;
    return decide_exactly(bits(mnot(mor(outside, undecided))), unsure, xs, ys,
                          [&](float px, float py) { return in_triangle_exact(t, px, py); });
}

inline uint32_t in_triangle(const Points& pts, const Triangle& t, Filter f, uint32_t* out) noexcept {
    const TriangleLanes q(t);
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        return in_triangle_block(q, t, p.x + i, p.y + i, live_lanes(p.n - i));
    });
}

// A disk touches the closed triangle when its centre is inside (exactly) or an edge segment
// is within its radius (float32, closed).
inline uint32_t touch_triangle(const Points& pts, const Triangle& t, Filter f, uint32_t* out) noexcept {
    const TriangleLanes q(t);
    const auto test = [&](auto scaled) {
        return scan(pts, f, out, [&](const Points& p, uint32_t i) {
            wf x = load(p.x + i), y = load(p.y + i), r = load(p.r + i);
            wf r2 = r * r;
            wm near = none();
            for (int k = 0; k < 3; ++k) {
                wf d2 = segment_distance2<decltype(scaled)::value>(x - q.ox[k], y - q.oy[k], q.ex[k], q.ey[k], q.sx[k],
                                                                   q.sy[k], q.len2[k], q.scale[k]);
                near = mor(near, le(d2, r2));
            }
            uint32_t rest = ~bits(near) & live_lanes(p.n - i);
            if (!rest) return near;
            return mor(near, mand(in_triangle_block(q, t, p.x + i, p.y + i, rest), from_bits(rest)));
        });
    };
    return q.scaled ? test(std::true_type{}) : test(std::false_type{});
}

// Slab test (the segment-vs-AABB article) against entity boxes, t in [0, 1]; touching counts. An axis the segment
// does not move along (d = 0) is a containment test instead of a division by zero.
inline uint32_t cast_segment(const Points& pts, const Segment& s, Filter f, uint32_t* out) noexcept {
    const wf x0 = splat(s.x0), y0 = splat(s.y0), dx = splat(s.dx), dy = splat(s.dy);
    const wf zero = splat(0.0f), one = splat(1.0f);
    const bool move_x = s.dx != 0.0f, move_y = s.dy != 0.0f;
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        wf x = load(p.x + i), y = load(p.y + i), r = load(p.r + i);
        wf lox = x - r, hix = x + r, loy = y - r, hiy = y + r;
        wf tnear = zero, tfar = one;
        wm ok = all();
        if (move_x) {
            wf t1 = (lox - x0) / dx, t2 = (hix - x0) / dx;
            tnear = vmax(vmin(t1, t2), tnear);
            tfar = vmin(vmax(t1, t2), tfar);
        } else {
            ok = mand(ge(x0, lox), le(x0, hix));
        }
        if (move_y) {
            wf t1 = (loy - y0) / dy, t2 = (hiy - y0) / dy;
            tnear = vmax(vmin(t1, t2), tnear);
            tfar = vmin(vmax(t1, t2), tfar);
        } else {
            ok = mand(ok, mand(ge(y0, loy), le(y0, hiy)));
        }
        return mand(ok, le(tnear, tfar));
    });
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo
