-- From Lua: one in_sector query (about 1% hits, results into a reused table) on layers of
-- 10,000 and 100,000 entities uniform in 2000x2000, against bench/pure_sector.lua over plain
-- Lua arrays. Run from the repository root: lua5.4 bench/bench_lua.lua
package.path = "lualib/?.lua;bench/?.lua;" .. package.path
package.cpath = "./?.so;" .. package.cpath

local soageo = require "soageo"
local pure = require "pure_sector"

local best_of = require("timing").best_of

local function bench(n)
  math.randomseed(2026)
  local layer = soageo.layer(n)
  local xs, ys, ids = {}, {}, {}
  for i = 1, n do
    local x, y = math.random() * 2000, math.random() * 2000
    layer:set(i, x, y)
    local fx, fy = layer:get(i)  -- the same float32 positions on both sides
    xs[i], ys[i], ids[i] = fx, fy, i
  end
  -- A cone of radius 226 and half-angle pi/4 covers about 1% of the 2000x2000 square.
  local args = { 1000, 1000, 1, 0.3, 226, math.pi / 4 }
  local out_native, out_pure = {}, {}
  local _, n_native = layer:in_sector(args[1], args[2], args[3], args[4], args[5], args[6], out_native)
  local _, n_pure = pure.in_sector(xs, ys, ids, n, args[1], args[2], args[3], args[4], args[5], args[6], out_pure)
  local iters = math.max(1, 2000000 // n)
  local t_native = best_of(5, iters * 20, function()
    layer:in_sector(args[1], args[2], args[3], args[4], args[5], args[6], out_native)
  end)
  local t_pure = best_of(3, iters, function()
    pure.in_sector(xs, ys, ids, n, args[1], args[2], args[3], args[4], args[5], args[6], out_pure)
  end)
  print(string.format("%7d entities  hits %d (pure Lua %d, %.2f%%)  soageo %8.2f us  pure Lua %9.2f us  ratio %6.1fx",
    n, n_native, n_pure, 100 * n_native / n, t_native * 1e6, t_pure * 1e6, t_pure / t_native))
end

print(string.format("in_sector from Lua (%s, SIMD target %s), best of several runs, one process:", _VERSION, soageo.arch()))
bench(10000)
bench(100000)
