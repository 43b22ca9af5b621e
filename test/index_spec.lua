-- The spatial index (layer:index_mode, layer:reindex, layer:nearest): every query through the
-- index returns exactly what the scan returns (the same ids in the same order), and both match
-- brute-force references, on every SIMD target, whatever the world looks like, with the index
-- fresh, stale or rebuilt after moves, adds and removes.
local soageo = require "soageo"
local rng = require "rng"
local util = require "spec_util"
local f32 = require("float32").f32

local function same(a, na, b, nb, what)
  if na ~= nb then error(string.format("%s: %d results vs %d", what, na, nb), 2) end
  for i = 1, na do
    if a[i] ~= b[i] then error(string.format("%s: result %d is %s vs %s", what, i, tostring(a[i]), tostring(b[i])), 2) end
  end
  if a[na + 1] ~= nil or b[nb + 1] ~= nil then error(what .. ": stale entries after the results", 2) end
end

-- Worlds: positions and radii for n entities.
local worlds = {
  uniform = function(g, i) return g:uniform(0, 2000), g:uniform(0, 2000), g:uniform(0, 3) end,
  clustered = function(g, i) return 500 + g:uniform(0, 1), 500 + g:uniform(0, 1), g:uniform(0, 0.1) end,
  sparse = function(g, i)  -- a few far-apart clusters in a world of +-1e7
    local c = i % 4
    local cx, cy = ({ -1e7, 1e7, -1e7, 9.99e6 })[c + 1], ({ -1e7, -1e7, 1e7, 9.99e6 })[c + 1]
    return cx + g:uniform(0, 300), cy + g:uniform(0, 300), g:uniform(0, 2)
  end,
  radii = function(g, i)  -- mixed radii from 0 to 1000: big disks far away must be found
    local r = (i % 10 == 0) and g:uniform(0, 1000) or g:uniform(0, 4)
    return g:uniform(0, 4000), g:uniform(0, 4000), r
  end,
  point = function(g, i) return 7.5, -3.25, 0 end,
}

local function fill(l, kind, n, g, ids)
  for i = 1, n do
    local x, y, r = worlds[kind](g, i)
    local id = (i * 7919) % 1000003 - 500000  -- ids in no order, some negative
    l:set(id, x, y, r, 1 << (i % 3))
    ids[#ids + 1] = id
  end
end

-- A random query somewhere near the entities: small mostly, sometimes the whole world.
local function random_query(g, l, kind)
  local ids = {}
  for id in l:each() do ids[#ids + 1] = id; if #ids > 50 then break end end
  local cx, cy = 0, 0
  if #ids > 0 then cx, cy = l:get(ids[g:int(1, #ids)]) end
  local big = g:int(1, 8) == 1
  local s = big and 1e7 or ({ 0, 1, 10, 30, 60, 200 })[g:int(1, 6)]
  cx, cy = cx + g:uniform(-s, s), cy + g:uniform(-s, s)
  return cx, cy, s, g:uniform(-1, 1), g:uniform(-1, 1)
end

local queries = {
  function(l, g, q, out, mask) local cx, cy, s = q(); return l:in_box(cx - s, cy - s * 0.5, cx + s, cy + s, out, mask) end,
  function(l, g, q, out, mask) local cx, cy, s = q(); return l:touch_box(cx - s, cy - s, cx + s * 0.3, cy + s, out, mask) end,
  function(l, g, q, out, mask) local cx, cy, s = q(); return l:in_circle(cx, cy, s, out, mask) end,
  function(l, g, q, out, mask) local cx, cy, s = q(); return l:touch_circle(cx, cy, s, out, mask) end,
  function(l, g, q, out, mask)
    local cx, cy, s, dx, dy = q(); if dx == 0 and dy == 0 then dx = 1 end
    return l:in_sector(cx, cy, dx, dy, s, g:uniform(0.05, math.pi), out, mask)
  end,
  function(l, g, q, out, mask)
    local cx, cy, s, dx, dy = q(); if dx == 0 and dy == 0 then dx = 1 end
    return l:touch_sector(cx, cy, dx, dy, s, g:uniform(0.05, math.pi), out, mask)
  end,
  function(l, g, q, out, mask)
    local cx, cy, s, dx, dy = q(); return l:touch_capsule(cx, cy, cx + dx * s * 3, cy + dy * s * 3, s * 0.2, out, mask)
  end,
  function(l, g, q, out, mask)
    local cx, cy, s, dx, dy = q(); return l:in_triangle(cx, cy, cx + s, cy + dy * s, cx + dx * s, cy + s, out, mask)
  end,
  function(l, g, q, out, mask)
    local cx, cy, s, dx, dy = q(); return l:touch_triangle(cx, cy, cx + s, cy + dy * s, cx + dx * s, cy + s, out, mask)
  end,
  function(l, g, q, out, mask)
    local cx, cy, s, dx, dy = q()
    local ids, ts, n = l:cast_segment(cx, cy, cx + dx * s * 4, cy + dy * s * 4, out, nil, mask)
    return ids, n
  end,
  function(l, g, q, out, mask)
    local cx, cy, s, dx, dy = q()
    local id, t = l:cast_segment_first(cx, cy, cx + dx * s * 4, cy + dy * s * 4, mask)
    for i = #out, 1, -1 do out[i] = nil end
    if id then out[1] = id; out[2] = t; return out, 2 end
    return out, 0
  end,
  function(l, g, q, out, mask)
    local cx, cy, s = q()
    local res, n = l:in_circle_batch({ cx, cy, s, cx + s, cy, s * 0.5, cx, cy - s, 3 }, out, mask)
    return res, 2 * n  -- flat (shape, id) pairs
  end,
  function(l, g, q, out, mask)
    local cx, cy, s, dx = q()
    local res, n = l:touch_sector_batch({ cx, cy, 1, dx, s, 1.0, cx, cy, -1, 0.5, s * 0.3, 3.0 }, out, mask)
    return res, 2 * n
  end,
  function(l, g, q, out, mask)
    local cx, cy, s, dx, dy = q(); if dx == 0 and dy == 0 then dx = 1 end
    return l:in_rect(cx, cy, dx, dy, s * 2, s * 0.3, out, mask)
  end,
  function(l, g, q, out, mask)
    local cx, cy, s, dx, dy = q(); if dx == 0 and dy == 0 then dy = 1 end
    return l:touch_rect(cx, cy, dx, dy, s, s * 0.1, out, mask)
  end,
  function(l, g, q, out, mask) local cx, cy, s = q(); return l:in_ring(cx, cy, s * 0.5, s, out, mask) end,
  function(l, g, q, out, mask) local cx, cy, s = q(); return l:touch_ring(cx, cy, s * 0.8, s, out, mask) end,
  function(l, g, q, out, mask)
    local cx, cy, s = q()
    local hex = {}
    for k = 0, 5 do hex[#hex + 1] = cx + s * math.cos(k * math.pi / 3); hex[#hex + 1] = cy + s * 0.6 * math.sin(k * math.pi / 3) end
    if s == 0 then hex = { cx, cy, cx + 1, cy, cx, cy + 1 } end
    return (g:int(0, 1) == 0 and l.in_polygon or l.touch_polygon)(l, hex, out, mask)
  end,
  function(l, g, q, out, mask)
    local cx, cy, s = q()
    local res, n = l:touch_polygon_batch({ { cx, cy, cx + s + 1, cy, cx, cy + s + 1 }, { cx - s - 1, cy, cx, cy - s - 1, cx, cy } }, out, mask)
    return res, 2 * n
  end,
  function(l, g, q, out, mask)
    local cx, cy, s = q()
    local res, n = l:in_ring_batch({ cx, cy, 0, s, cx + s, cy, s * 0.5, s * 2 }, out, mask)
    return res, 2 * n
  end,
  function(l, g, q, out, mask)
    local cx, cy, s = q()
    local k = g:int(0, 12)
    local max = (g:int(1, 3) == 1) and s or nil
    return l:nearest(cx, cy, k, max, out, mask)
  end,
}

-- Every query with the index ("index" mode, fresh) against the scan ("scan" mode).
local function compare(l, g, kind, rounds, what)
  local stats, indexed = {}, 0
  for round = 1, rounds do
    local qi = g:int(1, #queries)
    local seed = g:next()
    local mask = (g:int(1, 3) == 1) and g:int(1, 7) or nil
    local function run(mode)
      l:index_mode(mode)
      local qg = rng.new(seed)
      local out = { "stale", "stale", "stale" }
      local res, n = queries[qi](l, qg, function() return random_query(qg, l, kind) end, out, mask)
      assert(res == out)
      return res, n
    end
    local indexed0 = l:stats(stats).indexed
    local a, na = run("scan")
    local indexed1 = l:stats(stats).indexed
    assert(indexed1 == indexed0, what .. ": a query went through the index in the scan mode")
    local b, nb = run("index")
    indexed = indexed + (l:stats(stats).indexed > indexed1 and 1 or 0)
    same(a, na, b, nb, string.format("%s: query %d round %d", what, qi, round))
  end
  l:index_mode("auto")
  -- Answers equal to the scan's prove nothing if the scan gave them: in a world the index
  -- divides well, most queries must have gone through it (the others are the huge ones, and
  -- those whose plan would visit too many rows). Everything in one cell plans poorly.
  if #l >= 100 and (kind == "uniform" or kind == "radii" or kind == "sparse") then
    assert(indexed >= rounds // 2, string.format("%s: only %d of %d queries went through the index", what, indexed, rounds))
  end
end

-- Brute force in Lua over l:each() (slot order, which is the documented result order).
local function brute_box(l, minx, miny, maxx, maxy)
  local out = {}
  for id, x, y in l:each() do
    if x >= minx and x <= maxx and y >= miny and y <= maxy then out[#out + 1] = id end
  end
  return out
end

local function d2_of(x, y, cx, cy)
  local dx, dy = f32(x - cx), f32(y - cy)
  return f32(f32(dx * dx) + f32(dy * dy))
end

local function brute_circle(l, cx, cy, r)
  local out, r2 = {}, f32(r * r)
  for id, x, y in l:each() do
    if d2_of(x, y, cx, cy) < r2 then out[#out + 1] = id end
  end
  return out
end

local function brute_nearest(l, cx, cy, k, max, mask)
  local all = {}
  local lim = max and f32(f32(max) * f32(max))
  for id, x, y, _, m in l:each() do
    local d2 = d2_of(x, y, cx, cy)
    if (not mask or (m & mask) ~= 0) and (not lim or d2 < lim) then all[#all + 1] = { d2, id } end
  end
  table.sort(all, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
  local out = {}
  for i = 1, math.min(k, #all) do out[i] = all[i][2] end
  return out
end

local function check_brute(l, g, what)
  for _ = 1, 8 do
    local cx, cy, s = random_query(g, l, nil)
    local cxf, cyf, sf = f32(cx), f32(cy), f32(s)
    for _, mode in ipairs({ "scan", "index" }) do
      l:index_mode(mode)
      local a, na = l:in_box(cxf - sf, cyf - sf, cxf + sf, cyf + sf)
      local ref = brute_box(l, cxf - sf, cyf - sf, cxf + sf, cyf + sf)
      same(a, na, ref, #ref, what .. " in_box " .. mode)
      a, na = l:in_circle(cxf, cyf, sf)
      ref = brute_circle(l, cxf, cyf, sf)
      same(a, na, ref, #ref, what .. " in_circle " .. mode)
      local k = g:int(0, 10)
      a, na = l:nearest(cxf, cyf, k)
      ref = brute_nearest(l, cxf, cyf, k)
      same(a, na, ref, #ref, what .. " nearest " .. mode)
    end
  end
  l:index_mode("auto")
end

util.each_target(describe, setup, teardown, function(arch) return "when the index serves queries on target " .. arch end, function(arch)

  for _, kind in ipairs({ "uniform", "clustered", "sparse", "radii", "point" }) do
    it("returns what the scan and brute force return on a " .. kind .. " world", function()
      local g = rng.new(#kind * 1000 + #arch)
      for _, n in ipairs({ 0, 1, 5, 100, 2000 }) do
        local l = soageo.layer()
        local ids = {}
        fill(l, kind, n, g, ids)
        local what = string.format("%s %s n=%d", arch, kind, n)
        compare(l, g, kind, 60, what)
        check_brute(l, g, what)
        -- Moves (the index rebuilt from its last order), then adds and removes.
        if n > 0 then
          for _ = 1, n // 3 + 1 do
            local id = ids[g:int(1, #ids)]
            local x, y = l:get(id)
            l:move(id, x + g:uniform(-2, 2), y + g:uniform(-2, 2))
          end
          compare(l, g, kind, 30, what .. " after moves")
          for _ = 1, n // 10 + 1 do
            local id = ids[g:int(1, #ids)]
            l:move(id, g:uniform(-50, 2050), g:uniform(-50, 2050))  -- some jump far
          end
          compare(l, g, kind, 20, what .. " after jumps")
          for i = 1, n // 5 + 1 do
            if i % 2 == 0 then l:remove(ids[g:int(1, #ids)]) else
              local x, y, r = worlds[kind](g, i)
              l:set(10000000 + i, x, y, r, 3)
            end
          end
          compare(l, g, kind, 30, what .. " after adds and removes")
          check_brute(l, g, what .. " after adds and removes")
        end
      end
    end)
  end
end)

-- A layer of 3000 entities of `kind`, filled from `g`, its ids in `ids`.
local function tick_world(kind, g)
  local l, ids = soageo.layer(), {}
  fill(l, kind, 3000, g, ids)
  return l, ids
end

-- Moves every `every`-th entity of ids by up to `step` per axis.
local function nudge(l, g, ids, every, step)
  for i = 1, #ids, every do
    local x, y = l:get(ids[i])
    l:move(ids[i], x + g:uniform(-step, step), y + g:uniform(-step, step))
  end
end

describe("when ticks of small moves keep the index loose", function()
  -- Moves that add up to less than a quarter of a cell only refresh the positions the index
  -- holds; its buckets stay, and every query widens its area by how far entities may have gone.
  for _, kind in ipairs({ "uniform", "sparse", "radii" }) do
    it("returns what the scan returns at every tick on a " .. kind .. " world", function()
      local g = rng.new(#kind * 31)
      local l, ids = tick_world(kind, g)
      for tick = 1, 8 do
        nudge(l, g, ids, 2, tick == 6 and 40 or 3)  -- one tick moves far: the index is rebuilt
        compare(l, g, kind, 60, string.format("%s tick %d", kind, tick))
        check_brute(l, g, string.format("%s tick %d", kind, tick))
      end
    end)
  end
end)

describe("when entities die and spawn between ticks", function()
  -- Up to 64 adds and removes since the index last caught up are patched into it (removed
  -- entities leave dead positions, added ones join the run every query visits); more, or too
  -- many added since the last build, and it is built again.
  for _, kind in ipairs({ "uniform", "sparse", "radii" }) do
    it("patches them into the index and returns what the scan returns on a " .. kind .. " world", function()
      local g = rng.new(#kind * 71)
      local l, ids = tick_world(kind, g)
      l:reindex()
      local fresh_id, builds = 1000000000, l:stats().builds
      for tick = 1, 10 do
        nudge(l, g, ids, 3, 1)
        local deaths = tick == 7 and 70 or g:int(0, 25)  -- tick 7: more than the log holds
        for _ = 1, deaths do
          local j = g:int(1, #ids)
          assert.is_true(l:remove(ids[j]))
          ids[j] = ids[#ids]
          ids[#ids] = nil
        end
        for _ = 1, (tick == 7 and 0 or g:int(0, 25)) do
          fresh_id = fresh_id + 1
          local x, y, r = worlds[kind](g, fresh_id)
          l:set(fresh_id, x, y, r, g:int(1, 7))
          ids[#ids + 1] = fresh_id
        end
        l:set(-1, worlds[kind](g, 0))  -- one born and killed in the same tick
        l:remove(-1)
        -- a radius and a mask changed by set; on tick 4 a radius past any cell
        local id = ids[g:int(1, #ids)]
        local x, y = l:get(id)
        l:set(id, x, y, tick == 4 and 5000 or g:uniform(0, 2), g:int(1, 7))
        compare(l, g, kind, 40, string.format("%s tick %d", kind, tick))
        check_brute(l, g, string.format("%s tick %d", kind, tick))
      end
      local s = l:stats()
      -- Built again on tick 7 (the log overflowed), tick 4 (a radius wider than a cell) and at
      -- most twice for the drift or the added entities; patched on the other ticks.
      assert.is_true(s.builds - builds <= 4, "builds " .. (s.builds - builds))
      assert.is_true(s.refreshes >= 6, "refreshes " .. s.refreshes)
    end)
  end
end)

describe("when a few entities jump far among small moves", function()
  -- Respawns and teleports: up to 8 a tick are refiled one by one, and the index stays loose.
  for _, kind in ipairs({ "uniform", "radii" }) do
    it("stays loose and returns what the scan returns on a " .. kind .. " world", function()
      local g = rng.new(#kind * 57)
      local l, ids = tick_world(kind, g)
      l:reindex()
      local builds = l:stats().builds
      for tick = 1, 8 do
        nudge(l, g, ids, 1, 0.2)
        for j = 1, tick do  -- 1 to 8 jumps, some to the same place
          l:move(ids[g:int(1, #ids)], j % 2 == 0 and 0 or g:uniform(0, 2000), g:uniform(0, 2000))
        end
        compare(l, g, kind, 40, string.format("%s jumps tick %d", kind, tick))
      end
      local s = l:stats()
      assert.are.equal(builds, s.builds)
      assert.is_true(s.refreshes >= 8)
    end)
  end
end)

describe("when the index is stale, fresh or rebuilt in auto mode", function()
  it("answers the same at every step of a tick loop", function()
    local g = rng.new(99)
    local l = soageo.layer()
    local ids = {}
    fill(l, "uniform", 5000, g, ids)
    local ref = soageo.layer()
    for id, x, y, r, m in l:each() do ref:set(id, x, y, r, m) end
    ref:index_mode("scan")
    for tick = 1, 6 do
      for i = 1, #ids, tick do
        local x, y = l:get(ids[i])
        local nx, ny = x + g:uniform(-2, 2), y + g:uniform(-2, 2)
        l:move(ids[i], nx, ny)
        ref:move(ids[i], nx, ny)
      end
      -- 1 query per tick first (the scan), then many (the index gets built mid-way).
      for q = 1, (tick == 1 and 1 or 200) do
        local cx, cy = g:uniform(0, 2000), g:uniform(0, 2000)
        local a, na = l:touch_box(cx - 25, cy - 25, cx + 25, cy + 25)
        local b, nb = ref:touch_box(cx - 25, cy - 25, cx + 25, cy + 25)
        same(a, na, b, nb, "tick " .. tick .. " query " .. q)
        a, na = l:nearest(cx, cy, 5)
        b, nb = ref:nearest(cx, cy, 5)
        same(a, na, b, nb, "nearest tick " .. tick .. " query " .. q)
      end
    end
    l:reindex()
    local a, na = l:in_box(0, 0, 2000, 2000)
    local b, nb = ref:in_box(0, 0, 2000, 2000)
    same(a, na, b, nb, "whole world after reindex")
  end)
end)

describe("when the world is huge and sparse or degenerate", function()
  it("answers as the scan where float32 squares overflow", function()
    -- An entity 1.75e38 away with a radius of 1.85e36: (radius + r)^2 is infinite in float32,
    -- and so is its squared distance, which the touch tests' closed comparison then accepts.
    -- The scan's answer is the kernels' (the arithmetic rule); the index must not differ.
    local l = soageo.layer()
    l:set(1, -1.75e38, 350, 1.85e36)
    l:set(2, 270, -5.7e37, 2)
    for i = 3, 40 do l:set(i, i * 10, 500, 1) end
    local queries = {
      { "touch_circle", 500, 500, 300 }, { "touch_capsule", 400, 500, 600, 500, 50 },
      { "touch_rect", 400, 500, 1, 0, 200, 50 }, { "touch_triangle", 400, 400, 600, 400, 500, 600 },
      { "touch_ring", 500, 500, 100, 300 }, { "touch_sector", 500, 500, 1, 0, 300, 1 },
      { "touch_box", 400, 400, 600, 600 }, { "touch_polygon", { 400, 400, 600, 400, 500, 600 } },
      { "in_circle", 500, 500, 300 }, { "nearest", 0, 0, 3 },
    }
    for _, q in ipairs(queries) do
      local got = {}
      for _, mode in ipairs({ "scan", "index", "auto" }) do
        l:index_mode(mode)
        local out, n = l[q[1]](l, table.unpack(q, 2))
        got[mode] = { n, table.unpack(out, 1, n) }
      end
      assert.are.same(got.scan, got.index)
      assert.are.same(got.scan, got.auto)
    end
    l:index_mode("auto")
  end)

  it("keeps the index's memory proportional to the entities, not to the area", function()
    -- The same capacity and count in every world: the index takes the same memory whatever
    -- the coordinates, about 64 bytes per slot of capacity (doc/manual.md).
    local grown = {}
    -- uniform twice: the first build may meet the collector's one-time resizing after the
    -- earlier specs (8 KB less, once, in the whole suite on Lua 5.4.7)
    for _, kind in ipairs({ "uniform", "uniform", "sparse", "point", "radii" }) do
      local g = rng.new(5)
      local l = soageo.layer(20000)
      fill(l, kind, 20000, g, {})
      -- Twice: objects with finalizers (earlier specs') are freed only by the second cycle.
      collectgarbage("collect")
      collectgarbage("collect")
      local before = collectgarbage("count")
      l:reindex()
      grown[kind] = (collectgarbage("count") - before) * 1024
      assert.is_true(grown[kind] > 0, kind .. ": the index was built")
      local per_slot = grown[kind] / l:capacity()
      assert.is_true(per_slot < 72, kind .. ": " .. per_slot .. " bytes per slot of capacity")
      l:close()
    end
    -- (within a few KB of 2 MB: the collector's own bookkeeping moves the count a little)
    for _, kind in ipairs({ "sparse", "point", "radii" }) do
      assert.is_true(math.abs(grown[kind] - grown.uniform) < 16384, kind .. ": " .. grown[kind] .. " vs " .. grown.uniform)
    end
  end)
end)

describe("when an entity is nearer a query than float32 squares can tell", function()
  it("returns it through the index as the scan does, every touch shape and batch", function()
    -- dx = -1e-23: dx * dx underflows to 0, so a query of radius 0 touches the entity, which
    -- lies across a cell border from the query point.
    local layer = soageo.layer()
    for i = 1, 10000 do layer:set(i, i % 100 * 20 - 1000, i // 100 * 20 - 1000) end
    layer:set(0, -1e-23, 0)
    layer:reindex()
    local queries = {
      function(out) return layer:touch_circle(1e-29, 0, 0, out) end,
      function(out) return layer:touch_box(1e-29, 0, 1e-29, 0, out) end,
      function(out) return layer:touch_capsule(1e-29, 0, 2e-29, 0, 0, out) end,
      function(out) return layer:touch_sector(1e-29, 0, 1, 0, 1e-29, math.pi / 4, out) end,
      function(out) return layer:touch_triangle(1e-29, 0, 2e-29, 0, 1e-29, 1e-29, out) end,
      function(out)  -- flat (shape, id) pairs: 2n entries
        local o, n = layer:touch_circle_batch({ 1e-29, 0, 0 }, out)
        return o, 2 * n
      end,
    }
    local was = soageo.arch()
    for _, arch in ipairs(soageo.archs()) do
      soageo.use_arch(arch)
      for k, q in ipairs(queries) do
        layer:index_mode("scan")
        local a, na = q({})
        local before = layer:stats().indexed
        layer:index_mode("index")
        local b, nb = q({})
        assert.is_true(layer:stats().indexed > before, arch .. " query " .. k .. " went through the index")
        same(a, na, b, nb, arch .. " query " .. k)
        local found = false
        for i = 1, #a do found = found or a[i] == 0 end
        assert.is_true(found, arch .. " query " .. k .. " touches entity 0")
      end
    end
    soageo.use_arch(was)
  end)
end)

describe("when nearest is asked", function()
  it("orders by float32 distance then id, honours k, mask and a strict max_dist", function()
    local l = soageo.layer()
    -- Ties: four entities at distance 5 (3-4-5), ids out of order; one exactly at max_dist.
    l:set(40, 3, 4); l:set(10, -3, 4); l:set(30, 3, -4); l:set(20, -4, 3, 0, 2)
    l:set(50, 1, 0); l:set(60, 100, 0)
    for _, mode in ipairs({ "scan", "index" }) do
      l:index_mode(mode)
      local out, n = l:nearest(0, 0, 3)
      same(out, n, { 50, 10, 20 }, 3, mode .. " ties by id")
      out, n = l:nearest(0, 0, 100)
      same(out, n, { 50, 10, 20, 30, 40, 60 }, 6, mode .. " k larger than the layer")
      out, n = l:nearest(0, 0, 100, 5)
      same(out, n, { 50 }, 1, mode .. " max_dist is strict")
      out, n = l:nearest(0, 0, 100, 5.0001)
      same(out, n, { 50, 10, 20, 30, 40 }, 5, mode .. " just past max_dist")
      out, n = l:nearest(0, 0, 10, nil, nil, 2)
      same(out, n, { 20 }, 1, mode .. " mask")
      out, n = l:nearest(0, 0, 0)
      same(out, n, {}, 0, mode .. " k = 0")
      local reuse = { 1, 2, 3, 4, 5, 6, 7, 8 }
      out, n = l:nearest(0, 0, 2, nil, reuse)
      assert.are.equal(reuse, out)
      same(out, n, { 50, 10 }, 2, mode .. " reused table")
    end
  end)

  it("rejects bad arguments with the layer unchanged", function()
    local l = soageo.layer()
    l:set(1, 0, 0)
    local function err(pat, ...)
      local args = table.pack(...)
      local ok, msg = pcall(function() return l:nearest(table.unpack(args, 1, args.n)) end)
      assert.is_false(ok)
      assert.matches(pat, msg)
    end
    err("bad argument #3 to 'nearest' %(k must be an integer >= 0%)", 0, 0, -1)
    err("bad argument #3 to 'nearest' %(k must be an integer >= 0%)", 0, 0, 1.5)
    assert.are.equal(1, select(2, l:nearest(0, 0, 2.0)))  -- 2.0 counts as 2, as in luaL_checkinteger
    err("bad argument #3 to 'nearest' %(integer expected, got no value%)", 0, 0)
    err("bad argument #1 to 'nearest' %(x must be finite%)", 0 / 0, 0, 1)
    err("bad argument #2 to 'nearest' %(y must be finite%)", 0, math.huge, 1)
    err("bad argument #4 to 'nearest' %(max_dist must be finite and >= 0%)", 0, 0, 1, -1)
    err("bad argument #4 to 'nearest' %(max_dist must be finite and >= 0%)", 0, 0, 1, 0 / 0)
    err("bad argument #5 to 'nearest' %(table or nil expected", 0, 0, 1, nil, 5)
    err("bad argument #6 to 'nearest' %(mask must be", 0, 0, 1, nil, nil, -1)
    assert.are.equal(1, #l)
    local out, n = l:nearest(0, 0, 1)
    same(out, n, { 1 }, 1, "still answers")
  end)
end)

describe("when the layer counts how its queries ran", function()
  local function grid_layer()
    local l = soageo.layer()
    for i = 1, 10000 do l:set(i, i % 100 * 20, i // 100 * 20) end
    l:reindex()
    return l
  end

  it("counts each query, each batch shape, cast and nearest by its path", function()
    local l = grid_layer()
    local t = {}
    assert.are.equal(t, l:stats(t))
    assert.are.same({ indexed = 0, scanned = 0, builds = 1, refreshes = 0 }, t)
    l:in_circle(500, 500, 30)
    l:touch_box_batch({ 0, 0, 40, 40, 100, 100, 130, 130, -1, -1, 2001, 2001 })
    l:cast_segment(0, 0, 50, 50)
    l:cast_segment_first(0, 0, 50, 50)
    l:nearest(10, 10, 3)
    l:nearest(10, 10, 0)                        -- searches nothing
    assert.are.same({ indexed = 6, scanned = 1, builds = 1, refreshes = 0 }, l:stats())
    l:index_mode("scan")
    l:in_circle(500, 500, 30)
    assert.are.same({ indexed = 6, scanned = 2, builds = 1, refreshes = 0 }, l:stats())
    -- Through the index, until it finds that its circle must reach everything: the scan answers.
    l:index_mode("index")
    assert.are.equal(1, select(2, l:nearest(1e6, 1e6, 1)))
    assert.are.same({ indexed = 6, scanned = 3, builds = 1, refreshes = 0 }, l:stats())
  end)

  it("counts a refresh after small moves or a few adds, a build after more than 64", function()
    local l = grid_layer()
    l:index_mode("index")
    for id, x, y in l:each() do l:move(id, x + 0.5, y) end
    l:in_box(100, 100, 150, 150)
    assert.are.same({ indexed = 1, scanned = 0, builds = 1, refreshes = 1 }, l:stats())
    l:set(-1, 5, 5)
    l:remove(7)
    l:in_box(100, 100, 150, 150)
    assert.are.same({ indexed = 2, scanned = 0, builds = 1, refreshes = 2 }, l:stats())
    for i = 2, 66 do l:set(-i, 5, 5) end
    l:in_box(100, 100, 150, 150)
    assert.are.same({ indexed = 3, scanned = 0, builds = 2, refreshes = 2 }, l:stats())
  end)

  -- 300,000 entities, every tick moving them all, then 100 small queries: the scans of a tick
  -- forgo more than a refresh would cost, less than the first (full) build. The build comes
  -- once the ticks' savings beyond the refreshes pay for it, and a few deaths and spawns a
  -- tick are patched in; with more a tick than the layer logs, every tick would need a full
  -- build, and the layer keeps the scan.
  local function ticks_of_moves(churn)
    local g = rng.new(7)
    local n = 300000
    local l = soageo.layer(n + 16)
    local ids, xs, ys = {}, {}, {}
    for i = 1, n do ids[i], xs[i], ys[i] = i, g:uniform(0, 11000), g:uniform(0, 11000) end
    l:set_many(ids, xs, ys)
    local last
    for tick = 1, 6 do
      for i = 1, n do xs[i], ys[i] = xs[i] + g:uniform(-2, 2), ys[i] + g:uniform(-2, 2) end
      l:move_many(ids, xs, ys)
      for k = 1, churn do
        l:remove(-(tick - 1) * churn - k)
        l:set(-tick * churn - k, g:uniform(0, 11000), g:uniform(0, 11000))
      end
      last = l:stats()
      for _ = 1, 100 do
        local cx, cy = g:uniform(0, 11000), g:uniform(0, 11000)
        l:touch_box(cx - 25, cy - 25, cx + 25, cy + 25)
      end
    end
    local s = l:stats()
    return s, s.indexed - last.indexed
  end

  it("builds for ticks of moves whose queries pay refreshes, not a build each", function()
    for _, churn in ipairs({ 0, 3 }) do
      local s, last_tick = ticks_of_moves(churn)
      assert.are.equal(1, s.builds)
      assert.is_true(s.refreshes >= 2, "refreshes " .. s.refreshes)
      assert.are.equal(100, last_tick)
    end
  end)

  it("keeps the scan when every tick adds and removes more entities than it logs", function()
    local s = ticks_of_moves(70)
    assert.are.same({ indexed = 0, scanned = 600, builds = 0, refreshes = 0 }, s)
  end)

  it("raises on a closed layer or a t that is no table", function()
    local l = grid_layer()
    assert.has_error(function() l:stats(5) end, "bad argument #1 to 'stats' (table or nil expected, got number)")
    l:close()
    assert.has_error(function() l:stats() end, "calling 'stats' on bad self (layer is closed)")
  end)
end)

describe("when the index_mode is set", function()
  it("takes auto, scan or index and returns the previous one", function()
    local l = soageo.layer()
    assert.are.equal("auto", l:index_mode())
    assert.are.equal("auto", l:index_mode("scan"))
    assert.are.equal("scan", l:index_mode("index"))
    assert.are.equal("index", l:index_mode())
    assert.has_error(function() l:index_mode("fast") end)
  end)
end)

describe("when a layer holds a million entities", function()
  it("answers small queries through the index as the scan does", function()
    local g = rng.new(2026)
    local l = soageo.layer(1000000)
    local ids, xs, ys = {}, {}, {}
    for i = 1, 1000000 do ids[i] = i * 3 - 1500000; xs[i] = g:uniform(0, 20000); ys[i] = g:uniform(0, 20000) end
    l:set_many(ids, xs, ys)
    ids, xs, ys = nil, nil, nil
    l:reindex()
    compare(l, g, "uniform", 40, "1M")
    -- Every target, then every entity moved by up to 2 units (the rebuild that starts from
    -- the last cell order), in one batch and one by one.
    local was = soageo.arch()
    for _, arch in ipairs(soageo.archs()) do
      soageo.use_arch(arch)
      compare(l, g, "uniform", 8, "1M " .. arch)
    end
    soageo.use_arch(was)
    ids, xs, ys = {}, {}, {}
    for id, x, y in l:each() do
      ids[#ids + 1], xs[#xs + 1], ys[#ys + 1] = id, x + g:uniform(-2, 2), y + g:uniform(-2, 2)
    end
    l:move_many(ids, xs, ys)
    compare(l, g, "uniform", 20, "1M after move_many")
    for i = 1, #ids, 7 do l:move(ids[i], xs[i] + 1.5, ys[i] - 1.5) end
    compare(l, g, "uniform", 20, "1M after moves")
    ids, xs, ys = nil, nil, nil
    -- Leave no big garbage behind: specs after this one time their finalizers against the GC.
    l:close()
    l = nil
    collectgarbage()
    collectgarbage()
  end)
end)
