// The scalar target: compiled with its own flags (see the Makefile), in its own namespace.
#define SOAGEO_TARGET scalar
// no SOAGEO_WIDE_* switch: wide.hpp falls back to one plain float per lane
#include "target.inl"
