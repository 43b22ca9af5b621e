// The avx2 target: compiled with its own flags (see the Makefile), in its own namespace.
#define SOAGEO_TARGET avx2
#define SOAGEO_WIDE_AVX2
#include "target.inl"
