-- From Lua: what sharing costs (soageo.share, soageo.attach). A small query (touch_box 40 x 40)
-- on a shared view against the same query on the private layer it was shared from, 1,000,000
-- entities in 10,000 x 10,000, timed in turns in one Lua state; soageo.share of that layer
-- against one layer:dump plus one index build (layer:reindex of a layer loaded from that dump);
-- soageo.attach followed by view:close. CPU time, medians of rounds. Run from the repo root;
-- `lua5.4 bench/bench_share_lua.lua 100000` sizes the layer.
package.path = "lualib/?.lua;bench/?.lua;" .. package.path
package.cpath = "./?.so;" .. package.cpath

local soageo = require "soageo"
local timing = require "timing"
local clock, median = os.clock, timing.median

local N = tonumber(arg[1]) or 1000000
local SIDE = 10000 * math.sqrt(N / 1000000)
print(("share (%s, SIMD target %s)"):format(_VERSION, soageo.arch()))

local layer = soageo.layer(N)
math.randomseed(N)
for id = 1, N do layer:set(id, math.random() * SIDE, math.random() * SIDE, math.random() * 2) end
layer:reindex()

-- share against dump + an index build: share copies the layer's index when it is up to date
-- and builds one when it is not (here after one move).
local ts, tz, td, tb = {}, {}, {}, {}
for r = 1, 3 do
  layer:move(1, r, r)
  local t0 = clock()
  soageo.share(layer, "bench.share")
  tz[r] = clock() - t0
  soageo.unshare("bench.share")
  collectgarbage()
  layer:reindex()
  t0 = clock()
  soageo.share(layer, "bench.share")
  ts[r] = clock() - t0
  t0 = clock()
  local snap = layer:dump()
  td[r] = clock() - t0
  local copy = soageo.load(snap)
  snap = nil
  t0 = clock()
  copy:reindex()
  tb[r] = clock() - t0
  copy:close()
  collectgarbage()
end
local share, stale, dump, build = median(ts), median(tz), median(td), median(tb)
print(("layer:dump of %d entities %.1f ms + index build %.1f ms = %.1f ms"):format(N, dump * 1e3, build * 1e3, (dump + build) * 1e3))
print(("soageo.share, index built: %.1f ms: %.2fx dump + index (issue: at most 1x)"):format(stale * 1e3, stale / (dump + build)))
print(("soageo.share, the layer's index copied: %.1f ms: %.2fx dump + index"):format(share * 1e3, share / (dump + build)))

-- Small queries, side by side.
local view = assert(soageo.attach("bench.share"))
local q = 20000
local run = timing.small_boxes(q, SIDE, 40)
run(view)  -- the first query makes the view's hit scratch
local hp, hv
local t = timing.alternating(7, {
  { q, function() hp = run(layer) end },
  { q, function() hv = run(view) end },
})
assert(hp == hv, "the view and the layer disagree")
local mp, mv = t[1], t[2]
print(("touch_box 40 x 40 at %d entities (%.1f hits): private layer %.2f us, shared view %.2f us: %.2fx (issue: at most 1.2x)")
  :format(N, hp / q, mp * 1e6, mv * 1e6, mv / mp))
view:close()

-- attach + close.
local ta = {}
local k = 100000
for r = 1, 5 do
  local t0 = clock()
  for _ = 1, k do soageo.attach("bench.share"):close() end
  ta[r] = clock() - t0
end
print(("soageo.attach + view:close: %.2f us (issue: attach under 5 us)"):format(median(ta) / k * 1e6))
for _, e in ipairs(soageo.shared()) do
  if e.name == "bench.share" then
    print(("shared bytes: %.1f per entity (%.1f MB); the private layer's columns, id map and index held by no Lua state")
      :format(e.bytes / N, e.bytes / 1e6))
  end
end
soageo.unshare("bench.share")
