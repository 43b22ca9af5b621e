-- The spatial index from Lua, side by side in one process: small queries through the index
-- ("auto") against the same layer forced to scan ("scan", what every query did before the
-- index) and against bench/pure_grid.lua, a plain-Lua spatial hash with cells of 64. Uniform
-- entities at the density of 10,000 in 2000x2000 (radius up to 1). Then: a tick where every
-- entity moves followed by Q queries, whole-world queries, the 1000 sectors x 100,000 points
-- batch, cast_segment_first and nearest. Times are medians of several timed repetitions
-- (warm-up outside timing); ratios are of medians measured in the same run. The small queries
-- are loops of direct calls, the three contenders timed in turn round after round, each timed
-- round right after an untimed round of its own.
-- Run from the repository root: lua5.4 bench/bench_index_lua.lua [max_entities]
package.path = "lualib/?.lua;bench/?.lua;" .. package.path
package.cpath = "./?.so;" .. package.cpath

local soageo = require "soageo"
local pure_grid = require "pure_grid"
local clock = os.clock
local timing = require "timing"
local median, alternating = timing.median, timing.alternating
local max_n = tonumber(arg and arg[1]) or 1000000

-- Median over `reps` repetitions of the time per call of f(i), i = 1..iters.
local function time_per_call(reps, iters, f)
  for i = 1, math.min(iters, 50) do f(i) end  -- warm-up
  local t = {}
  for r = 1, reps do
    local t0 = clock()
    for i = 1, iters do f(i) end
    t[r] = (clock() - t0) / iters
  end
  return median(t)
end

local function world(n)
  local side = 2000 * math.sqrt(n / 10000)
  math.randomseed(n)
  local ids, xs, ys, rs = {}, {}, {}, {}
  for i = 1, n do ids[i], xs[i], ys[i], rs[i] = i, math.random() * side, math.random() * side, math.random() end
  return side, ids, xs, ys, rs
end

local sizes = {}
for _, n in ipairs({ 10000, 100000, 1000000 }) do if n <= max_n then sizes[#sizes + 1] = n end end

print(string.format("soageo spatial index from Lua (%s, SIMD target %s); medians, one process, loaded machine",
  _VERSION, soageo.arch()))
print()
print("Small queries (box 50x50, circle r 25, sector r 25, capsule 40 x 5, triangle of side 50; mean hits in the last column):")
print("us per query; index vs scan, index vs the plain-Lua grid (cells of 64)")
print(string.format("%-9s %-14s %9s %9s %9s %8s %8s %6s", "entities", "query", "index", "scan", "Lua grid", "vs scan", "vs grid", "hits"))

local summary = {}
for _, n in ipairs(sizes) do
  local side, ids, xs, ys, rs = world(n)
  local layer = soageo.layer(n)
  layer:set_many(ids, xs, ys, rs)
  local g = pure_grid.new(64)
  for i = 1, n do g:insert(i, xs[i], ys[i], rs[i]) end
  layer:reindex()
  local Q = 1000
  local qx, qy, qc, qs = {}, {}, {}, {}  -- centres and directions (cos, sin) of the queries
  for i = 1, Q do
    local a = math.random() * 2 * math.pi
    qx[i], qy[i], qc[i], qs[i] = 50 + math.random() * (side - 100), 50 + math.random() * (side - 100), math.cos(a), math.sin(a)
  end
  local h = math.sqrt(3) / 2 * 50
  -- Each contender is a loop over queries i0..i1 written as a user writes it, the call in the
  -- loop body: a wrapper function per query would add a Lua call to every query timed.
  local shapes = {
    { "touch_box 50",
      function(out, i0, i1) local hits = 0
        for i = i0, i1 do local _, k = layer:touch_box(qx[i] - 25, qy[i] - 25, qx[i] + 25, qy[i] + 25, out); hits = hits + k end
        return hits end,
      function(out, i0, i1) local hits = 0
        for i = i0, i1 do local _, k = g:touch_box(out, qx[i] - 25, qy[i] - 25, qx[i] + 25, qy[i] + 25); hits = hits + k end
        return hits end },
    { "touch_circle 25",
      function(out, i0, i1) local hits = 0
        for i = i0, i1 do local _, k = layer:touch_circle(qx[i], qy[i], 25, out); hits = hits + k end
        return hits end,
      function(out, i0, i1) local hits = 0
        for i = i0, i1 do local _, k = g:touch_circle(out, qx[i], qy[i], 25); hits = hits + k end
        return hits end },
    { "in_sector 25",
      function(out, i0, i1) local hits = 0
        for i = i0, i1 do local _, k = layer:in_sector(qx[i], qy[i], qc[i], qs[i], 25, math.pi / 4, out); hits = hits + k end
        return hits end,
      function(out, i0, i1) local hits = 0
        for i = i0, i1 do local _, k = g:in_sector(out, qx[i], qy[i], qc[i], qs[i], 25, math.pi / 4); hits = hits + k end
        return hits end },
    { "touch_capsule 40",
      function(out, i0, i1) local hits = 0
        for i = i0, i1 do
          local c, s = qc[i] * 20, qs[i] * 20
          local _, k = layer:touch_capsule(qx[i] - c, qy[i] - s, qx[i] + c, qy[i] + s, 5, out); hits = hits + k
        end
        return hits end,
      function(out, i0, i1) local hits = 0
        for i = i0, i1 do
          local c, s = qc[i] * 20, qs[i] * 20
          local _, k = g:touch_capsule(out, qx[i] - c, qy[i] - s, qx[i] + c, qy[i] + s, 5); hits = hits + k
        end
        return hits end },
    { "in_triangle 50",
      function(out, i0, i1) local hits = 0
        for i = i0, i1 do local x, y = qx[i], qy[i]; local _, k = layer:in_triangle(x - 25, y, x + 25, y, x, y + h, out); hits = hits + k end
        return hits end,
      function(out, i0, i1) local hits = 0
        for i = i0, i1 do local x, y = qx[i], qy[i]; local _, k = g:in_triangle(out, x - 25, y, x + 25, y, x, y + h); hits = hits + k end
        return hits end },
  }
  local function scan_mode(on) layer:index_mode(on and "scan" or "auto") end
  collectgarbage()  -- the garbage of building this world is not charged to the first query timed
  for _, sh in ipairs(shapes) do
    local name, native, lua_grid = sh[1], sh[2], sh[3]
    local out = {}
    local hits = native(out, 1, Q)
    -- the same hits from both paths and from the grid (the grid tests in double: compare counts only)
    scan_mode(true)
    local scan_hits = native(out, 1, Q)
    scan_mode(false)
    assert(scan_hits == hits, name .. ": the index and the scan disagree")
    local scan_iters = math.max(20, math.floor(2e6 / n))
    local t = alternating(7, {
      { Q, function() native(out, 1, Q) end },
      { scan_iters, function() scan_mode(true); native(out, 1, scan_iters); scan_mode(false) end },
      { Q, function() lua_grid(out, 1, Q) end },
    })
    local t_index, t_scan, t_grid = t[1], t[2], t[3]
    print(string.format("%-9d %-14s %9.2f %9.2f %9.2f %7.1fx %7.1fx %6.1f", n, name, t_index * 1e6, t_scan * 1e6,
      t_grid * 1e6, t_scan / t_index, t_grid / t_index, hits / Q))
    summary[#summary + 1] = { n, name, t_index, t_scan, t_grid }
  end
end

-- A tick: every entity moves by up to 2 units (layer:move from Lua), then Q small boxes; the
-- index-driven layer ("auto") and the one forced to scan tick in turn.
print()
print("Tick at 100,000 entities: all move (layer:move), then Q touch_box 50 queries; ms per tick (median of ticks;")
print("the queries' mean over the ticks too, which counts a rebuild that only some ticks make)")
print(string.format("%-6s %12s %12s %9s %14s %14s %9s %11s", "Q", "auto tick", "scan tick", "ratio", "auto queries", "scan queries", "ratio", "mean ratio"))
do
  local n = math.min(100000, max_n)
  local side, ids, xs, ys, rs = world(n)
  local layers = {}
  for _, mode in ipairs({ "auto", "scan" }) do
    local l = soageo.layer(n)
    l:set_many(ids, xs, ys, rs)
    l:index_mode(mode)
    layers[mode] = l
  end
  local out = {}
  for _, Q in ipairs({ 1, 10, 100, 1000 }) do
    -- The two layers tick in turn, tick after tick, with the same moves and queries: a slow
    -- moment of the machine falls on both (timed one mode after the other, the Q = 1 ratio
    -- drifted by 15% from run to run).
    local px, py, ticks, qtimes = {}, {}, {}, {}
    for _, mode in ipairs({ "auto", "scan" }) do
      px[mode], py[mode], ticks[mode], qtimes[mode] = {}, {}, {}, {}
      for i = 1, n do px[mode][i], py[mode][i] = xs[i], ys[i] end
    end
    local qx, qy = {}, {}
    for i = 1, Q do qx[i], qy[i] = math.random() * side, math.random() * side end
    local dx, dy = {}, {}
    for t = 1, 14 do
      for i = 1, n do dx[i], dy[i] = math.random() * 4 - 2, math.random() * 4 - 2 end
      for _, mode in ipairs(t % 2 == 0 and { "auto", "scan" } or { "scan", "auto" }) do
        local l, mx, my = layers[mode], px[mode], py[mode]
        local t0 = clock()
        for i = 1, n do
          local x, y = mx[i] + dx[i], my[i] + dy[i]
          mx[i], my[i] = x, y
          l:move(i, x, y)
        end
        local t1 = clock()
        for i = 1, Q do l:touch_box(qx[i] - 25, qy[i] - 25, qx[i] + 25, qy[i] + 25, out) end
        local t2 = clock()
        if t > 2 then  -- 2 warm-up ticks
          table.insert(ticks[mode], t2 - t0)
          table.insert(qtimes[mode], t2 - t1)
        end
      end
    end
    local res = {}
    for _, mode in ipairs({ "auto", "scan" }) do
      local sum = 0
      for _, q in ipairs(qtimes[mode]) do sum = sum + q end
      res[mode] = { median(ticks[mode]), median(qtimes[mode]), sum / #qtimes[mode] }
    end
    print(string.format("%-6d %9.2f ms %9.2f ms %8.2fx %11.3f ms %11.3f ms %8.2fx %10.2fx", Q, res.auto[1] * 1e3, res.scan[1] * 1e3,
      res.auto[1] / res.scan[1], res.auto[2] * 1e3, res.scan[2] * 1e3, res.auto[2] / res.scan[2], res.auto[3] / res.scan[3]))
  end
  print("  (ratio = auto / scan: <= 1.1 means no slower than the scan; 0.1 means 10x faster)")
end

-- At 1,000,000 a tick's refresh costs as much as 40-50 small scans, the first (full) build as
-- much as ~130: a tick of 100 queries pays refreshes, never a build in one tick. The last row
-- also kills 16 entities a tick, anywhere, and respawns them elsewhere (patched into the index).
if max_n >= 1000000 then
  print()
  print("Tick at 1,000,000 entities: all move (move_many), then Q touch_box 50 queries; ms per tick for the queries")
  print("(with the index's upkeep), median of ticks; the layers start unindexed, as after loading a world")
  print(string.format("%-22s %14s %14s %9s %22s", "Q", "auto queries", "scan queries", "ratio", "auto builds, refreshes"))
  local n = 1000000
  local side, ids, xs, ys, rs = world(n)
  local out = {}
  for _, row in ipairs({ { 30, 0 }, { 100, 0 }, { 300, 0 }, { 100, 16 } }) do
    local Q, churn = row[1], row[2]
    local res, stats = {}, nil
    for _, mode in ipairs({ "auto", "scan" }) do
      local l = soageo.layer(n)
      l:set_many(ids, xs, ys, rs)
      l:index_mode(mode)
      local px, py = {}, {}
      for i = 1, n do px[i], py[i] = xs[i], ys[i] end
      local qtimes = {}
      for t = 1, 12 do
        for i = 1, n do px[i], py[i] = px[i] + (math.random() * 4 - 2), py[i] + (math.random() * 4 - 2) end
        l:move_many(ids, px, py)
        for _ = 1, churn do  -- an entity anywhere dies and respawns elsewhere (a remove, then an add)
          local id = math.random(n)
          l:remove(id)
          px[id], py[id] = math.random() * side, math.random() * side
          l:set(id, px[id], py[id], rs[id])
        end
        local t0 = clock()
        for _ = 1, Q do
          local x, y = math.random() * side, math.random() * side
          l:touch_box(x - 25, y - 25, x + 25, y + 25, out)
        end
        qtimes[t] = clock() - t0
      end
      res[mode] = median(qtimes)
      if mode == "auto" then stats = l:stats() end
      l:close()
    end
    local label = churn > 0 and string.format("%d, %d die, respawn", Q, churn) or tostring(Q)
    print(string.format("%-22s %11.3f ms %11.3f ms %8.2fx %15d, %d", label, res.auto * 1e3, res.scan * 1e3,
      res.auto / res.scan, stats.builds, stats.refreshes))
  end
end

-- Whole-world queries and the big batch: the index must step aside (auto vs scan).
print()
print("Large queries: auto (fresh index) vs scan, ms per call")
do
  local n = math.min(100000, max_n)
  local side, ids, xs, ys, rs = world(n)
  local l = soageo.layer(n)
  l:set_many(ids, xs, ys, rs)
  l:reindex()
  local out = {}
  -- auto and scan timed in turn, round after round (as the small queries above): timed one
  -- after the other, a slow moment of the machine fell on one side and moved the ratio by 20%.
  local function cmp(name, layer, f, rounds)
    local t = alternating(rounds, {
      { 1, function() layer:index_mode("auto"); f(); layer:index_mode("auto") end },
      { 1, function() layer:index_mode("scan"); f(); layer:index_mode("auto") end },
    })
    print(string.format("  %-58s auto %8.3f ms  scan %8.3f ms  ratio %.2fx", name, t[1] * 1e3, t[2] * 1e3, t[1] / t[2]))
    return t[2]
  end
  cmp("in_box over the whole world, 100,000 hits", l, function() l:in_box(-1, -1, side + 1, side + 1, out) end, 9)
  cmp("touch_circle r 1000 (about 8% of the world)", l, function() l:touch_circle(side / 2, side / 2, 1000, out) end, 9)
  local big, params = require("scenes").sector_batch(soageo)
  big:reindex()
  local ts = cmp("in_sector_batch 1000 sectors x 100,000 points", big, function() big:in_sector_batch(params, out) end, 5)
  -- The same batch on a layer whose every entity just moved (the index stale).
  local tm = {}
  for rep = 1, 3 do
    for i = 1, 100000 do local x, y = big:get(i); big:move(i, x + 0.5, y) end
    big:index_mode("auto")
    local t0 = clock()
    big:in_sector_batch(params, out)
    tm[rep] = clock() - t0
  end
  print(string.format("  %-58s auto %8.3f ms  (scan above %8.3f ms) ratio %.2fx", "the same batch right after every entity moved", median(tm) * 1e3, ts * 1e3, median(tm) / ts))
end

-- cast_segment_first with a hit about 30 units away, and nearest.
print()
print("cast_segment_first and nearest, us per call")
for _, n in ipairs(sizes) do
  local side, ids, xs, ys, rs = world(n)
  local l = soageo.layer(n + 1000)
  l:set_many(ids, xs, ys, rs)
  -- Targets placed 30 units ahead of each start, along the cast.
  local sx, sy, ex, ey = {}, {}, {}, {}
  for i = 1, 1000 do
    local a = math.random() * 2 * math.pi
    local x, y = 600 + math.random() * (side - 1200), 600 + math.random() * (side - 1200)
    sx[i], sy[i] = x, y
    ex[i], ey[i] = x + math.cos(a) * 500, y + math.sin(a) * 500
    l:set(n + i, x + math.cos(a) * 30, y + math.sin(a) * 30, 1)
  end
  l:reindex()
  local dist = 0
  for i = 1, 1000 do local _, t = l:cast_segment_first(sx[i], sy[i], ex[i], ey[i]); dist = dist + (t or 1) * 500 end
  local t_first = time_per_call(7, 1000, function(i) l:cast_segment_first(sx[i], sy[i], ex[i], ey[i]) end)
  l:index_mode("scan")
  local t_first_scan = time_per_call(3, math.max(10, math.floor(1e6 / n)), function(i) l:cast_segment_first(sx[i], sy[i], ex[i], ey[i]) end)
  l:index_mode("auto")
  local out = {}
  local t_n1 = time_per_call(7, 1000, function(i) l:nearest(sx[i], sy[i], 1, nil, out) end)
  local t_n8 = time_per_call(7, 1000, function(i) l:nearest(sx[i], sy[i], 8, nil, out) end)
  l:index_mode("scan")
  local t_n8_scan = time_per_call(3, math.max(10, math.floor(1e6 / n)), function(i) l:nearest(sx[i], sy[i], 8, nil, out) end)
  l:index_mode("auto")
  print(string.format("  %7d entities: cast_segment_first %.2f us (scan %.1f us, mean hit distance %.1f); nearest k=1 %.2f us, k=8 %.2f us (scan k=8 %.1f us)",
    n, t_first * 1e6, t_first_scan * 1e6, dist / 1000, t_n1 * 1e6, t_n8 * 1e6, t_n8_scan * 1e6))
end
