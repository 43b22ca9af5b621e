// Exact arithmetic on small Shewchuk expansions, for the decisions of walls and tiles that the
// double filters cannot make: where along a ray two contacts lie (ties between walls and
// cells), and on which side of a tile's exact edge a float32 coordinate lies.
//
// An expansion is an array of doubles, smallest magnitude first, nonoverlapping, no zeros: its
// sign is the sign of its last component. All inputs are float32 values (multiples of 2^-149
// no larger than 2^128), and no expression here goes past degree 4, so no product overflows
// or underflows a double (2^-596 .. 2^512).
#pragma once

#include <cstdint>

namespace soageo {
namespace exact {

// Knuth's TwoSum: s + err == a + b exactly (round-to-nearest doubles, no overflow).
inline void two_sum(double a, double b, double& s, double& err) noexcept {
    s = a + b;
    const double bb = s - a;
    err = (a - (s - bb)) + (b - bb);
}

inline void fast_two_sum(double a, double b, double& s, double& err) noexcept {  // |a| >= |b|
    s = a + b;
    err = b - (s - a);
}

// Dekker's split and product: p + err == a * b exactly (no FMA needed, none contracted).
inline void split(double a, double& hi, double& lo) noexcept {
    const double c = 134217729.0 * a;  // 2^27 + 1
    hi = c - (c - a);
    lo = a - hi;
}

inline void two_product(double a, double b, double& p, double& err) noexcept {
    p = a * b;
    double ah, al, bh, bl;
    split(a, ah, al);
    split(b, bh, bl);
    err = al * bl - (((p - ah * bh) - al * bh) - ah * bl);
}

// h = e + b (h may be e). Returns h's length, at most n + 1.
inline int grow(const double* e, int n, double b, double* h) noexcept {
    int m = 0;
    double q = b;
    for (int i = 0; i < n; ++i) {
        double s, err;
        two_sum(q, e[i], s, err);
        if (err != 0.0) h[m++] = err;
        q = s;
    }
    if (q != 0.0) h[m++] = q;
    return m;
}

// h = e + f; h may be e (then with room for n + m). Returns at most n + m.
inline int sum(const double* e, int n, const double* f, int m, double* h) noexcept {
    if (h != e)
        for (int i = 0; i < n; ++i) h[i] = e[i];
    for (int j = 0; j < m; ++j) n = grow(h, n, f[j], h);
    return n;
}

// h = e * b (h not e). Returns at most 2n.
inline int scale(const double* e, int n, double b, double* h) noexcept {
    if (n == 0) return 0;
    int k = 0;
    double q, hh;
    two_product(e[0], b, q, hh);
    if (hh != 0.0) h[k++] = hh;
    for (int i = 1; i < n; ++i) {
        double p1, p0, s;
        two_product(e[i], b, p1, p0);
        two_sum(q, p0, s, hh);
        if (hh != 0.0) h[k++] = hh;
        fast_two_sum(p1, s, q, hh);
        if (hh != 0.0) h[k++] = hh;
    }
    if (q != 0.0) h[k++] = q;
    return k;
}

// h = e * f with `tmp` of room 2n; h needs room 2nm. Returns h's length.
inline int mul(const double* e, int n, const double* f, int m, double* h, double* tmp) noexcept {
    int len = 0;
    for (int j = 0; j < m; ++j) len = sum(h, len, tmp, scale(e, n, f[j], tmp), h);
    return len;
}

inline void negate(double* e, int n) noexcept {
    for (int i = 0; i < n; ++i) e[i] = -e[i];
}

inline int sign(const double* e, int n) noexcept { return n == 0 ? 0 : (e[n - 1] > 0.0 ? 1 : -1); }

// Within a few units in the last place of the exact value (the components summed smallest first).
inline double approx(const double* e, int n) noexcept {
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += e[i];
    return s;
}

// a - b of two doubles, exactly (h has room 2): -b grown by the expansion {a}.
inline int diff(double a, double b, double* h) noexcept { return grow(&a, a != 0.0 ? 1 : 0, -b, h); }

// A parameter along a ray, t = n / d with d > 0, both exact expansions of degree <= 2 in the
// float32 inputs; `t` is n / d in double (within a few units in the last place).
struct Ratio {
    double n[16];
    double d[16];
    int nn, nd;
    double t;
};

inline void ratio_int(Ratio& r, double v) noexcept {  // v = 0 or 1
    r.nn = v != 0.0 ? 1 : 0;
    r.n[0] = v;
    r.nd = 1;
    r.d[0] = 1.0;
    r.t = v;
}

// Sets r.t from n and d, and makes d positive.
inline void ratio_finish(Ratio& r) noexcept {
    if (sign(r.d, r.nd) < 0) {
        negate(r.n, r.nn);
        negate(r.d, r.nd);
    }
    r.t = approx(r.n, r.nn) / approx(r.d, r.nd);
}

// Sign of a - b, exactly. The doubles decide when they differ by more than their error.
int compare(const Ratio& a, const Ratio& b) noexcept;

}  // namespace exact
}  // namespace soageo
