// How a query's shape meets the kernel table: which kernel runs a shape, and whether it tests
// entity disks. Decided here, in the core, for the binding and the core tests alike.
#pragma once

#include <cstdint>

#include "kernels.hpp"

namespace soageo {

template <class Shape>
using Kernel = uint32_t (*)(const Points&, const Shape&, Filter, uint32_t* out) noexcept;

// Runs kernel `which` of table k. A capsule whose ends coincide runs as its end disk.
template <class Shape>
uint32_t run_kernel(const KernelTable* k, Kernel<Shape> KernelTable::*which, const Points& p, const Shape& s, Filter f,
                    uint32_t* out) {
    return (k->*which)(p, s, f, out);
}
inline uint32_t run_kernel(const KernelTable* k, Kernel<Capsule> KernelTable::*which, const Points& p, const Capsule& c,
                           Filter f, uint32_t* out) {
    if (c.len2 == 0.0f) return k->touch_circle(p, end_disk(c), f, out);
    return (k->*which)(p, c, f, out);
}

// Whether kernel `which` tests entity disks (the index then widens its search by the largest
// radius in its cells). A shape without an overload here is searched as a disk test: always
// correct, a little wider for centre tests.
template <class Shape>
bool touches(Kernel<Shape> KernelTable::*) { return true; }
inline bool touches(Kernel<Circle> KernelTable::*w) { return w == &KernelTable::touch_circle; }
inline bool touches(Kernel<Box> KernelTable::*w) { return w == &KernelTable::touch_box; }
inline bool touches(Kernel<Sector> KernelTable::*w) { return w == &KernelTable::touch_sector; }
inline bool touches(Kernel<Triangle> KernelTable::*w) { return w == &KernelTable::touch_triangle; }
inline bool touches(Kernel<Rect> KernelTable::*w) { return w == &KernelTable::touch_rect; }
inline bool touches(Kernel<Ring> KernelTable::*w) { return w == &KernelTable::touch_ring; }
inline bool touches(Kernel<Polygon> KernelTable::*w) { return w == &KernelTable::touch_polygon; }

}  // namespace soageo
