// The kernels' contract: plain spans of float32 columns in, slot numbers out. No Lua, no
// allocation, no exceptions. Every target fills one KernelTable; dispatch picks one.
#pragma once

#include <cstddef>
#include <cstdint>

namespace soageo {

// Columns of a layer. Each array holds at least n rounded up to kMaxWidth elements, 64-byte
// aligned, so a kernel reads whole blocks and never needs a scalar remainder loop.
struct Points {
    const float* x;
    const float* y;
    const float* r;
    const uint32_t* mask;
    uint32_t n;
};

constexpr int kMaxWidth = 16;   // lanes of the widest target (AVX-512)
constexpr int kAlign = 64;      // bytes

// An entity passes the filter when (entity mask & bits) != 0; `on` false means no filter.
struct Filter {
    uint32_t bits;
    bool on;
};

enum class Wedge : uint8_t { convex, reflex, full };

// A sector ready for the kernels: apex, radius, and the unit vectors of its two edges (left is
// the direction turned by +half_angle, right by -half_angle), rounded to float32 once.
struct Sector {
    float cx, cy, radius;
    float lx, ly, rx, ry;
    Wedge wedge;
};

// Builds the kernel form in double from the caller's numbers. `dx, dy` must be non-zero and
// finite, half_angle in (0, pi]. See sector.cpp for the exact rounding rules.
Sector make_sector(double x, double y, double dx, double dy, double radius, double half_angle) noexcept;

// Kernels write slot numbers to `out`, which must hold padded(n) entries: a kernel may store a
// whole block of lanes past its last hit (never past the padded end).
struct KernelTable {
    const char* name;
    int width;
    // Centre strictly inside the sector (boundary outside, apex outside unless full disk).
    uint32_t (*in_sector)(const Points&, const Sector&, Filter, uint32_t* out) noexcept;
    // Entity disk (centre, r) intersects the closed sector.
    uint32_t (*touch_sector)(const Points&, const Sector&, Filter, uint32_t* out) noexcept;
    // The memory ceiling: reads x and y of every slot like a kernel does, and nothing else.
    float (*stream_xy)(const Points&) noexcept;
};

// Targets compiled into this build; a pointer is null when this build has no such target.
const KernelTable* kernels_scalar() noexcept;
const KernelTable* kernels_sse2() noexcept;
const KernelTable* kernels_avx2() noexcept;
const KernelTable* kernels_avx512() noexcept;
const KernelTable* kernels_neon() noexcept;

}  // namespace soageo
