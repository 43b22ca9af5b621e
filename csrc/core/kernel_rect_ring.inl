// Oriented rectangle and ring kernels, written once against wide.hpp (see target.inl).

namespace soageo {
namespace SOAGEO_TARGET {

// The rectangle's frame: along = p.d, across = p.n with n = (-uy, ux), p = P - A, each
// product rounded to float32 before the sum (the documented steps the reference repeats).
struct RectLanes {
    wf ax, ay, ux, uy, length, hw, neg_hw;
    explicit RectLanes(const Rect& r)
        : ax(splat(r.ax)), ay(splat(r.ay)), ux(splat(r.ux)), uy(splat(r.uy)), length(splat(r.length)),
          hw(splat(r.half_width)), neg_hw(splat(-r.half_width)) {}
};

inline uint32_t in_rect(const Points& pts, const Rect& r, Filter f, uint32_t* out) noexcept {
    const RectLanes q(r);
    const wf zero = splat(0.0f);
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        wf px = load(p.x + i) - q.ax, py = load(p.y + i) - q.ay;
        wf along = px * q.ux + py * q.uy;
        wf across = py * q.ux - px * q.uy;
        return mand(mand(ge(along, zero), le(along, q.length)), mand(ge(across, q.neg_hw), le(across, q.hw)));
    });
}

// touch_box in the rectangle's frame: the distance from the centre to [0, length] x
// [-hw, hw], per axis, clamped at 0.
inline uint32_t touch_rect(const Points& pts, const Rect& r, Filter f, uint32_t* out) noexcept {
    const RectLanes q(r);
    const wf zero = splat(0.0f);
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        wf px = load(p.x + i) - q.ax, py = load(p.y + i) - q.ay, rad = load(p.r + i);
        wf along = px * q.ux + py * q.uy;
        wf across = py * q.ux - px * q.uy;
        // An entity beyond float32 of the corner (p infinite) can make along or across NaN
        // (inf * 0, inf - inf). vmax returns its second operand on a NaN, so zero goes first
        // and the NaN reaches d2: a distance past float32, which only an infinite reach
        // squared accepts, as any infinite square does (the manual's Arithmetic).
        wf ex = vmax(zero, vmax(zero - along, along - q.length));
        wf ey = vmax(zero, vmax(q.neg_hw - across, across - q.hw));
        wf d2 = ex * ex + ey * ey, r2 = rad * rad;
        const wf inf = splat(std::numeric_limits<float>::infinity());
        return mor(le(d2, r2), mand(mnot(le(d2, inf)), le(inf, r2)));
    });
}

inline uint32_t in_ring(const Points& pts, const Ring& g, Filter f, uint32_t* out) noexcept {
    const wf cx = splat(g.cx), cy = splat(g.cy);
    const wf in2 = splat(g.inner * g.inner), out2 = splat(g.outer * g.outer);
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        wf d2 = squared(load(p.x + i) - cx) + squared(load(p.y + i) - cy);
        return mand(ge(d2, in2), lt(d2, out2));
    });
}

// The disk's distances from the centre span [d - r, d + r]; it meets [inner, outer] when
// d <= outer + r and, unless r >= inner already covers the hole, d >= inner - r.
inline uint32_t touch_ring(const Points& pts, const Ring& g, Filter f, uint32_t* out) noexcept {
    const wf cx = splat(g.cx), cy = splat(g.cy), inner = splat(g.inner), outer = splat(g.outer);
    const wf zero = splat(0.0f);
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        wf rad = load(p.r + i);
        wf d2 = squared(load(p.x + i) - cx) + squared(load(p.y + i) - cy);
        wf reach = outer + rad, gap = inner - rad;
        return mand(le(d2, reach * reach), mor(le(gap, zero), ge(d2, gap * gap)));
    });
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo
