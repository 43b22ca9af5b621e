// GCC 12's own avx512fintrin.h trips -Wmaybe-uninitialized (its _mm512_undefined_* helpers);
// the warning is about the header, not this code.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#define SOAGEO_TARGET avx512
#define SOAGEO_WIDE_AVX512
#include "target.inl"
