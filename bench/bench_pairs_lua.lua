-- From Lua: layer:pairs (flat output into a reused table) against a pure-Lua sort-and-sweep,
-- and aoi:update against a pure-Lua grid AOI producing the same events. Run from the repo root.
package.path = "lualib/?.lua;bench/?.lua;" .. package.path
package.cpath = "./?.so;" .. package.cpath

local soageo = require "soageo"
local pure = require "pure_sweep"
local grid = require "pure_grid_aoi"
local timing = require "timing"
local clock = os.clock

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
  -- The pure-Lua sweep would take minutes here (its window grows like sqrt(n)): soageo alone,
  -- after one untimed call that sizes its scratch and the out table.
  { "uniform 1,000,000 in 20000x20000", 1000000, 20000, true },
}
for _, case in ipairs(pair_cases) do
  local n, span, alone = case[2], case[3], case[4]
  math.randomseed(n + span)
  local layer = soageo.layer(n)
  for i = 1, n do layer:set(i, math.random() * span, math.random() * span, 2.5 + math.random() * 12.5) end
  local out, out2 = {}, {}
  local np, nq
  if alone then
    out, np = layer:pairs(out)
    local t_native = timing.best_of(3, 1, function() out, np = layer:pairs(out) end)
    print(string.format("pairs %-28s %7d pairs                   soageo %8.2f ms  (y bands; pure Lua not run)",
      case[1], np, t_native * 1e3))
  else
    local e = arrays(layer)
    local t_native = timing.best_of(5, 1, function() out, np = layer:pairs(out) end)
    local t_pure = timing.best_of(2, 1, function() out2, nq = pure.pairs(e, out2) end)
    print(string.format("pairs %-28s %7d pairs (pure Lua %7d)  soageo %8.2f ms  pure Lua %9.2f ms  ratio %6.1fx",
      case[1], np, nq, t_native * 1e3, t_pure * 1e3, t_pure / t_native))
  end
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
  local mn, mp = timing.median(t_native), timing.median(t_pure)
  print(string.format("aoi   %-28s %d watchers  %6d events/tick (grid %6d)  soageo %6.2f ms  grid Lua %7.2f ms  ratio %5.1fx  (means %.2f / %.2f ms: %.1fx)",
    name, n, events // ticks, pure_events // ticks, mn * 1e3, mp * 1e3, mp / mn,
    mean(t_native) * 1e3, mean(t_pure) * 1e3, mean(t_pure) / mean(t_native)))
end

aoi_bench("uniform 10,000 in 2000x2000", 10000, 2000, 50, 16)
aoi_bench("crowded 2,000 in 200x200", 2000, 200, 50, 16)

-- Who sees me, filters and partial movement: several aois over copies of one scene, ticked
-- side by side (each tick times every variant once, in turn), medians compared.
local function scene_copies(n, span, copies, mask_of)
  math.randomseed(n + 7)
  local layers = {}
  for c = 1, copies do layers[c] = soageo.layer(n) end
  for i = 1, n do
    local x, y = math.random() * span, math.random() * span
    for c = 1, copies do layers[c]:set(i, x, y, 0, mask_of and mask_of(i) or 1) end
  end
  return layers
end

local function step(layer, span, fraction)
  for id, x, y in layer:each() do
    if fraction >= 1 or math.random() < fraction then
      local nx, ny = x + math.random() * 4 - 2, y + math.random() * 4 - 2
      layer:move(id, math.min(span, math.max(0, nx)), math.min(span, math.max(0, ny)))
    end
  end
end

-- variants: { name, fraction moving, watcher mask function or nil, after_update(aoi) or nil,
-- entities that die (removed, unwatched) and spawn (set, watched) each tick or nil }
local function side_by_side(title, n, span, view, ticks, variants, mask_of)
  local layers = scene_copies(n, span, #variants, mask_of)
  local aois, times = {}, {}
  for v, var in ipairs(variants) do
    aois[v] = soageo.aoi(layers[v], { margin = 0 })
    for i = 1, n do
      if var[3] then aois[v]:watch(i, view, var[3](i)) else aois[v]:watch(i, view) end
    end
    aois[v]:update({}, {})
    times[v] = {}
  end
  local enter, leave = {}, {}  -- each variant's own tables, as a scene keeps them
  for v in ipairs(variants) do enter[v], leave[v] = {}, {} end
  for tick = 0, ticks do
    for v, var in ipairs(variants) do
      step(layers[v], span, var[2])
      local churn = var[5] or 0
      for k = 1, churn do
        local gone, born = tick * churn + k, n + tick * churn + k
        layers[v]:remove(gone)
        aois[v]:unwatch(gone)
        layers[v]:set(born, math.random() * span, math.random() * span)
        aois[v]:watch(born, view)
      end
      local t0 = clock()
      aois[v]:update(enter[v], leave[v])
      if var[4] then var[4](aois[v]) end
      local t1 = clock()
      if tick > 0 then times[v][tick] = t1 - t0 end
    end
  end
  local base = timing.median(times[1])
  local parts = {}
  for v, var in ipairs(variants) do
    local m = timing.median(times[v])
    parts[#parts + 1] = string.format("%s %.3f ms (%.2fx)", var[1], m * 1e3, m / base)
  end
  print(string.format("aoi   %-28s %s", title, table.concat(parts, ", ")))
  return aois, layers
end

-- watchers_of: 10,000 uniform watchers, view 50. The update, then the update plus the first
-- watchers_of call (which inverts the visible lists), then every id asked once.
do
  local out = {}
  local aois = side_by_side("uniform 10,000: who sees me", 10000, 2000, 50, 16, {
    { "update", 1 },
    { "update + inversion", 1, nil, function(a) a:watchers_of(1, out) end },
  })
  local a, total, calls = aois[2], 0, 0
  local t = {}
  for rep = 1, 5 do
    local t0 = clock()
    for id = 1, 10000 do local _, k = a:watchers_of(id, out); total = total + k end
    t[rep] = (clock() - t0) / 10000
    calls = calls + 10000
  end
  print(string.format("aoi   %-28s watchers_of %.3f us per call (median of 5 rounds of 10,000 ids), %.1f watchers each",
    "uniform 10,000: who sees me", timing.median(t) * 1e6, total / calls))
end

-- Filters: half the entities (mask 1) are invisible to half the watchers (mask 2); the rest
-- (mask 3) are seen by all.
side_by_side("uniform 10,000: masks", 10000, 2000, 50, 16, {
  { "unfiltered", 1 },
  { "masks", 1, function(i) return i % 2 == 0 and 2 or 0xffffffff end },
}, function(i) return i % 4 < 2 and 1 or 3 end)
side_by_side("crowded 2,000: masks", 2000, 200, 50, 16, {
  { "unfiltered", 1 },
  { "masks", 1, function(i) return i % 2 == 0 and 2 or 0xffffffff end },
}, function(i) return i % 4 < 2 and 1 or 3 end)

-- 10% moving (up to 2 units per axis) against all moving.
side_by_side("uniform 10,000: 10% moving", 10000, 2000, 50, 16, { { "all moving", 1 }, { "10% moving", 0.1 } })
side_by_side("crowded 2,000: 10% moving", 2000, 200, 50, 16, { { "all moving", 1 }, { "10% moving", 0.1 } })
-- Deaths and spawns: the incremental path patches adds, removes, watch and unwatch in (they
-- used to send the update down the full path, whatever moved).
side_by_side("uniform 10,000: 10% moving", 10000, 2000, 50, 16,
  { { "no deaths", 0.1 }, { "1 death and 1 spawn a tick", 0.1, nil, nil, 1 },
    { "16 deaths and 16 spawns a tick", 0.1, nil, nil, 16 } })

-- Contact events: contacts:update against layer:pairs() on the same tick, and against the
-- plain-Lua way, diffing two successive sorted pair lists from layer:pairs(). Entities move up
-- to 2 units per axis a tick (all of them, or 10%).
local function lua_diff(old, no, new, nn, began, ended)
  local i, j, nb, ne = 1, 1, 0, 0
  while i <= no and j <= nn do
    local a1, b1, a2, b2 = old[2 * i - 1], old[2 * i], new[2 * j - 1], new[2 * j]
    if a1 == a2 and b1 == b2 then
      i, j = i + 1, j + 1
    elseif a1 < a2 or (a1 == a2 and b1 < b2) then
      ne = ne + 1; ended[2 * ne - 1], ended[2 * ne] = a1, b1; i = i + 1
    else
      nb = nb + 1; began[2 * nb - 1], began[2 * nb] = a2, b2; j = j + 1
    end
  end
  for k = i, no do ne = ne + 1; ended[2 * ne - 1], ended[2 * ne] = old[2 * k - 1], old[2 * k] end
  for k = j, nn do nb = nb + 1; began[2 * nb - 1], began[2 * nb] = new[2 * k - 1], new[2 * k] end
  for k = 2 * nb + 1, #began do began[k] = nil end
  for k = 2 * ne + 1, #ended do ended[k] = nil end
  return nb, ne
end

local function contacts_bench(name, n, span, fraction, ticks, churn)
  math.randomseed(n + 11)
  local layer = soageo.layer(n)
  for i = 1, n do layer:set(i, math.random() * span, math.random() * span, 2.5 + math.random() * 12.5) end
  local c = soageo.contacts(layer)
  local b, e, lb, le = {}, {}, {}, {}
  local lists = { {}, {} }
  local prev, np_prev = lists[1], 0
  prev, np_prev = layer:pairs(prev)
  c:update(b, e)
  c:update(b, e)  -- both frames grown, event buffers at their steady size
  local tp, tc, tl, events, agree = {}, {}, {}, 0, true
  for tick = 0, ticks do
    step(layer, span, fraction)
    for k = 1, churn or 0 do  -- deaths and spawns
      layer:remove(tick * churn + k)
      layer:set(n + tick * churn + k, math.random() * span, math.random() * span, 2.5 + math.random() * 12.5)
    end
    local cur = lists[tick % 2 + 1] == prev and lists[(tick + 1) % 2 + 1] or lists[tick % 2 + 1]
    local t0 = clock()
    local _, np = layer:pairs(cur)
    local t1 = clock()
    local nb, ne
    b, e, nb, ne = c:update(b, e)
    local t2 = clock()
    local lnb, lne = lua_diff(prev, np_prev, cur, np, lb, le)
    local t3 = clock()
    agree = agree and lnb == nb and lne == ne
    prev, np_prev = cur, np
    if tick > 0 then
      tp[tick], tc[tick], tl[tick] = t1 - t0, t2 - t1, t3 - t2
      events = events + nb + ne
    end
  end
  local mp, mc, ml = timing.median(tp), timing.median(tc), timing.median(tl)
  print(string.format("contacts %-36s %6d events/tick%s  layer:pairs() %6.3f ms  contacts:update %6.3f ms (%.2fx pairs)  Lua diff %7.3f ms (%.1fx contacts; pairs() + Lua diff %.1fx)",
    name, events // ticks, agree and "" or " (DISAGREE)", mp * 1e3, mc * 1e3, mc / mp, ml * 1e3, ml / mc, (ml + mp) / mc))
  -- The floor under any contacts:update: handing its events' ids to Lua. Measured as a
  -- whole-world in_box over a layer of exactly that many entities (its kernel costs about
  -- 0.1 ns an entity, so the time is the writing of the ids into a reused table).
  local ids = 2 * (events // ticks)
  local floor_layer, out, tf = soageo.layer(ids), {}, {}
  for i = 1, ids do floor_layer:set(i, i % 100, i // 100) end
  floor_layer:in_box(-1, -1, 1e6, 1e6, out)
  for r = 1, 31 do
    local t0 = clock()
    floor_layer:in_box(-1, -1, 1e6, 1e6, out)
    tf[r] = clock() - t0
  end
  local mf = timing.median(tf)
  print(string.format("contacts %-36s floor: writing its %d event ids to Lua %6.3f ms = %.1fx of Lua diff / 20 (%.3f ms)",
    name, ids, mf * 1e3, mf / (ml / 20), ml / 20 * 1e3))
end

contacts_bench("uniform 10,000 in 2000x2000, all move", 10000, 2000, 1, 16)
contacts_bench("uniform 10,000 in 2000x2000, 10% move", 10000, 2000, 0.1, 16)
contacts_bench("10,000, 10% move, 1 dies, 1 spawns", 10000, 2000, 0.1, 16, 1)
contacts_bench("uniform 100,000 in 6325x6325, all move", 100000, 6325, 1, 8)
contacts_bench("uniform 100,000 in 6325x6325, 10% move", 100000, 6325, 0.1, 8)
contacts_bench("100,000, 10% move, 16 die, 16 spawn", 100000, 6325, 0.1, 8, 16)
