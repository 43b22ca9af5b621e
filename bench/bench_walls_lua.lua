-- From Lua: walls and tiles against what a Lua server writes instead. walls:blocked on maps of
-- 1,000 and 100,000 segments (2-10 long, a third horizontal, a third vertical, one per 100
-- square units; rays 5-50 long from anywhere) against a plain-Lua segment grid (cells of 16
-- holding segments by their bounding box; a query visits the cells of the ray's bounding box
-- and tests each segment once); tiles:blocked on 1024 x 1024 tiles (about 20% blocked, in
-- rectangles of 1-6 cells a side; rays 5-50 cells long) against a plain-Lua DDA walk over the
-- cells; walls:visible of the ids an in_circle of radius 40 returns against one walls:blocked
-- per id. Per query, median of timed rounds, the contenders in turn, each timed round after an
-- untimed one. Then the time to build 100,000 segments (median) and the bytes each costs.
-- Run from the repo root.
package.path = "lualib/?.lua;bench/?.lua;" .. package.path
package.cpath = "./?.so;" .. package.cpath

local soageo = require "soageo"
local clock = os.clock
local timing = require "timing"
local median, alternating = timing.median, timing.alternating
local floor, min, max, abs = math.floor, math.min, math.max, math.abs

-- The walls of the issue's map: n segments on a square of n * 100 square units.
local function wall_map(n, seed)
  math.randomseed(seed)
  local side = math.sqrt(n * 100)
  local c = {}
  for i = 1, n do
    local x, y = math.random() * side, math.random() * side
    local len = 2 + math.random() * 8
    local dx, dy
    if i % 3 == 0 then dx, dy = len, 0
    elseif i % 3 == 1 then dx, dy = 0, len
    else local a = math.random() * 2 * math.pi; dx, dy = len * math.cos(a), len * math.sin(a) end
    c[#c + 1], c[#c + 2], c[#c + 3], c[#c + 4] = x, y, x + dx, y + dy
  end
  return c, side
end

local function rays(count, side, lo, hi, seed)
  math.randomseed(seed)
  local r = {}
  for _ = 1, count do
    local x, y = math.random() * side, math.random() * side
    local len, a = lo + math.random() * (hi - lo), math.random() * 2 * math.pi
    r[#r + 1], r[#r + 2], r[#r + 3], r[#r + 4] = x, y, x + len * math.cos(a), y + len * math.sin(a)
  end
  return r
end

-- The plain-Lua segment grid: cells of 16 by bounding box, closed segment tests in doubles.
local function lua_grid(c)
  local CELL = 16
  local cells, n = {}, #c // 4
  for i = 1, n do
    local x0, y0, x1, y1 = c[4 * i - 3], c[4 * i - 2], c[4 * i - 1], c[4 * i]
    for cy = floor(min(y0, y1) / CELL), floor(max(y0, y1) / CELL) do
      for cx = floor(min(x0, x1) / CELL), floor(max(x0, x1) / CELL) do
        local k = cy * 65536 + cx
        local list = cells[k]
        if not list then list = {}; cells[k] = list end
        list[#list + 1] = i
      end
    end
  end
  local stamp, epoch = {}, 0
  local function orient(ax, ay, bx, by, px, py)
    local d = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
    return d > 0 and 1 or (d < 0 and -1 or 0)
  end
  local function meets(ax, ay, bx, by, cx, cy, dx, dy)
    if max(ax, bx) < min(cx, dx) or max(cx, dx) < min(ax, bx) or max(ay, by) < min(cy, dy) or max(cy, dy) < min(ay, by) then
      return false
    end
    local o1, o2 = orient(ax, ay, bx, by, cx, cy), orient(ax, ay, bx, by, dx, dy)
    if o1 == 0 and o2 == 0 then return true end
    if o1 == o2 then return false end
    local o3, o4 = orient(cx, cy, dx, dy, ax, ay), orient(cx, cy, dx, dy, bx, by)
    return not (o3 == o4 and o3 ~= 0)
  end
  return function(ax, ay, bx, by)
    epoch = epoch + 1
    for cy = floor(min(ay, by) / CELL), floor(max(ay, by) / CELL) do
      for cx = floor(min(ax, bx) / CELL), floor(max(ax, bx) / CELL) do
        local list = cells[cy * 65536 + cx]
        if list then
          for j = 1, #list do
            local i = list[j]
            if stamp[i] ~= epoch then
              stamp[i] = epoch
              if meets(ax, ay, bx, by, c[4 * i - 3], c[4 * i - 2], c[4 * i - 1], c[4 * i]) then return true end
            end
          end
        end
      end
    end
    return false
  end
end

local Q = 20000
print(string.format("walls and tiles from Lua (%s, SIMD target %s), ns per query, median of timed rounds:",
  _VERSION, soageo.arch()))

-- The Q rays of r (4 coordinates each) through the plain-Lua lua_blocked and obj:blocked, in
-- turn (alternating): the seconds each took, and how many rays each found blocked.
local function race(lua_blocked, obj, r)
  local hits_lua, hits = 0, 0
  local t = alternating(7, {
    function()
      hits_lua = 0
      for k = 1, 4 * Q, 4 do if lua_blocked(r[k], r[k + 1], r[k + 2], r[k + 3]) then hits_lua = hits_lua + 1 end end
    end,
    function()
      hits = 0
      for k = 1, 4 * Q, 4 do if obj:blocked(r[k], r[k + 1], r[k + 2], r[k + 3]) then hits = hits + 1 end end
    end,
  })
  return t, hits_lua, hits
end

-- walls:blocked against the Lua grid, at two map sizes.
local per_size = {}
print(string.format("%9s %12s %13s %8s %9s", "segments", "Lua grid", "walls:blocked", "ratio", "blocked"))
for _, n in ipairs({ 1000, 100000 }) do
  local c, side = wall_map(n, n)
  local w = soageo.walls(c)
  local lua_blocked = lua_grid(c)
  local r = rays(Q, side, 5, 50, n + 1)
  local t, hits_lua, hits = race(lua_blocked, w, r)
  -- The same answers up to float32 rounding of the coordinates (a benchmark that skipped its work would fail).
  assert(abs(hits - hits_lua) <= Q // 1000, "the Lua grid and walls disagree")
  per_size[n] = t[2]
  print(string.format("%9d %12.1f %13.1f %7.1fx %8.1f%%", n, t[1] / Q * 1e9, t[2] / Q * 1e9, t[1] / t[2], 100 * hits / Q))
end
print(string.format("walls:blocked at 100,000 segments / at 1,000: %.2fx (the cost follows the ray, not the map)",
  per_size[100000] / per_size[1000]))

-- tiles:blocked against a Lua DDA over the same cells.
do
  local N = 1024
  math.randomseed(1024)
  local cells = {}
  for k = 0, N * N - 1 do cells[k] = false end
  local blocked, target = 0, 0.2 * N * N
  while blocked < target do
    local w, h = math.random(1, 6), math.random(1, 6)
    local x0, y0 = math.random(0, N - w), math.random(0, N - h)
    for y = y0, y0 + h - 1 do
      for x = x0, x0 + w - 1 do
        if not cells[y * N + x] then cells[y * N + x] = true; blocked = blocked + 1 end
      end
    end
  end
  local bytes = {}
  for k = 0, N * N - 1 do bytes[k + 1] = cells[k] and "1" or "0" end
  local tiles = soageo.tiles(N, N, 1, table.concat(bytes))
  -- Amanatides-Woo over unit cells (closed squares only where the walk crosses a cell; the
  -- module's corner and edge rules are stricter, so its answer may differ on a few rays).
  local function lua_dda(ax, ay, bx, by)
    local cx, cy = floor(ax), floor(ay)
    local ex, ey = floor(bx), floor(by)
    local dx, dy = bx - ax, by - ay
    local sx, sy = dx > 0 and 1 or -1, dy > 0 and 1 or -1
    local tdx, tdy = dx ~= 0 and abs(1 / dx) or math.huge, dy ~= 0 and abs(1 / dy) or math.huge
    local tx = dx > 0 and (cx + 1 - ax) * tdx or (dx < 0 and (ax - cx) * tdx or math.huge)
    local ty = dy > 0 and (cy + 1 - ay) * tdy or (dy < 0 and (ay - cy) * tdy or math.huge)
    while true do
      if cx >= 0 and cx < N and cy >= 0 and cy < N and cells[cy * N + cx] then return true end
      if cx == ex and cy == ey then return false end
      if tx < ty then cx, tx = cx + sx, tx + tdx else cy, ty = cy + sy, ty + tdy end
      if tx > 1 and ty > 1 and not (cx == ex and cy == ey) then return false end
    end
  end
  local r = rays(Q, N, 5, 50, 77)
  local t, hits_lua, hits = race(lua_dda, tiles, r)
  assert(abs(hits - hits_lua) <= Q // 100, "the Lua DDA and tiles disagree")
  print(string.format("tiles 1024 x 1024 (%.0f%% blocked): Lua DDA %.1f ns, tiles:blocked %.1f ns: %.1fx (%.1f%% blocked rays)",
    100 * blocked / (N * N), t[1] / Q * 1e9, t[2] / Q * 1e9, t[1] / t[2], 100 * hits / Q))
end

-- walls:visible of an in_circle's ids against one blocked per id.
do
  local c, side = wall_map(100000, 100000)
  local w = soageo.walls(c)
  local layer = soageo.layer()
  math.randomseed(5)
  local entities = floor(side * side / 100)  -- ~50 within a radius of 40
  for id = 1, entities do layer:set(id, math.random() * side, math.random() * side) end
  local viewers = {}
  for k = 1, 400 do viewers[k] = { 40 + math.random() * (side - 80), 40 + math.random() * (side - 80) } end
  local lists, total = {}, 0
  for k, v in ipairs(viewers) do
    local ids, n = layer:in_circle(v[1], v[2], 40)
    lists[k] = ids
    total = total + n
  end
  local out, seen_v, seen_b = {}, 0, 0
  local get, blocked = layer.get, w.blocked
  local t = alternating(7, {
    function()
      seen_b = 0
      for k, v in ipairs(viewers) do
        local x, y, ids = v[1], v[2], lists[k]
        for i = 1, #ids do
          local ex, ey = get(layer, ids[i])
          if not blocked(w, x, y, ex, ey) then seen_b = seen_b + 1 end
        end
      end
    end,
    function()
      seen_v = 0
      for k, v in ipairs(viewers) do
        local _, m = w:visible(v[1], v[2], layer, lists[k], nil, out)
        seen_v = seen_v + m
      end
    end,
  })
  -- visible is open at both ends, blocked closed: they differ only on walls through an end.
  assert(abs(seen_v - seen_b) <= total // 100, "visible and blocked disagree")
  print(string.format("walls:visible of %.1f ids per in_circle(r = 40): %.2f us per list; one blocked per id %.2f us: %.2fx (%.0f%% seen)",
    total / #viewers, t[2] / #viewers * 1e6, t[1] / #viewers * 1e6, t[2] / t[1], 100 * seen_v / total))
end

-- Building 100,000 segments, and the memory they take (walls, index, stamps).
do
  local c = wall_map(100000, 9)
  local builds = {}
  for r = 1, 7 do
    collectgarbage()
    local t0 = clock()
    local w = soageo.walls(c)
    builds[r] = clock() - t0
    w:close()
  end
  collectgarbage()
  collectgarbage()
  local before = collectgarbage("count")
  local w = soageo.walls(c)
  collectgarbage()
  local bytes = (collectgarbage("count") - before) * 1024
  print(string.format("soageo.walls of 100,000 segments: %.1f ms (median of 7), %.1f bytes per segment", median(builds) * 1e3,
    bytes / 100000))
  w:close()
end
