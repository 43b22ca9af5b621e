-- From Lua: the cost of keeping a layer's past (layer:history, layer:commit, layer:past).
-- layer:move with history(16) against a layer without history; layer:commit at 1,000,000
-- entities after a tenth moved (against those 100,000 layer:move calls) and after all moved
-- (against a copy of as many bytes as the x and y columns made as a Lua string: an allocation
-- and a memcpy), with the history full (the dropped tick's block taken over) and while it
-- fills; a small query (touch_box 40 x 40) on a view 10 ticks back against the same query on
-- the present layer, 100,000 entities in 3,000 x 3,000 moving up to 2 units a tick and 10
-- teleporting; the bytes per entity per tick kept. CPU time, medians of rounds. Run from the
-- repo root; `lua5.4 bench/bench_history_lua.lua 100000` sizes the commit part.
package.path = "lualib/?.lua;bench/?.lua;" .. package.path
package.cpath = "./?.so;" .. package.cpath

local soageo = require "soageo"
local timing = require "timing"
local median = timing.median
local clock = os.clock

local N = tonumber(arg[1]) or 1000000
print(("history (%s, SIMD target %s)"):format(_VERSION, soageo.arch()))

-- A layer of n entities spread over a square of side `side`, ids 1..n.
local function filled(n, side)
  local layer = soageo.layer(n)
  math.randomseed(n)
  for id = 1, n do layer:set(id, math.random() * side, math.random() * side) end
  return layer
end

do
  -- One layer, timed in turn without history and with history(16) full (its ticks sharing
  -- nothing, as a server's once the history has filled): two layers built one after the other
  -- differ by their place in memory, which swung this ratio by a third either way.
  local kept = filled(N, 3000)
  -- The ids a tenth of the layer, in random order, and where they go: the same each round.
  local moves = N // 10
  local ids, xs, ys = {}, {}, {}
  for i = 1, moves do
    ids[i], xs[i], ys[i] = math.random(N), math.random() * 3000, math.random() * 3000
  end
  local function move_all(layer)
    local move = layer.move
    for i = 1, moves do move(layer, ids[i], xs[i], ys[i]) end
  end
  local t_plain, t_kept, t_commit = {}, {}, {}
  for r = 1, 7 do
    kept:history(0)
    move_all(kept)  -- untimed first: caches as in a run of ticks
    local t0 = clock()
    move_all(kept)
    t_plain[r] = clock() - t0
    kept:history(16)
    for t = 1, 16 do
      kept:move(1, t, t)
      kept:commit()
    end
    move_all(kept)  -- untimed first, as above
    t0 = clock()
    move_all(kept)
    t_kept[r] = clock() - t0
    t0 = clock()
    kept:commit()
    t_commit[r] = clock() - t0
  end
  local mp, mk, mc = median(t_plain), median(t_kept), median(t_commit)
  print(("%d entities, %d layer:move calls from Lua: %.2f ms without history, %.2f ms with history(16): %.2fx")
    :format(N, moves, mp * 1e3, mk * 1e3, mk / mp))
  print(("commit after a tenth moved: %.2f ms, %.2fx the time of those moves (issue: at most 0.3x)")
    :format(mc * 1e3, mc / mk))

  -- After all moved (move_many: the moves themselves are not what is timed here).
  local all_ids, all_xs, all_ys = {}, {}, {}
  for i = 1, N do all_ids[i], all_xs[i], all_ys[i] = i, math.random() * 3000, math.random() * 3000 end
  local columns = string.rep("x", 8 * N + 1)  -- as many bytes as x and y (plus one: sub copies)
  local t_all, t_copy = {}, {}
  for r = 1, 7 do
    kept:move_many(all_ids, all_xs, all_ys)
    local t0 = clock()
    kept:commit()
    t_all[r] = clock() - t0
    t0 = clock()
    local copy = columns:sub(2)
    t_copy[r] = clock() - t0
    copy = nil
  end
  local ma, mcp = median(t_all), median(t_copy)
  print(("commit after all moved: %.2f ms; a copy of the x and y bytes (%.1f MB, Lua string): %.2f ms; %.2fx (issue: at most 2x)")
    :format(ma * 1e3, 8 * N / 1e6, mcp * 1e3, ma / mcp))
  -- While the history fills, each commit allocates its block (the collector's debt, fresh pages).
  local t_fill = {}
  kept:history(0)
  kept:history(16)
  kept:commit()
  for r = 1, 5 do
    kept:move_many(all_ids, all_xs, all_ys)
    local t0 = clock()
    kept:commit()
    t_fill[r] = clock() - t0
  end
  print(("commit after all moved while the history fills (a new block each): %.2f ms, %.2fx the string copy")
    :format(median(t_fill) * 1e3, median(t_fill) / mcp))
  kept:close()
end
collectgarbage()

do
  local n, side = 100000, 3000
  local layer = filled(n, side)
  layer:history(16)
  local function tick(t)
    for id = 1, n do
      local x, y = layer:get(id)
      layer:move(id, x + (math.random() * 4 - 2), y + (math.random() * 4 - 2))
    end
    for _ = 1, 10 do layer:move(math.random(n), math.random() * side, math.random() * side) end
    return layer:commit()
  end
  local newest
  for t = 1, 20 do newest = tick(t) end
  local q = 20000
  local run, bx, by = timing.small_boxes(q, side, 40)
  local out = {}
  local view = layer:past(newest - 10)
  local t0 = clock()
  view:touch_box(0, 0, 40, 40, out)
  local first = clock() - t0
  local tp, tv, tn = {}, {}, {}
  local hp, hv
  for r = 1, 5 do
    run(layer)
    t0 = clock()
    hp = run(layer)
    tp[r] = clock() - t0
    run(view)
    t0 = clock()
    hv = run(view)
    tv[r] = clock() - t0
    -- One view per shot: past() then the query.
    t0 = clock()
    for i = 1, q do layer:past(newest - 10):touch_box(bx[i], by[i], bx[i] + 40, by[i] + 40, out) end
    tn[r] = clock() - t0
  end
  local mp, mv, mn = median(tp) / q, median(tv) / q, median(tn) / q
  print(("%d entities in %d x %d, up to 2 units a tick, 10 teleports a tick; touch_box 40 x 40 (%.1f hits):")
    :format(n, side, side, hp / q))
  print(("  present layer %.2f us, view 10 ticks back %.2f us: %.2fx (issue: at most 3x); a new view per query %.2f us: %.2fx")
    :format(mp * 1e6, mv * 1e6, mv / mp, mn * 1e6, mn / mp))
  print(("  the view's first query (its tick's hit scratch made): %.2f ms; view hits %.1f"):format(first * 1e3, hv / q))
  local iv = layer:past(newest - 10, 0.5)
  t0 = clock()
  iv:touch_box(0, 0, 40, 40, out)
  local ifirst = clock() - t0
  local ti = {}
  for r = 1, 5 do
    t0 = clock()
    run(iv)
    ti[r] = clock() - t0
  end
  print(("  interpolated view (alpha 0.5): first query %.2f ms (positions computed), then %.2f us: %.2fx")
    :format(ifirst * 1e3, median(ti) / q * 1e6, median(ti) / q / mp))

  -- Memory a tick: the ticks after the first (which also holds the radii, masks and ids) of 16
  -- kept, all moving; then all moving with one entity added and one removed each tick (radii,
  -- masks and ids copied too). Frames never queried: a queried frame adds its id map and
  -- scratch, and its index once built (doc/manual.md).
  local function per_tick(change)
    layer:history(0)
    layer:history(16)
    layer:commit()
    collectgarbage()
    collectgarbage()
    local before = collectgarbage("count")
    for t = 1, 15 do
      layer:move_many({ 1, 2 }, { t, t }, { t, t })
      change(t)
      layer:commit()
    end
    collectgarbage()
    collectgarbage()
    return (collectgarbage("count") - before) * 1024 / (15 * n)
  end
  print(("memory kept: %.2f bytes per entity per tick when entities moved, %.2f when one was also added and one removed")
    :format(per_tick(function() end), per_tick(function(t) layer:remove(1000 + t); layer:set(1000 + t, 1, 1) end)))
end
