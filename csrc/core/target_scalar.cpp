#define SOAGEO_TARGET scalar
// no SOAGEO_WIDE_* switch: wide.hpp falls back to one plain float per lane
#include "target.inl"
