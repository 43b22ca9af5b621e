-- Helpers shared by the specs.
local soageo = require "soageo"

local util = {}

-- out[1..n], sorted: results come in storage order.
function util.sorted(out, n)
  local t = {}
  for i = 1, n do t[i] = out[i] end
  table.sort(t)
  return t
end

-- A layer holding points { x, y [, r [, mask]] } with ids 1, 2, ...
function util.layer_of(points)
  local l = soageo.layer()
  for i, p in ipairs(points) do l:set(i, p[1], p[2], p[3] or 0, p[4]) end
  return l
end

-- A function calling l:name(...) as a method, so that Lua numbers the arguments (and names the
-- function) in errors as a user's method call would.
function util.method(name)
  return assert(load("local l = ...; return l:" .. name .. "(select(2, ...))"))
end

-- Inside a describe: its specs run with SIMD target `arch` in use (restored afterwards). Specs
-- loop over soageo.archs() with it, so every target must answer as the scalar reference does.
-- busted's setup and teardown live in each spec file's environment, so the spec passes them.
function util.use_target(arch, setup, teardown)
  local previous
  setup(function() previous = soageo.use_arch(arch) end)
  teardown(function() soageo.use_arch(previous) end)
end

return util
