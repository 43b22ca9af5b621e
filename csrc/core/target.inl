// Included by each target_*.cpp after it defines SOAGEO_TARGET (its namespace) and the
// SOAGEO_WIDE_* switch matching its compiler flags. Adding a kernel: write its body in a
// kernel_*.inl against wide.hpp, include it here, and add it to the table below.
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

#include "kernels.hpp"
#include "sweep.hpp"
#include "wide.hpp"
#include "kernel_scan.inl"
#include "kernel_sector.inl"
#include "kernel_shapes.inl"
#include "kernel_rect_ring.inl"
#include "kernel_polygon.inl"
#include "kernel_sweep.inl"
#include "kernel_aoi.inl"
#include "kernel_contacts.inl"
#include "kernel_interest.inl"

#define SOAGEO_PASTE2(a, b) a##b
#define SOAGEO_PASTE(a, b) SOAGEO_PASTE2(a, b)
#define SOAGEO_STR2(a) #a
#define SOAGEO_STR(a) SOAGEO_STR2(a)

namespace soageo {
namespace SOAGEO_TARGET {
const KernelTable table = {
    SOAGEO_STR(SOAGEO_TARGET),
    in_sector, touch_sector, in_circle, touch_circle, in_box, touch_box, touch_capsule,
    in_triangle, touch_triangle, in_rect, touch_rect, in_ring, touch_ring, in_polygon, touch_polygon,
    cast_segment, sweep_complete, sweep_between,
    aoi_scan, aoi_scan_d2, aoi_mover, aoi_scan_mover, find_u32, aoi_changed, match_u32,
    contact_search, contact_changed, interest_schedule, interest_select,
};
}  // namespace SOAGEO_TARGET

const KernelTable* SOAGEO_PASTE(kernels_, SOAGEO_TARGET)() noexcept { return &SOAGEO_TARGET::table; }
}  // namespace soageo
