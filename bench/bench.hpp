// What the native benchmarks share: a clock, the best-of timing harness, and the ratio
// convention (every figure that matters is a ratio of two timings taken in the same process).
#pragma once

#include <algorithm>
#include <chrono>

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

}  // namespace bench
