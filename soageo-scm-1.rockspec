rockspec_format = "3.0"
package = "soageo"
version = "scm-1"
source = {
   url = "git+https://github.com/soageo/soageo.git",
}
description = {
   summary = "Geometry queries for game servers: SIMD sector/shape queries over a native SoA entity store",
   detailed = [[
A Lua 5.4/5.5 module with a C++17 core for skynet-style game servers: a struct-of-arrays
entity layer, attack-cone (sector) queries with exact boundary rules, SIMD kernels
(SSE2, AVX2, AVX-512, NEON) bit-identical to a scalar reference, and layer snapshots.
]],
   homepage = "https://github.com/soageo/soageo",
   license = "MIT",
}
dependencies = {
   "lua >= 5.4",
}
build = {
   type = "make",
   build_variables = {
      CFLAGS = "$(CFLAGS)",
      LIBFLAG = "$(LIBFLAG)",
      LUA_INCDIR = "$(LUA_INCDIR)",
   },
   install_variables = {
      INST_LIBDIR = "$(LIBDIR)",
      INST_LUADIR = "$(LUADIR)",
   },
   copy_directories = {},
}
