#include "dispatch.hpp"

#include <cstring>

namespace soageo {
namespace {

struct Candidate {
    const KernelTable* (*get)() noexcept;
    bool (*runs_here)() noexcept;
};

bool always() noexcept { return true; }

#if defined(__x86_64__) || defined(__i386__)
bool has_sse2() noexcept { __builtin_cpu_init(); return __builtin_cpu_supports("sse2"); }
bool has_avx2() noexcept { __builtin_cpu_init(); return __builtin_cpu_supports("avx2"); }
bool has_avx512() noexcept { __builtin_cpu_init(); return __builtin_cpu_supports("avx512f"); }
#endif

// Narrowest first; the scalar reference is always built.
const Candidate candidates[] = {
    {kernels_scalar, always},
#if defined(SOAGEO_HAVE_SSE2)
    {kernels_sse2, has_sse2},
#endif
#if defined(SOAGEO_HAVE_AVX2)
    {kernels_avx2, has_avx2},
#endif
#if defined(SOAGEO_HAVE_AVX512)
    {kernels_avx512, has_avx512},
#endif
#if defined(SOAGEO_HAVE_NEON)
    {kernels_neon, always},  // Advanced SIMD is part of every AArch64 CPU
#endif
};

constexpr size_t kCandidates = sizeof candidates / sizeof candidates[0];

}  // namespace

const KernelTable* kernels_best() noexcept {
    static const KernelTable* const best = [] {
        const KernelTable* runs[kCandidates];
        return runs[kernels_available(runs, kCandidates) - 1];  // the widest: they come narrowest first
    }();
    return best;
}

const KernelTable* kernels_named(const char* name) noexcept {
    for (const Candidate& c : candidates)
        if (std::strcmp(c.get()->name, name) == 0) return c.runs_here() ? c.get() : nullptr;
    return nullptr;
}

size_t kernels_available(const KernelTable** out, size_t max) noexcept {
    size_t k = 0;
    for (const Candidate& c : candidates)
        if (k < max && c.runs_here()) out[k++] = c.get();
    return k;
}

}  // namespace soageo
