// The exact orientation predicates (kernels.hpp), compiled once with the project's flags (no FMA
// contraction).
#include "exact.hpp"
#include "kernels.hpp"

namespace soageo {

// orient(a, b, p) = (bx - ax)(py - ay) - (by - ay)(px - ax)
//                 = bx*py - by*px + ax*by - ay*bx + ay*px - ax*py.
// Each product of two float32 values is exact in double (24 + 24 <= 53 bits) and lies between
// 2^-298 and 2^256, far from double underflow and overflow, so the six products summed as a
// Shewchuk expansion (grow-expansion with zero elimination) give the exact sign: the largest
// component of a nonoverlapping expansion dominates the rest.
int orient_exact(float ax, float ay, float bx, float by, float px, float py) noexcept {
    const double terms[6] = {
        double(bx) * py, -(double(by) * px), double(ax) * by,
        -(double(ay) * bx), double(ay) * px, -(double(ax) * py),
    };
    double e[7];
    int n = 0;
    for (double q : terms) n = exact::grow(e, n, q, e);
    return exact::sign(e, n);
}

bool in_triangle_exact(const Triangle& t, float px, float py) noexcept {
    int o1 = orient_exact(t.ax, t.ay, t.bx, t.by, px, py);
    int o2 = orient_exact(t.bx, t.by, t.cx, t.cy, px, py);
    int o3 = orient_exact(t.cx, t.cy, t.ax, t.ay, px, py);
    bool has_neg = o1 < 0 || o2 < 0 || o3 < 0;
    bool has_pos = o1 > 0 || o2 > 0 || o3 > 0;
    if (has_neg && has_pos) return false;
    if (has_neg || has_pos) return true;
    // All three zero: the triangle is degenerate and p lies on its line; inside when it lies
    // within the vertices' extent (the segment hull).
    auto lo = [](float a, float b, float c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); };
    auto hi = [](float a, float b, float c) { return a > b ? (a > c ? a : c) : (b > c ? b : c); };
    return lo(t.ax, t.bx, t.cx) <= px && px <= hi(t.ax, t.bx, t.cx) &&
           lo(t.ay, t.by, t.cy) <= py && py <= hi(t.ay, t.by, t.cy);
}

float segment_entry(const Segment& s, float x, float y, float r) noexcept {
    // The entry t once past the slab [c - r, c + r] of an axis the segment moves along
    auto slab = [r](float tnear, float c, float o, float d) {
        if (d == 0.0f) return tnear;
        float t1 = ((c - r) - o) / d, t2 = ((c + r) - o) / d;
        float lo = t1 < t2 ? t1 : t2;
        return lo > tnear ? lo : tnear;
    };
    return slab(slab(0.0f, x, s.x0, s.dx), y, s.y0, s.dy);
}

}  // namespace soageo
