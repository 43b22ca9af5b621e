// Sector kernels, written once against wide.hpp and compiled per target (see target.inl).
//
// The point test (the sector article's) uses cross products against the two edge vectors instead of the
// article's `D.U > |D| cos` form: it needs no sqrt, and a point exactly on an edge ray gives a
// cross product of exactly zero in the common cases (axis-aligned or 45-degree edges), so the
// strict rule holds on the boundary instead of depending on how sqrt and cos round.

namespace soageo {
namespace SOAGEO_TARGET {

struct SectorLanes {
    wf cx, cy, r2, lx, ly, rx, ry;
    explicit SectorLanes(const Sector& s)
        : cx(splat(s.cx)), cy(splat(s.cy)), r2(splat(s.radius * s.radius)),
          lx(splat(s.lx)), ly(splat(s.ly)), rx(splat(s.rx)), ry(splat(s.ry)) {}
};

template <Wedge kind>
inline uint32_t in_sector_as(const Points& pts, const Sector& s, Filter f, uint32_t* out) noexcept {
    const SectorLanes q(s);
    const wf zero = splat(0.0f);
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        wf dx = load(p.x + i) - q.cx;
        wf dy = load(p.y + i) - q.cy;
        wm near = lt(dx * dx + dy * dy, q.r2);
        if (kind == Wedge::full) return near;
        wm right_of_left = gt(dx * q.ly - dy * q.lx, zero);  // strictly clockwise of the left edge
        wm left_of_right = gt(q.rx * dy - q.ry * dx, zero);  // strictly counter-clockwise of the right edge
        wm wedge = kind == Wedge::convex ? mand(right_of_left, left_of_right) : mor(right_of_left, left_of_right);
        return mand(near, wedge);
    });
}

// Squared distance from the lane points (dx, dy), relative to the apex, to the edge segment
// [0, len * e] compared with rad2 (closed).
inline wm near_edge(wf dx, wf dy, wf ex, wf ey, wf len, wf rad2) {
    wf t = vmin(vmax(dx * ex + dy * ey, splat(0.0f)), len);
    wf qx = dx - t * ex;
    wf qy = dy - t * ey;
    return le(qx * qx + qy * qy, rad2);
}

// Disk vs closed sector (as in the separating-axis article): inside the closed wedge, the disk must reach the arc's
// circle; outside it, the nearest point of the sector lies on one of the two edge segments.
template <Wedge kind>
inline uint32_t touch_sector_as(const Points& pts, const Sector& s, Filter f, uint32_t* out) noexcept {
    const SectorLanes q(s);
    const wf zero = splat(0.0f);
    const wf radius = splat(s.radius);
    return scan(pts, f, out, [&](const Points& p, uint32_t i) {
        wf dx = load(p.x + i) - q.cx;
        wf dy = load(p.y + i) - q.cy;
        wf rad = load(p.r + i);
        wf reach = radius + rad;
        wm within = le(dx * dx + dy * dy, reach * reach);
        if (kind == Wedge::full) return within;
        wm right_of_left = ge(dx * q.ly - dy * q.lx, zero);
        wm left_of_right = ge(q.rx * dy - q.ry * dx, zero);
        wm wedge = kind == Wedge::convex ? mand(right_of_left, left_of_right) : mor(right_of_left, left_of_right);
        wf rad2 = rad * rad;
        wm edges = mor(near_edge(dx, dy, q.lx, q.ly, radius, rad2), near_edge(dx, dy, q.rx, q.ry, radius, rad2));
        return mor(mand(wedge, within), edges);
    });
}

inline uint32_t in_sector(const Points& p, const Sector& s, Filter f, uint32_t* out) noexcept {
    switch (s.wedge) {
    case Wedge::convex: return in_sector_as<Wedge::convex>(p, s, f, out);
    case Wedge::reflex: return in_sector_as<Wedge::reflex>(p, s, f, out);
    default: return in_sector_as<Wedge::full>(p, s, f, out);
    }
}

inline uint32_t touch_sector(const Points& p, const Sector& s, Filter f, uint32_t* out) noexcept {
    switch (s.wedge) {
    case Wedge::convex: return touch_sector_as<Wedge::convex>(p, s, f, out);
    case Wedge::reflex: return touch_sector_as<Wedge::reflex>(p, s, f, out);
    default: return touch_sector_as<Wedge::full>(p, s, f, out);
    }
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo
