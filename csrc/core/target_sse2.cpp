#define SOAGEO_TARGET sse2
#define SOAGEO_WIDE_SSE2
#include "target.inl"
