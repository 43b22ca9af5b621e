-- The workload of bench/ab.lua: a fixed set of calls, each timed as the median of several
-- repetitions (warm-up outside the timing), printed as "name seconds" lines. It loads the
-- soageo.core found on package.cpath: ab.lua points that at one build, then at the other.
package.path = "lualib/?.lua;bench/?.lua;" .. package.path
local soageo = require "soageo"
local median_of = require("timing").median_of

local function uniform(n, side, seed)
  math.randomseed(seed)
  local layer = soageo.layer(n)
  local ids, xs, ys = {}, {}, {}
  for i = 1, n do
    local x, y = math.random() * side, math.random() * side
    layer:set(i, x, y, 1 + math.random() * 4)
    ids[i], xs[i], ys[i] = i, x, y
  end
  return layer, ids, xs, ys
end

local function jiggle(layer, ids, xs, ys, share)
  for i = 1, #ids do
    if share >= 1 or math.random() < share then
      xs[i] = xs[i] + math.random() * 4 - 2
      ys[i] = ys[i] + math.random() * 4 - 2
    end
  end
  layer:set_many(ids, xs, ys)
end

local function report(name, reps, per_call, fn)
  fn()
  print(string.format("%s %.9e", name, median_of(reps, per_call, fn)))
end

local out, out2 = {}, {}
for _, n in ipairs { 10000, 10240, 100000 } do
  local side = 2000 * math.sqrt(n / 10000)
  local layer = uniform(n, side, 7)
  local c = side / 2
  report("circle_r25_" .. n, 9, 3000, function() layer:in_circle(c, c, 25, out) end)
  report("box_50_" .. n, 9, 3000, function() layer:touch_box(c, c, c + 50, c + 50, out) end)
  report("sector_" .. n, 9, 3000, function() layer:in_sector(c, c, 1, 0, 25, math.pi / 4, out) end)
  report("circle_whole_" .. n, 5, 40, function() layer:in_circle(c, c, side, out) end)
  layer:index_mode("scan")
  report("scan_circle_r25_" .. n, 9, 300, function() layer:in_circle(c, c, 25, out) end)
  layer:index_mode("auto")
end

do
  local layer = uniform(100000, 2000, 11)
  local sectors = {}
  for _ = 1, 1000 do
    for _, v in ipairs { math.random() * 2000, math.random() * 2000, 1, 0, 50 + math.random() * 100, math.random() } do
      sectors[#sectors + 1] = v
    end
  end
  report("in_sector_batch_1000x100k", 3, 1, function() layer:in_sector_batch(sectors, out) end)
end

for _, n in ipairs { 10000, 100000 } do
  local side = 2000 * math.sqrt(n / 10000)
  local layer, ids, xs, ys = uniform(n, side, 13)
  report("pairs_" .. n, 5, 1, function() layer:pairs(out) end)
  local contacts = soageo.contacts(layer)
  contacts:update(out, out2)
  report("contacts_all_moving_" .. n, 5, 1, function()
    jiggle(layer, ids, xs, ys, 1)
    contacts:update(out, out2)
  end)
  report("set_many_" .. n, 5, 1, function() jiggle(layer, ids, xs, ys, 1) end)
  report("move_" .. n, 5, 1, function()
    for i = 1, n do layer:move(i, xs[i], ys[i]) end
  end)
end

for _, n in ipairs { 2000, 10000 } do
  local side = n == 2000 and 200 or 2000
  local layer, ids, xs, ys = uniform(n, side, 17)
  local aoi = soageo.aoi(layer)
  for i = 1, n do aoi:watch(i, 50) end
  aoi:update(out, out2)
  report("aoi_all_moving_" .. n, 7, 1, function()
    jiggle(layer, ids, xs, ys, 1)
    aoi:update(out, out2)
  end)
  report("aoi_10pct_moving_" .. n, 7, 1, function()
    jiggle(layer, ids, xs, ys, 0.1)
    aoi:update(out, out2)
  end)
end
