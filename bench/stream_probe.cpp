// The benchmarks' memory ceiling: reads x and y of every slot the way a kernel does, and
// nothing else. Compiled once per target with that target's flags and wide.hpp switch (the
// Makefile's $(BUILD)/bench/stream_<target>.o), so it streams at the kernels' width, but
// linked only into the benchmarks: it is no part of the module's kernel table.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"  // GCC 12's avx512 header, as in target_avx512.cpp
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include "core/kernels.hpp"
#include "core/wide.hpp"

namespace soageo {
namespace SOAGEO_TARGET {

float stream_xy(const Points& p) noexcept {
    wf ax = splat(0.0f), ay = splat(0.0f);  // two chains, so add latency does not hide the memory
    for (uint32_t i = 0; i < p.n; i += W) {
        ax = ax + load(p.x + i);
        ay = ay + load(p.y + i);
    }
    return hsum(ax - ay);
}

}  // namespace SOAGEO_TARGET
}  // namespace soageo
