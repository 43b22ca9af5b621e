// What the native benchmarks share: a clock, the best-of timing harness, and the ratio
// convention (every figure that matters is a ratio of two timings taken in the same process).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/kernels.hpp"

// bench/stream_probe.cpp, one per target this build compiles.
namespace soageo {
namespace scalar { float stream_xy(const Points&) noexcept; }
#if defined(SOAGEO_HAVE_SSE2)
namespace sse2 { float stream_xy(const Points&) noexcept; }
#endif
#if defined(SOAGEO_HAVE_AVX2)
namespace avx2 { float stream_xy(const Points&) noexcept; }
#endif
#if defined(SOAGEO_HAVE_AVX512)
namespace avx512 { float stream_xy(const Points&) noexcept; }
#endif
#if defined(SOAGEO_HAVE_NEON)
namespace neon { float stream_xy(const Points&) noexcept; }
#endif
}  // namespace soageo

namespace bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The fastest of `reps` runs of f(), in seconds: the run least disturbed by the rest of the
// machine. Warm-up, if any, is the caller's (outside the timing).
template <class F>
double best_of(int reps, F f) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        Clock::time_point t0 = Clock::now();
        f();
        best = std::min(best, seconds_since(t0));
    }
    return best;
}

using Stream = float (*)(const soageo::Points&) noexcept;

// The streaming ceiling at the width of target k: what memory allows a kernel over x and y.
inline Stream stream_of(const soageo::KernelTable* k) {
#if defined(SOAGEO_HAVE_SSE2)
    if (!std::strcmp(k->name, "sse2")) return soageo::sse2::stream_xy;
#endif
#if defined(SOAGEO_HAVE_AVX2)
    if (!std::strcmp(k->name, "avx2")) return soageo::avx2::stream_xy;
#endif
#if defined(SOAGEO_HAVE_AVX512)
    if (!std::strcmp(k->name, "avx512")) return soageo::avx512::stream_xy;
#endif
#if defined(SOAGEO_HAVE_NEON)
    if (!std::strcmp(k->name, "neon")) return soageo::neon::stream_xy;
#endif
    return soageo::scalar::stream_xy;
}

}  // namespace bench
