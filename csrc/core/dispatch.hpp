// Which kernel table runs: the best one this CPU supports, or one named by the caller.
#pragma once

#include <cstddef>

#include "kernels.hpp"

namespace soageo {

// The best target this CPU runs. Detected once (a function-local static: thread-safe since
// C++11, and never written again), so any number of Lua states may ask concurrently.
const KernelTable* kernels_best() noexcept;

// The target called `name` if this build has it and this CPU runs it, else null.
const KernelTable* kernels_named(const char* name) noexcept;

// Fills `out` with the targets this CPU runs, scalar first, widest last; returns how many.
size_t kernels_available(const KernelTable** out, size_t max) noexcept;

}  // namespace soageo
