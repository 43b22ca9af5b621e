// SOAGEO_ASSERT(cond): a precondition or invariant of the core ("cap >= n"), checked where
// SOAGEO_CHECKS is defined (the core test, `make asan`, `make fuzz`) and compiled out of the
// release module, whose hot loops pay nothing for it. A failure prints the condition and aborts.
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
