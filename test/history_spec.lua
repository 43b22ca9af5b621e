-- layer:history, layer:commit and layer:past: a replay of 40 ticks of moves (a few of them
-- teleports), adds, removes, re-adds and mask and radius changes, kept with history(16). After
-- every commit each kept tick is viewed, plain and interpolated, and every query is asked of the
-- view and of a fresh layer built from the float32 state recorded at that tick (the
-- interpolated positions computed here by the documented rule): the answers must be equal,
-- ids in the same order, on every SIMD target, through the scan and through the frame's index.
local soageo = require "soageo"
local rng = require "rng"
local f32 = require("float32").f32
local util = require "spec_util"

local WORLD = 400
local MODES = { "index", "scan" }  -- a view compared through its index and through the scan

local record = util.rows  -- the layer's entities in slot order

-- A fresh layer holding `rec` in the same slot order.
local function layer_of(rec)
  local l = soageo.layer()
  for _, e in ipairs(rec) do l:set(e[1], e[2], e[3], e[4], e[5]) end
  return l
end

-- What the view of tick `a` at `alpha` holds (the entities of `a`, in its slot order, radius
-- and mask of `a`): an id also in `b` at a + alpha * (b - a) in double, rounded to float32
-- (alpha = 1: b), any other where it stood.
local function interpolated(a, b, alpha)
  local at = {}
  for _, e in ipairs(b) do at[e[1]] = e end
  local t = {}
  for i, e in ipairs(a) do
    local x, y = e[2], e[3]
    local o = at[e[1]]
    if o then
      if alpha == 1 then
        x, y = o[2], o[3]
      else
        x, y = f32(x + alpha * (o[2] - x)), f32(y + alpha * (o[3] - y))
      end
    end
    t[i] = { e[1], x, y, e[4], e[5] }
  end
  return t
end

-- One tick of changes.
local function step(layer, r, tick, next_id, removed)
  local n = #layer
  -- Moves: most entities a little, a few teleport, some through move_many.
  local mids, mxs, mys = {}, {}, {}
  for id, x, y in layer:each() do
    local u = r:uniform(0, 1)
    if u < 0.02 then
      layer:move(id, r:uniform(0, WORLD), r:uniform(0, WORLD))
    elseif u < 0.6 then
      layer:move(id, x + r:uniform(-2, 2), y + r:uniform(-2, 2))
    elseif u < 0.7 then
      mids[#mids + 1], mxs[#mxs + 1], mys[#mys + 1] = id, x + r:uniform(-2, 2), y + r:uniform(-2, 2)
    end
  end
  if tick % 7 == 3 then return next_id end  -- moves only: the frame shares its shapes
  layer:move_many(mids, mxs, mys)
  -- Removes, re-adds of removed ids, new ids, mask and radius changes.
  for _ = 1, r:int(0, 8) do
    local all = {}
    for id in layer:each() do all[#all + 1] = id end
    if #all > 0 then
      local id = all[r:int(1, #all)]
      layer:remove(id)
      removed[#removed + 1] = id
    end
  end
  for _ = 1, r:int(0, 3) do
    if #removed > 0 then
      local id = table.remove(removed, r:int(1, #removed))
      layer:set(id, r:uniform(0, WORLD), r:uniform(0, WORLD), r:uniform(0, 4), r:int(1, 3))
    end
  end
  for _ = 1, r:int(0, 8) do
    layer:set(next_id, r:uniform(0, WORLD), r:uniform(0, WORLD), r:int(0, 4) == 0 and r:uniform(0, 30) or r:uniform(0, 3), r:int(1, 3))
    next_id = next_id + 1
  end
  for _ = 1, r:int(0, 5) do
    local id = r:int(1, next_id - 1)
    local x, y = layer:get(id)
    if x then layer:set(id, x, y, r:uniform(0, 4), r:int(0, 3)) end
  end
  assert(#layer > n - 20)
  return next_id
end

util.each_target(describe, setup, teardown, function(arch) return "when past ticks are queried (" .. arch .. ")" end, function(arch)

  it("answers every query at every kept tick, plain and interpolated, as a layer of the recorded state", function()
    local r = rng.new(37)
    local layer = soageo.layer()
    for id = 1, 300 do
      layer:set(id, r:uniform(0, WORLD), r:uniform(0, WORLD), r:uniform(0, 3), r:int(1, 3))
    end
    assert.are.same({ 16 }, { layer:history(16) })
    local recs, next_id, removed = {}, 301, {}
    local views = {}
    for tick = 1, 40 do
      if tick > 1 then next_id = step(layer, r, tick, next_id, removed) end
      local committed = layer:commit()
      recs[committed] = record(layer)
      if tick == 20 then  -- a tick where nothing changed: the frame shares everything
        committed = layer:commit()
        recs[committed] = record(layer)
      end
      local oldest = math.max(1, committed - 15)
      assert.are.same({ 16, oldest, committed }, { layer:history() })
      local qs = util.mixed_queries(r, WORLD, 3, 3)
      -- Some ids present and absent (get, has): every 7th ever used, and one never used.
      local sample = { 100000 }
      for id = tick % 7 + 1, next_id - 1, 7 do sample[#sample + 1] = id end
      local middle = r:int(oldest, committed)
      for k = oldest, committed do
        -- Every kept tick has a view; the newest, the oldest and another are compared (the
        -- oldest's view made ticks ago, while it was newer).
        views[k] = views[k] or layer:past(k)
        if k == committed or k == oldest or k == middle then
          util.same_answers(assert, views[k], layer_of(recs[k]), qs, sample, MODES,
            ("tick %d at %d"):format(k, committed))
        end
      end
      for _, c in ipairs({ { committed - 1, r:uniform(0, 1) }, { oldest, 1 }, { middle, 0.5 } }) do
        local k, alpha = c[1], c[2]
        if k >= oldest and k < committed then
          local want = layer_of(interpolated(recs[k], recs[k + 1], alpha))
          util.same_answers(assert, layer:past(k, alpha), want, qs, sample, MODES,
            ("tick %d alpha %.17g at %d"):format(k, alpha, committed))
        end
      end
      assert.are.equal(#recs[oldest], #views[oldest])
      if oldest > 1 then
        assert.has_error(function() return #views[oldest - 1] end,
          ("bad argument #1 to 'len' (tick %d has left the history)"):format(oldest - 1))
      end
    end
  end)
end)

describe("when a layer keeps its history", function()
  it("numbers ticks on across history(0), and views of dropped ticks raise", function()
    local l = soageo.layer()
    l:set(1, 1, 2, 3, 4)
    assert.are.same({ 0 }, { l:history() })
    l:history(2)
    assert.are.equal(1, l:commit())
    local v = l:past(1)
    assert.are.same({ 1, 2, 3, 4 }, { v:get(1) })
    assert.are.same({ 1, 0 }, { v:tick() })
    assert.are.same({ 0 }, { l:history(0) })
    assert.has_error(function() v:get(1) end, "calling 'get' on bad self (tick 1 has left the history)")
    assert.has_error(function() l:commit() end, "calling 'commit' on bad self (history is off)")
    l:history(3)
    assert.are.equal(2, l:commit())
    assert.are.equal(3, l:commit())
    assert.are.same({ 3, 2, 3 }, { l:history() })
    assert.are.same({ 2, 2, 3 }, { l:history(2) })
    l:commit()
    assert.are.same({ 2, 3, 4 }, { l:history() })
  end)

  it("returns each tick's radius bit for bit, a radius of 0 set again as -0.0 included", function()
    local l = soageo.layer()
    l:history(4)
    l:set(1, 0, 0, 0)
    l:commit()
    l:set(1, 0, 0, -0.0)
    l:commit()
    assert.are.equal("0.0", tostring(select(3, l:past(1):get(1))))
    assert.are.equal("-0.0", tostring(select(3, l:past(2):get(1))))
    assert.are.equal(l:dump(), l:past(2):dump())
  end)

  it("keeps 64 ticks at most, the newest 64", function()
    local l = soageo.layer()
    l:set(1, 0, 0)
    assert.has_error(function() l:history(65) end, "bad argument #1 to 'history' (ticks must be an integer in [0, 64])")
    l:history(64)
    for t = 1, 70 do
      l:move(1, t, 0)
      assert.are.equal(t, l:commit())
    end
    assert.are.same({ 64, 7, 70 }, { l:history() })
    for t = 7, 70 do assert.are.equal(t, (l:past(t):get(1))) end
    assert.are.equal(10.25, (l:past(10, 0.25):get(1)))
  end)

  it("records entities removed since and not those added since; ids re-added interpolate", function()
    local l = soageo.layer()
    l:history(4)
    l:set(1, 0, 0)
    l:set(2, 10, 0)
    l:commit()
    l:remove(1)
    l:set(3, 5, 5)
    l:remove(2)
    l:set(2, 20, 0)  -- removed and re-added: still the same id
    l:commit()
    local v = l:past(1)
    assert.is_true(v:has(1))
    assert.is_false(v:has(3))
    assert.are.same({ 1, 2 }, (v:in_box(-1, -1, 30, 1)))
    local w = l:past(1, 0.5)
    assert.are.same({ 0, 0, 0, 1 }, { w:get(1) })     -- gone at 2: stands where it was
    assert.are.same({ 15, 0, 0, 1 }, { w:get(2) })
    assert.are.equal(2, #w)
  end)

  it("keeps its layer alive", function()
    local l = soageo.layer()
    l:set(7, 1, 1)
    l:history(1)
    l:commit()
    local v = l:past(1)
    l = nil
    collectgarbage()
    collectgarbage()
    assert.is_true(v:has(7))
  end)

  it("raises on use once its layer is closed", function()
    local l = soageo.layer()
    l:history(1)
    l:commit()
    local v = l:past(1)
    l:close()
    assert.has_error(function() return #v end, "bad argument #1 to 'len' (layer is closed)")
  end)

  it("costs a frame only what changed: nothing for a tick where nothing moved", function()
    local l = soageo.layer()
    for i = 1, 20000 do l:set(i, i, i) end
    l:history(8)
    l:commit()
    collectgarbage()
    collectgarbage("stop")
    local before = collectgarbage("count")
    l:commit()
    local still = collectgarbage("count") - before
    for i = 1, 20000, 2 do l:move(i, i + 1, i) end
    before = collectgarbage("count")
    l:commit()
    local moved = collectgarbage("count") - before
    l:set(1, 1, 1, 2)
    before = collectgarbage("count")
    l:commit()
    local reshaped = collectgarbage("count") - before
    l:past(2):has(1)  -- ticks 2 and 3 get their id maps and scratch
    l:past(3):has(1)
    collectgarbage()
    before = collectgarbage("count")
    l:past(2, 0.5):has(1)
    local interpolated_view = collectgarbage("count") - before
    before = collectgarbage("count")
    l:past(2, 0.5):has(1)  -- the same tick and alpha: shares the positions made above
    local again = collectgarbage("count") - before
    collectgarbage("restart")
    assert.is_true(interpolated_view > 20000 * 20 / 1024 and interpolated_view < 20000 * 22 / 1024,
      "an interpolated view took " .. interpolated_view .. " KB")
    assert.is_true(again < 2, "a second view of the same tick and alpha took " .. again .. " KB")
    assert.is_true(still < 2, "a still tick took " .. still .. " KB")
    assert.is_true(moved > 20000 * 8 / 1024 and moved < 20000 * 9 / 1024, "a moving tick took " .. moved .. " KB")
    assert.is_true(reshaped > 20000 * 24 / 1024 and reshaped < 20000 * 26 / 1024, "a reshaped tick took " .. reshaped .. " KB")
  end)
end)

describe("when the history is full", function()
  it("takes over the blocks of the tick it drops: a commit allocates nothing, and the tick raises", function()
    local l = soageo.layer()
    for i = 1, 20000 do l:set(i, i, i) end
    l:history(3)
    for _ = 1, 3 do
      for i = 1, 20000, 3 do l:move(i, i + 1, i) end
      l:commit()
    end
    local oldest = l:past(1)
    assert.are.same({ 2, 1, 0, 1 }, { oldest:get(1) })
    collectgarbage()
    collectgarbage("stop")
    local before = collectgarbage("count")
    for t = 4, 9 do
      for i = 1, 20000, 3 do l:move(i, i + t, i) end
      if t == 6 then l:remove(5); l:set(20001, 1, 1) end
      assert.are.equal(t, l:commit())
    end
    local grown = collectgarbage("count") - before
    collectgarbage("restart")
    -- One block allocated: tick 6's radii, masks and ids (the dropped tick's were shared by
    -- the ticks kept); every positions block (156 KB) was taken over.
    assert.is_true(grown > 20000 * 16 / 1024 and grown < 20000 * 16 / 1024 + 40, "six commits took " .. grown .. " KB")
    assert.has_error(function() oldest:get(2) end, "calling 'get' on bad self (tick 1 has left the history)")
    for t = 7, 9 do
      local v = l:past(t)
      assert.are.same({ 1 + t, 1, 0, 1 }, { v:get(1) })
      assert.are.same({ 2, 2, 0, 1 }, { v:get(2) })
      assert.is_false(v:has(5))
      assert.are.equal(20000, #v)
    end
  end)
end)

describe("when history calls get bad input", function()
  local l, v
  before_each(function()
    l = soageo.layer()
    l:set(1, 0, 0)
    l:history(4)
    l:commit()
    l:commit()
    v = l:past(1)
  end)

  it("rejects bad tick counts", function()
    for _, bad in ipairs({ -1, 65, 1.5, "x", 0 / 0 }) do
      assert.has_error(function() l:history(bad) end, "bad argument #1 to 'history' (ticks must be an integer in [0, 64])")
    end
  end)

  it("rejects ticks outside the history and bad alphas", function()
    assert.has_error(function() l:past(0) end, "bad argument #1 to 'past' (tick 0 is not committed yet)")
    assert.has_error(function() l:past(3) end, "bad argument #1 to 'past' (tick 3 is not committed yet)")
    assert.has_error(function() l:past(1.5) end, "bad argument #1 to 'past' (number has no integer representation)")
    assert.has_error(function() l:past("x") end, "bad argument #1 to 'past' (number expected, got string)")
    for _, bad in ipairs({ -0.1, 1.1, 0 / 0, math.huge, -math.huge }) do
      assert.has_error(function() l:past(1, bad) end, "bad argument #2 to 'past' (alpha must be finite and in [0, 1])")
    end
    assert.has_error(function() l:past(1, "half") end, "bad argument #2 to 'past' (number expected, got string)")
    assert.are.same({ 1, 0.5 }, { l:past(1, "0.5"):tick() })  -- a numeric string converts, as elsewhere
    assert.has_error(function() l:past(2, 0.5) end, "bad argument #2 to 'past' (alpha must be 0 at the newest tick)")
    assert.are.equal(2, l:past(2, 0):tick())
    l:history(1)
    assert.has_error(function() l:past(1) end, "bad argument #1 to 'past' (tick 1 has left the history)")
    assert.has_error(function() v:has(1) end, "calling 'has' on bad self (tick 1 has left the history)")
    assert.has_error(function() for _ in v:each() do end end, "calling 'each' on bad self (tick 1 has left the history)")
  end)

  it("refuses every change to a past tick", function()
    for _, name in ipairs({ "set", "move", "remove", "clear", "set_many", "move_many", "merge", "remove_many",
                            "history", "commit", "past" }) do
      assert.has_error(function() v[name](v, 1, 0, 0) end, "bad argument #1 to '?' (layer is read-only: a past tick)")
    end
    assert.has_error(function() v:move(1, 5, 5) end, "calling 'move' on bad self (layer is read-only: a past tick)")
    assert.are.same({ 0, 0, 0, 1 }, { v:get(1) })
    assert.is_nil(v.close)
  end)

  it("rejects what is not a view or a layer", function()
    assert.has_error(function() v.get({}, 1) end, "bad argument #1 to 'get' (soageo.past_view expected, got table)")
    assert.has_error(function() l.commit({}) end, "bad argument #1 to 'commit' (soageo.layer expected, got table)")
  end)
end)

describe("when finalizers commit and query while views answer", function()
  it("returns what the tick held, or raises that it left the history", function()
    local r = rng.new(5)
    local l = soageo.layer()
    for id = 1, 200 do l:set(id, r:uniform(0, 100), r:uniform(0, 100), r:uniform(0, 2)) end
    l:history(5)
    local recs = {}
    recs[l:commit()] = record(l)
    recs[l:commit()] = record(l)
    -- Each collection cycle: a few moves, an add or a remove, a commit (recorded), and queries of
    -- plain and interpolated views, all inside whatever soageo call allocated.
    local fired, keep = 0, true
    local mt = {}
    -- A finalizer that runs while a call holds the layer gets "layer is busy" (and changed
    -- nothing that was committed): it counts only when it went through, and re-arms first.
    local function cycle()
      local k = fired + 1
      for _ = 1, 5 do l:move(r:int(1, 200), r:uniform(0, 100), r:uniform(0, 100)) end
      if k % 3 == 0 then l:set(200 + k, r:uniform(0, 100), r:uniform(0, 100)) end
      if k % 4 == 0 then l:remove(200 + k - 1) end
      local t = l:commit()
      recs[t] = record(l)
      fired = k
      l:past(t - 1):touch_box(0, 0, 50, 50)
      l:past(t - 1, 0.5):in_circle(50, 50, 20)
    end
    mt.__gc = function()
      if keep then setmetatable({}, mt) end
      local ok, err = pcall(cycle)
      if not ok then assert(tostring(err):match("is busy"), tostring(err)) end
    end
    collectgarbage()
    local pause55 = select(2, pcall(collectgarbage, "param", "pause", 0))
    collectgarbage("incremental", 0, 100, 8)
    for _ = 1, 3 do setmetatable({}, mt) end
    local answered, left, round = 0, 0, 0
    -- 400 rounds at least, more until the finalizers ran 30 times (the collector's pace depends
    -- on what the specs before left in the heap).
    while round < 400 or (fired < 30 and round < 4000) do
      round = round + 1
      local _, oldest, newest = l:history()
      local t = r:int(oldest, newest)
      local alpha = (t < newest and round % 2 == 0) and 0.25 or 0
      local ok, v = pcall(l.past, l, t, alpha)
      local ids, n, err = nil, nil, v
      if ok then
        ok, ids, n = pcall(v.touch_circle, v, 50, 50, 30)
        err = ids
      end
      if ok then
        local want = alpha == 0 and recs[t] or interpolated(recs[t], recs[t + 1], alpha)
        local wids, wn = layer_of(want):touch_circle(50, 50, 30)
        assert.are.equal(wn, n)
        assert.are.same(wids, ids)
        answered = answered + 1
      else
        assert.is_truthy(tostring(err):match("tick %d+ has left the history"), tostring(err))
        left = left + 1
      end
    end
    keep = false
    collectgarbage("incremental", 200, 100, 13)
    if math.type(pause55) == "integer" then collectgarbage("param", "pause", pause55) end
    collectgarbage()
    assert.is_true(fired >= 30 and answered > 100, fired .. " finalizer runs, " .. answered .. " answers")
  end)
end)

describe("when a past view is given where a layer is read", function()
  -- Entity 2 stands behind a wall from entity 1's point of view at tick 1, in the open at tick 2.
  local function world()
    local l = soageo.layer()
    l:history(4)
    l:set(1, 0, 0)
    l:set(2, 10, 0, 0.5)
    l:commit()
    l:move(2, 10, 10)
    l:commit()
    return l, soageo.walls({ 5, -1, 5, 1 })
  end

  it("returns what walls:visible saw at that tick, interpolated too", function()
    local l, walls = world()
    assert.are.equal(0, select(2, walls:visible(0, 0, l:past(1), { 2 })))
    assert.are.equal(1, select(2, walls:visible(0, 0, l:past(2), { 2 })))
    -- halfway: (10, 5), the line passes the wall's end above it
    assert.are.equal(1, select(2, walls:visible(0, 0, l:past(1, 0.5), { 2 })))
    assert.are.equal(1, select(2, walls:visible(0, 0, l, { 2 })))
  end)

  it("returns what tiles:visible saw at that tick", function()
    local l = world()
    local tiles = soageo.tiles(20, 20, 1, string.rep("0", 400), -10, -10)
    tiles:set(15, 10, true)  -- the cell [5, 6) x [0, 1)
    assert.are.equal(0, select(2, tiles:visible(0, 0, l:past(1), { 2 })))
    assert.are.equal(1, select(2, tiles:visible(0, 0, l:past(2), { 2 })))
  end)

  it("raises for an id the tick did not hold", function()
    local l, walls = world()
    l:set(3, 1, 1)
    l:commit()
    local ok, err = pcall(function() return walls:visible(0, 0, l:past(2), { 3 }) end)
    assert.is_false(ok)
    assert.is_truthy(err:find("ids[1] is not in the layer", 1, true), err)
  end)

  it("returns the pairs across a tick and a layer, or two ticks", function()
    local l = world()
    local other = soageo.layer()
    other:set(7, 10, 0, 1)
    local out, n = soageo.pairs_between(l:past(1), other)
    assert.are.same({ 2, 7 }, { out[1], out[2] })
    assert.are.equal(1, n)
    assert.are.equal(0, select(2, soageo.pairs_between(l:past(2), other)))
    assert.are.equal(0, select(2, soageo.pairs_between(l, other)))
    out, n = soageo.pairs_between(other, l:past(1))
    assert.are.same({ 7, 2 }, { out[1], out[2] })
    -- the layer at tick 1 against itself at tick 2: 1 touches 1; 2 moved away from 2
    assert.are.equal(1, select(2, soageo.pairs_between(l:past(1), l:past(2))))
  end)

  it("raises for two views of one tick, and for a tick that left the history", function()
    local l, walls = world()
    local ok, err = pcall(function() return soageo.pairs_between(l:past(2), l:past(2)) end)
    assert.is_false(ok)
    assert.is_truthy(err:find("layers must differ", 1, true), err)
    local old = l:past(1)
    for _ = 1, 4 do l:commit() end
    ok, err = pcall(function() return walls:visible(0, 0, old, { 2 }) end)
    assert.is_false(ok)
    assert.is_truthy(err:find("bad argument #3 to 'visible' (tick 1 has left the history)", 1, true), err)
    ok, err = pcall(function() return soageo.pairs_between(l, old) end)
    assert.is_false(ok)
    assert.is_truthy(err:find("bad argument #2 to 'pairs_between' (tick 1 has left the history)", 1, true), err)
  end)

  it("raises for the objects that keep a live layer", function()
    local l = world()
    for _, make in ipairs({ soageo.aoi, soageo.contacts }) do
      local ok, err = pcall(make, l:past(1))
      assert.is_false(ok)
      assert.is_truthy(err:find("soageo.layer expected, got soageo.past_view", 1, true), err)
    end
  end)

  it("raises when a finalizer its allocations run drops the view's tick, and answers when it does not", function()
    local during = util.during
    -- walls:visible: the view's frame is ready (queried before), so the first allocation is
    -- the result table; the finalizer drops tick 1 there.
    local l, walls = world()
    local v, ids = l:past(1), { 2 }
    walls:visible(0, 0, v, ids, nil, {})
    local ok, err = during(function() return walls:visible(0, 0, v, ids) end, function() l:history(1) end)
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find("bad argument #3 to 'visible' (tick 1 has left the history)", 1, true), err)
    -- pairs_between: b's interpolated frame is made after a's frame took a's place; the
    -- finalizer its allocation runs drops a's tick, or closes a's layer.
    for _, drop in ipairs({ "history", "close" }) do
      local la = world()
      local a = la:past(1)
      a:pairs()  -- a's frame ready: making it allocates nothing more
      local lb = world()
      local b = lb:past(1, 0.5)
      ok, err = during(function() return soageo.pairs_between(a, b) end, function()
        if drop == "history" then la:history(1) else la:close() end
      end)
      assert.is_false(ok)
      local want = drop == "history" and "tick 1 has left the history" or "layer is closed"
      assert.is_truthy(tostring(err):find("bad argument #1 to 'pairs_between' (" .. want .. ")", 1, true), err)
    end
    -- A finalizer that changes nothing the call reads: the answer of the tick.
    local la, lb = world(), world()
    local a, b = la:past(1), lb:past(1, 0.5)
    a:pairs()
    local n
    ok, _, n = during(function() return soageo.pairs_between(a, b) end, function() la:move(1, 500, 500) end)
    assert.is_true(ok)
    local out = {}
    soageo.pairs_between(a, b, out)
    assert.are.equal(1, n)  -- 1 over 1 at tick 1 (2 stood at (10, 5) halfway, alone)
    assert.are.same({ 1, 1 }, out)
  end)

  it("takes two views of one tick at one alpha as one layer, whatever frames answer for them", function()
    local l = world()
    local a = l:past(1, 0.5)
    a:pairs()
    l:past(1, 0.25):pairs()  -- the tick's cached interpolation is now alpha 0.25's
    local b = l:past(1, 0.5)  -- a frame of its own
    for _, pair in ipairs({ { l:past(1), l:past(1) }, { a, b } }) do
      local ok, err = pcall(soageo.pairs_between, pair[1], pair[2])
      assert.is_false(ok)
      assert.is_truthy(tostring(err):find("layers must differ", 1, true), err)
    end
    assert.is_true(pcall(soageo.pairs_between, l:past(1), l:past(2)))
    assert.is_true(pcall(soageo.pairs_between, a, l:past(1, 0.25)))
  end)
end)
