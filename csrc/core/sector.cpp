#include <cmath>

#include "kernels.hpp"

namespace soageo {

// The direction is scaled by its largest component before sqrt so huge and tiny inputs
// normalise without overflow; every step is a plain double operation so that the pure-Lua
// reference in test/ can repeat it exactly.
Sector make_sector(double x, double y, double dx, double dy, double radius, double half_angle) noexcept {
    double m = std::fabs(dx) > std::fabs(dy) ? std::fabs(dx) : std::fabs(dy);
    double sx = dx / m, sy = dy / m;
    double len = std::sqrt(sx * sx + sy * sy);
    double ux = sx / len, uy = sy / len;
    double c = std::cos(half_angle), s = std::sin(half_angle);
    // cos(pi/2) in double is 6e-17, not 0: snap it so that pi/2 is exactly the half-plane.
    if (std::fabs(c) < 0x1p-40) {
        c = 0.0;
        s = 1.0;
    }
    Sector k;
    k.cx = static_cast<float>(x);
    k.cy = static_cast<float>(y);
    k.radius = static_cast<float>(radius);
    k.lx = static_cast<float>(ux * c - uy * s);
    k.ly = static_cast<float>(ux * s + uy * c);
    k.rx = static_cast<float>(ux * c + uy * s);
    k.ry = static_cast<float>(uy * c - ux * s);
    k.wedge = half_angle >= M_PI ? Wedge::full : (c >= 0.0 ? Wedge::convex : Wedge::reflex);
    return k;
}

}  // namespace soageo
