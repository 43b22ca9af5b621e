#define SOAGEO_TARGET neon
#define SOAGEO_WIDE_NEON
#include "target.inl"
