// The exact comparison of two parameters along a ray (exact.hpp), out of line: it runs only when
// two contacts lie within rounding of each other, and its scratch is large.
#include "exact.hpp"

#include <cmath>

namespace soageo {
namespace exact {

int compare(const Ratio& a, const Ratio& b) noexcept {
    // Each t is within 4 units in the last place of its exact value: farther apart, they are ordered.
    const double gap = 1e-13 * std::fmax(std::fabs(a.t), std::fabs(b.t));
    if (a.t < b.t - gap) return -1;
    if (a.t > b.t + gap) return 1;
    // a.n / a.d - b.n / b.d has the sign of a.n * b.d - b.n * a.d (both d > 0).
    double p[1024], q[512], tmp[32];
    const int np = mul(a.n, a.nn, b.d, b.nd, p, tmp);
    const int nq = mul(b.n, b.nn, a.d, a.nd, q, tmp);
    negate(q, nq);
    return sign(p, sum(p, np, q, nq, p));
}

}  // namespace exact
}  // namespace soageo
