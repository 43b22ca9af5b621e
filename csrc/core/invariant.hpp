// SOAGEO_ASSERT(cond): a precondition or invariant of the core that comments used to state
// ("the caller guarantees room", "cap >= n"). Checked where SOAGEO_CHECKS is defined: the core
// test, `make asan` and `make fuzz` builds; compiled out of the release module, whose hot loops
// pay nothing for it. A failure prints the condition and aborts (no Lua state exists here).
#pragma once

#if defined(SOAGEO_CHECKS)
#include <cstdio>
#include <cstdlib>
#define SOAGEO_ASSERT(cond)                                                                          \
    ((cond) ? (void)0                                                                                \
            : (std::fprintf(stderr, "%s:%d: soageo invariant failed: %s\n", __FILE__, __LINE__, #cond), \
               std::abort()))
#else
#define SOAGEO_ASSERT(cond) ((void)0)
#endif
