// The neon target: compiled with its own flags (see the Makefile), in its own namespace.
#define SOAGEO_TARGET neon
#define SOAGEO_WIDE_NEON
#include "target.inl"
