#define SOAGEO_TARGET avx2
#define SOAGEO_WIDE_AVX2
#include "target.inl"
