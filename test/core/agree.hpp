// The check of the shape tests: every target answers a query as the scalar reference does.
#pragma once

#include <vector>

#include "check.hpp"
#include "fixtures.hpp"

namespace fixture {

// Kernel `which` (named `name` in the failure) on every target for shape s over c: a failed
// CHECK names the first target that differs from the reference. Returns the reference's answer.
template <class Shape>
std::vector<uint32_t> agree(Kernel<Shape> soageo::KernelTable::*which, const char* name, const Cloud& c, const Shape& s,
                            soageo::Filter f) {
    std::vector<uint32_t> want;
    const soageo::KernelTable* bad = first_mismatch(which, c, s, f, &want);
    CHECK_MSG(!bad, "%s %s n=%u", bad ? bad->name : "", name, c.n);
    return want;
}

}  // namespace fixture
