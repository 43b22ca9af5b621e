// Convex polygons: exact validation of the caller's vertices, the kernel form, and the exact
// point test the kernels fall back to (their bounds: rect.cpp).
#include "kernels.hpp"

namespace soageo {
namespace {

int sign_of_difference(float a, float b) noexcept { return a > b ? 1 : (a < b ? -1 : 0); }

}  // namespace

// Every decision here is exact on the float32 inputs: orientations by orient_exact, and the
// signs of coordinate differences by comparison.
//
// A closed polygon whose turns are all in one direction (or straight ahead) is convex exactly
// when it winds around once. Each turn is less than 180 degrees, so every full winding takes
// the edge direction through both open half-planes dx > 0 and dx < 0: the signs of dx change
// at least twice per winding, so more than two changes means winding more than once.
PolygonError make_polygon(const float* xs, const float* ys, uint32_t n, Polygon& out, uint32_t* vertex) noexcept {
    *vertex = 0;
    if (n < 3 || n > kMaxPolygon) return PolygonError::count;
    uint32_t keep[kMaxPolygon];  // caller's indices of the distinct consecutive vertices
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; ++i)
        if (m == 0 || xs[i] != xs[keep[m - 1]] || ys[i] != ys[keep[m - 1]]) keep[m++] = i;
    while (m > 1 && xs[keep[m - 1]] == xs[keep[0]] && ys[keep[m - 1]] == ys[keep[0]]) --m;
    if (m < 3) {
        *vertex = n - 1;
        for (uint32_t i = 1; i < n; ++i)
            if (xs[i] == xs[i - 1] && ys[i] == ys[i - 1]) { *vertex = i; break; }
        return PolygonError::too_few;
    }
    int winding = 0, first_dx = 0, last_dx = 0, changes = 0;
    for (uint32_t k = 0; k < m; ++k) {
        uint32_t a = keep[(k + m - 1) % m], b = keep[k], c = keep[(k + 1) % m];
        int o = orient_exact(xs[a], ys[a], xs[b], ys[b], xs[c], ys[c]);
        *vertex = b;
        if (o == 0) {
            // Collinear: straight on is fine, going back is a zero-area spike. On a line that
            // is not vertical the x order tells which; on a vertical one, the y order.
            int before = sign_of_difference(xs[b], xs[a]), after = sign_of_difference(xs[c], xs[b]);
            if (before == 0) before = sign_of_difference(ys[b], ys[a]), after = sign_of_difference(ys[c], ys[b]);
            if (before != after) return PolygonError::turns_back;
        } else if (winding == 0) {
            winding = o;
        } else if (o != winding) {
            return PolygonError::reflex;
        }
        int dx = sign_of_difference(xs[c], xs[b]);
        if (dx != 0) {
            if (first_dx == 0) first_dx = dx;
            else if (dx != last_dx) ++changes;
            last_dx = dx;
        }
    }
    if (last_dx != first_dx) ++changes;  // the change across the closing vertex
    if (changes > 2 || winding == 0) return PolygonError::winds_twice;
    out.n = m;
    for (uint32_t k = 0; k < m; ++k) {  // stored counter-clockwise
        uint32_t i = keep[winding > 0 ? k : m - 1 - k];
        out.x[k] = xs[i];
        out.y[k] = ys[i];
    }
    out.scaled = false;
    for (uint32_t k = 0; k < m; ++k) {
        uint32_t next = (k + 1) % m;
        out.ex[k] = out.x[next] - out.x[k];
        out.ey[k] = out.y[next] - out.y[k];
        out.edge[k] = scaled_edge(out.ex[k], out.ey[k]);
        out.scaled = out.scaled || out.edge[k].scale != 1.0f;
    }
    return PolygonError::ok;
}

bool in_polygon_exact(const Polygon& p, float px, float py) noexcept {
    for (uint32_t k = 0; k < p.n; ++k) {
        uint32_t next = k + 1 == p.n ? 0 : k + 1;
        if (orient_exact(p.x[k], p.y[k], p.x[next], p.y[next], px, py) < 0) return false;
    }
    return true;
}

}  // namespace soageo
