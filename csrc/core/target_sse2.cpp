// The sse2 target: compiled with its own flags (see the Makefile), in its own namespace.
#define SOAGEO_TARGET sse2
#define SOAGEO_WIDE_SSE2
#include "target.inl"
