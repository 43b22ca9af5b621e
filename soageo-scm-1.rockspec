rockspec_format = "3.0"
package = "soageo"
version = "scm-1"
source = {
   url = "git+https://github.com/soageo/soageo.git",
}
description = {
   summary = "Spatial queries, pairs and area of interest for Lua game servers, on a SIMD C++ core",
   detailed = [[
soageo keeps a scene's entities (integer id, x, y, radius, 32 mask bits) in a native
struct-of-arrays layer and answers, from Lua 5.4 or 5.5 (skynet), the questions a game
server asks every tick:
- shape queries with exact, documented edge rules: sector (attack cone, reflex and full
  sectors included), circle, axis-aligned box, capsule (blade sweep), triangle and convex
  polygon (decided exactly), oriented rectangle, ring, each as a point test or a disk-overlap
  test, filtered by mask, results into a reused table in a documented order;
- segment casts (every hit ordered by entry, or the first one) and k-nearest queries;
- a spatial index kept inside every layer, built lazily, so a query costs about what it
  finds, with the full scan taken where it is cheaper;
- batches: many shapes of one kind against a layer in one call;
- pairs: every overlapping pair of a layer, or between two layers, by sort and sweep, sorted;
- area of interest: per-watcher view radius and mask filter, hysteresis margin, enter and
  leave events per update, each watcher's visible set and "who sees me";
- contact events: the box pairs of a layer that begin or stop overlapping, per update;
- snapshots: a layer, or the listed entities, as a checksummed string (dump/load/merge) to
  cross skynet services and cluster nodes.
SIMD kernels (SSE2, AVX2, AVX-512, NEON) are bit-identical to a scalar reference; memory comes
from the Lua allocator; every bad argument is a clear Lua error. Ships LuaLS/EmmyLua type
definitions (library/soageo.lua) and its manual (doc/).
]],
   homepage = "https://github.com/soageo/soageo",
   license = "MIT",
   labels = { "geometry", "spatial", "simd", "gamedev", "skynet" },
}
dependencies = {
   "lua >= 5.4, < 5.6",
}
build = {
   type = "make",
   build_variables = {
      CFLAGS = "$(CFLAGS)",
      LIBFLAG = "$(LIBFLAG)",
      LUA_INCDIR = "$(LUA_INCDIR)",
   },
   -- LUA_INCDIR again: the Makefile builds for a Lua other than its default in a directory
   -- named after it, and install copies the module from there.
   install_variables = {
      INST_LIBDIR = "$(LIBDIR)",
      INST_LUADIR = "$(LUADIR)",
      LUA_INCDIR = "$(LUA_INCDIR)",
   },
   copy_directories = { "doc", "library" },
}
-- Offline: the C++ core tests, the embedded-Lua hosts and the busted specs from the source
-- tree (busted and the Lua 5.4 headers and library from the system, nothing downloaded).
test = {
   type = "command",
   command = "make test-run",
}
