-- From Lua: layer:pairs (flat output into a reused table) against a pure-Lua sort-and-sweep,
-- and aoi:update against a pure-Lua grid AOI producing the same events. Run from the repo root.
package.path = "lualib/?.lua;bench/?.lua;" .. package.path
package.cpath = "./?.so;" .. package.cpath

local soageo = require "soageo"
local pure = require "pure_sweep"
local grid = require "pure_grid_aoi"
local clock = os.clock

local function best(reps, f)
  local b = math.huge
  for _ = 1, reps do
    local t0 = clock()
    f()
    b = math.min(b, clock() - t0)
  end
  return b
end

local function arrays(layer)
  local e = { xs = {}, ys = {}, rs = {}, ids = {}, n = 0 }
  for id, x, y, r in layer:each() do
    local n = e.n + 1
    e.n, e.xs[n], e.ys[n], e.rs[n], e.ids[n] = n, x, y, r, id
  end
  return e
end

print(string.format("pairs and AOI from Lua (%s, SIMD target %s); pairs: best of several calls, AOI: median tick:",
  _VERSION, soageo.arch()))
local pair_cases = {
  { "uniform 10,000 in 2000x2000", 10000, 2000 },
  { "uniform 100,000 in 6325x6325", 100000, 6325 },  -- the same density
  { "clustered 10,000 in 200x200", 10000, 200 },
}
for _, case in ipairs(pair_cases) do
  local n, span = case[2], case[3]
  math.randomseed(n + span)
  local layer = soageo.layer(n)
  for i = 1, n do layer:set(i, math.random() * span, math.random() * span, 2.5 + math.random() * 12.5) end
  local e = arrays(layer)
  local out, out2 = {}, {}
  local np, nq
  local t_native = best(5, function() out, np = layer:pairs(out) end)
  local t_pure = best(2, function() out2, nq = pure.pairs(e, out2) end)
  print(string.format("pairs %-28s %7d pairs (pure Lua %7d)  soageo %8.2f ms  pure Lua %9.2f ms  ratio %6.1fx",
    case[1], np, nq, t_native * 1e3, t_pure * 1e3, t_pure / t_native))
end

local function median(t)
  local s = table.move(t, 1, #t, 1, {})
  table.sort(s)
  return #s % 2 == 1 and s[(#s + 1) // 2] or (s[#s // 2] + s[#s // 2 + 1]) / 2
end

local function mean(t)
  local sum = 0
  for i = 1, #t do sum = sum + t[i] end
  return sum / #t
end

local function aoi_bench(name, n, span, view, ticks)
  math.randomseed(n)
  local layer = soageo.layer(n)
  for i = 1, n do layer:set(i, math.random() * span, math.random() * span) end
  local aoi = soageo.aoi(layer, { margin = 0 })
  local g = grid.new(view, 0)
  for i = 1, n do aoi:watch(i, view); g:watch(i) end
  local enter, leave = {}, {}
  aoi:update(enter, leave)
  g:update(arrays(layer))
  -- Tick 0 is a warm-up for both, not timed: it grows soageo's second visible buffer and
  -- shrinks the reused result tables from the initial fill (every pair an enter) to one
  -- tick's events. The steady state, what a scene pays every tick, is what is measured: the
  -- median tick of each, so that a burst of noise on this shared machine during one 1 ms
  -- soageo tick does not weigh like it would in a sum (the mean is printed too).
  local t_native, t_pure, events, pure_events = {}, {}, 0, 0
  for tick = 0, ticks do
    for id, x, y in layer:each() do
      local nx, ny = x + (math.random() * 4 - 2) * 0.7, y + (math.random() * 4 - 2) * 0.7
      layer:move(id, math.min(span, math.max(0, nx)), math.min(span, math.max(0, ny)))
    end
    local e = arrays(layer)
    local t0 = clock()
    local ne, nl
    enter, leave, ne, nl = aoi:update(enter, leave)
    local t1 = clock()
    local pe, pl = g:update(e)
    local t2 = clock()
    if tick > 0 then
      t_native[tick], t_pure[tick] = t1 - t0, t2 - t1
      events, pure_events = events + ne + nl, pure_events + (#pe + #pl) // 2
    end
  end
  local mn, mp = median(t_native), median(t_pure)
  print(string.format("aoi   %-28s %d watchers  %6d events/tick (grid %6d)  soageo %6.2f ms  grid Lua %7.2f ms  ratio %5.1fx  (means %.2f / %.2f ms: %.1fx)",
    name, n, events // ticks, pure_events // ticks, mn * 1e3, mp * 1e3, mp / mn,
    mean(t_native) * 1e3, mean(t_pure) * 1e3, mean(t_pure) / mean(t_native)))
end

aoi_bench("uniform 10,000 in 2000x2000", 10000, 2000, 50, 16)
aoi_bench("crowded 2,000 in 200x200", 2000, 200, 50, 16)
