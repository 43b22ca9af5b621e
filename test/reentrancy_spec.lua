-- Finalizers run inside collection steps, which allocations may take (making a result table,
-- a scratch block, an event list), so a finalizer may query, grow or update the very layer (or
-- aoi) being read. Memory must stay valid (the
-- blocks are pinned; run under `make asan` to see it) and the layer must stay consistent.
local soageo = require "soageo"

-- A collector that never pauses and steps every few hundred bytes, so that finalizers often
-- run inside the calls under test. Lua 5.4 takes pause, step multiplier and log2(step size) as
-- arguments; 5.5 takes parameters (and ignores the arguments). The full collection makes the
-- new pause count now (and resets the target that Lua 5.4.4 leaves wrong after a full
-- collection in generational mode, the mode the first test below runs in). Returns a function
-- that puts the default collector back.
-- Where the collector's cycle stands when the next call starts: a string of a size that
-- differs from round to round (up to 4 MB), so that over the rounds cycles end at every point
-- of the call (the same rounds would otherwise meet the cycle at the same point every time).
local function shift_phase(round)
  local pad = string.rep("x", (round * 104729) % (4 << 20))
  pad = nil
  return pad
end

local function eager_collector()
  local pause55 = select(2, pcall(collectgarbage, "param", "pause", 0))
  local stepsize55 = select(2, pcall(collectgarbage, "param", "stepsize", 256))
  collectgarbage("incremental", 0, 100, 8)
  collectgarbage()
  return function()
    collectgarbage("incremental", 200, 100, 13)
    if math.type(pause55) == "integer" then collectgarbage("param", "pause", pause55) end
    if math.type(stepsize55) == "integer" then collectgarbage("param", "stepsize", stepsize55) end
  end
end

-- The action that ran the fewest times: the collector's rhythm repeats with the rounds, so
-- taking actions in turn could leave one of them always on rounds where none runs.
local function least(actions, fired)
  local best
  for _, act in ipairs(actions) do
    if not best or (fired[act] or 0) < (fired[best] or 0) then best = act end
  end
  return best, fired[best] or 0
end

-- Finalizers that run `on_gc` at the end of every collection cycle (each leaves another
-- finalizable object), under the eager collector; returns the function that stops them and
-- puts the default collector back.
local function perpetual_finalizers(on_gc, count)
  local mt, keep = {}, true
  mt.__gc = function()
    on_gc()
    if keep then setmetatable({}, mt) end
  end
  collectgarbage()
  local restore = eager_collector()
  for _ = 1, count or 3 do setmetatable({}, mt) end
  return function()
    keep = false
    restore()
    collectgarbage()
  end
end

describe("when finalizers use a layer during a query", function()
  it("neither crashes nor corrupts the layer", function()
    local l = soageo.layer(16)
    for i = 1, 600 do l:set(i, (i * 37) % 400, (i * 91) % 400, 1) end
    local aoi = soageo.aoi(l)
    for i = 1, 600, 7 do aoi:watch(i, 5) end
    local next_id = 100000
    local mt = { __gc = function()
      -- grows the layer (new column block: the old one must survive the running query)
      for _ = 1, 20 do next_id = next_id + 1; l:set(next_id, next_id % 400, (next_id * 7) % 400, 1) end
      l:in_circle(25, 20, 10)
      l:pairs()
      pcall(aoi.update, aoi)  -- may refuse: the outer update is running
    end }
    collectgarbage("generational")
    for round = 1, 12 do
      for _ = 1, 50 do setmetatable({}, mt) end   -- garbage with finalizers
      local out, n = l:touch_circle(25, 20, 30)   -- result tables allocate: the GC may run
      local pairs_out, np = l:pairs()
      -- A finalizer's nested update makes this one stale: it then refuses, with a clear error.
      local ok, enter, leave, ne, nl = pcall(aoi.update, aoi)
      if ok then
        assert.is_true(#enter == 2 * ne and #leave == 2 * nl)
      else
        assert.matches("changed by a finalizer during", enter)
      end
      assert.is_true(n >= 0 and np >= 0 and #out >= 0 and #pairs_out == 2 * np)
      if round % 4 == 0 then collectgarbage() end
    end
    collectgarbage("incremental")
    local count = 0
    for id in l:each() do count = count + 1; assert.is_truthy(l:get(id)) end
    assert.are.equal(#l, count)
    assert.is_true(count > 600)  -- the finalizers did run and grow the layer
    local _, _, ne = aoi:update()  -- and the aoi is still usable
    assert.is_true(ne >= 0)
  end)
end)

describe("when finalizers watch, unwatch, update or close an aoi inside its own calls", function()
  it("raises a clear error, never crashes, and the aoi still sees exactly its circles", function()
    local l = soageo.layer()
    for i = 1, 400 do l:set(i, (i * 37) % 120, (i * 91) % 120) end
    local cur, action = nil, nil
    local fired = {}  -- action -> times it ran inside aoi:watch or aoi:update
    -- Acts only when it interrupted aoi:watch or aoi:update themselves (the function one level
    -- up): a finalizer run anywhere else, e.g. by the allocation of pcall's call frame, would
    -- test nothing, so it leaves the action for a later one.
    local mt = { __gc = function()
      if cur and action then
        local inside = debug.getinfo(2, "f").func
        if inside ~= cur.watch and inside ~= cur.update then return end
        local act = action
        action = nil
        fired[act] = (fired[act] or 0) + 1
        act(cur)
      end
    end }
    local extra = 0
    local actions = {
      function(a) a:unwatch(1) end,                      -- shifts the slot watch() computed
      function(a) extra = extra + 1; a:watch(5000 + extra, 3) end,  -- inserts before it
      function(a) pcall(a.update, a) end,                -- a nested update
      function(a) a:close() end,                         -- frees every block
    }
    -- Integer positions and view 10: squared distances are exact in float32.
    local function brute(id)
      local x, y = l:get(id)
      local out = {}
      for t = 1, 400 do
        local tx, ty = l:get(t)
        local dx, dy = tx - x, ty - y
        if t ~= id and dx * dx + dy * dy < 100 then out[#out + 1] = t end
      end
      return out
    end
    local restore = eager_collector()
    local rng = require("rng").new(11)
    local round = 0
    while select(2, least(actions, fired)) < 10 and round < 4000 do  -- 40 actions took 120 to 520 rounds on 5.4 and 5.5
      round = round + 1
      for _ = 1, 200 do setmetatable({}, mt) end
      for _ = 1, rng:int(0, 400) do local _ = {} end  -- so that rounds do not repeat its rhythm
      local aoi = soageo.aoi(l)
      for i = 1, 16 do aoi:watch(i, 10) end
      cur, action = aoi, least(actions, fired)
      local ok1, e1 = pcall(aoi.watch, aoi, 1000, 10)  -- grows the watcher block
      local closed = tostring(aoi):find("closed", 1, true)  -- by a finalizer inside watch
      local ok2, e2 = pcall(aoi.update, aoi)           -- grows scratch, lists and events
      local ok3, e3 = pcall(aoi.watchers_of, aoi, 3)   -- inverts the lists into a new block
      cur, action = nil, nil
      if not ok3 then assert.is_truthy(e3:find("by a finalizer during this call", 1, true) or e3:find("aoi is closed", 1, true)) end
      if not ok1 then assert.matches("changed by a finalizer during this call", e1) end
      if not ok2 then assert.matches(closed and "aoi is closed" or "changed by a finalizer during this call", e2) end
      if not tostring(aoi):find("closed", 1, true) then
        for i = 1, 16 do aoi:watch(i, 10) end
        aoi:update()
        for i = 1, 16 do
          local seen = aoi:visible(i)
          assert.are.same(brute(i), seen)
        end
        local seers = {}  -- watchers 1..16 see 3 exactly when 3 sees them (same view)
        for _, t in ipairs(brute(3)) do if t <= 16 then seers[#seers + 1] = t end end
        assert.are.same(seers, (aoi:watchers_of(3)))
      end
    end
    restore()
    for i, act in ipairs(actions) do  -- every action did run inside those calls, ten times or more
      assert.is_true((fired[act] or 0) >= 10, ("action %d ran %d times inside a call"):format(i, fired[act] or 0))
    end
  end)
end)

describe("when finalizers update, close or grow a contacts object inside its own calls", function()
  it("raises a clear error, never crashes, and the events still replay onto layer:pairs()", function()
    local l = soageo.layer()
    for i = 1, 300 do l:set(i, (i * 37) % 100, (i * 91) % 100, 2) end
    local cur, action = nil, nil
    local fired, count = {}, 0  -- action -> times it ran inside contacts:update or :touching
    -- Acts only when it interrupted update or touching themselves (the function one level up).
    local mt = { __gc = function()
      if cur and action then
        local inside = debug.getinfo(2, "f").func
        if inside ~= cur.update and inside ~= cur.touching then return end
        local act = action
        action = nil
        fired[act], count = (fired[act] or 0) + 1, count + 1
        act(cur)
      end
    end }
    local next_id = 10000
    local actions = {
      function(c) pcall(c.update, c) end,                     -- a nested update
      function(c) c:close() end,                              -- frees every block
      function(c) pcall(c.touching, c, 5) end,                -- builds the neighbour lists
      function()                                              -- grows the layer under the sweep
        for _ = 1, 40 do next_id = next_id + 1; l:set(next_id, next_id % 100, (next_id * 7) % 100, 2) end
      end,
    }
    local function set_of(list, n)
      local s = {}
      for i = 1, n do s[list[2 * i - 1] .. " " .. list[2 * i]] = true end
      return s
    end
    local restore = eager_collector()
    local rng = require("rng").new(12)
    local round = 0
    while select(2, least(actions, fired)) < 10 and round < 4000 do
      round = round + 1
      for _ = 1, 200 do setmetatable({}, mt) end
      for _ = 1, rng:int(0, 400) do local _ = {} end  -- so that rounds do not repeat its rhythm
      local c = soageo.contacts(l)
      local fired_before = count
      cur, action = c, least(actions, fired)
      local ok1, e1 = pcall(c.update, c)          -- grows scratch, frames and events
      local ok2, e2 = pcall(c.touching, c, 3)     -- builds the neighbour lists in a new block
      cur, action = nil, nil
      if not ok1 then assert.is_truthy(e1:find("by a finalizer during this call", 1, true) or e1:find("contacts is closed", 1, true), e1) end
      if not ok2 then assert.is_truthy(e2:find("by a finalizer during this call", 1, true) or e2:find("contacts is closed", 1, true), e2) end
      -- The checks allocate much: only after a round where a finalizer acted (or now and then),
      -- so that most collections, and the finalizers, fall inside the calls above.
      if (count > fired_before or round % 100 == 0) and not tostring(c):find("closed", 1, true) then
        -- Whatever happened, the next update brings the object to exactly the layer's pairs
        -- (a fresh object's first update, where every pair begins, is the reference).
        local _, ended, _, ne = c:update()
        local want, np = l:pairs()
        local fresh = soageo.contacts(l)
        local fb, _, fnb = fresh:update()
        assert.are.same(set_of(want, np), set_of(fb, fnb))
        assert.is_true(#ended == 2 * ne)
        local _, _, nb2, ne2 = c:update()  -- nothing changed since: nothing happens
        assert.are.equal(0, nb2 + ne2)
        local t = c:touching(3)
        local expect = {}
        for i = 1, np do
          if want[2 * i - 1] == 3 then expect[#expect + 1] = want[2 * i] end
          if want[2 * i] == 3 then expect[#expect + 1] = want[2 * i - 1] end
        end
        table.sort(expect)
        assert.are.same(expect, t)
      end
    end
    restore()
    for i, act in ipairs(actions) do  -- every action did run inside those calls, ten times or more
      assert.is_true((fired[act] or 0) >= 10, ("action %d ran %d times inside a call in %d rounds"):format(i, fired[act] or 0, round))
    end
  end)
end)

describe("when finalizers change a layer while its index answers a query", function()
  it("neither crashes nor corrupts the layer, and the index still answers as the scan", function()
    local l = soageo.layer(16)
    for i = 1, 3000 do l:set(i, (i * 37) % 1000, (i * 91) % 1000, (i % 7) * 0.5) end
    l:index_mode("index")
    local next_id = 100000
    local actions = {
      function() for _ = 1, 30 do next_id = next_id + 1; l:set(next_id, next_id % 1000, (next_id * 7) % 1000) end end,
      function() for i = 1, 3000, 97 do if l:has(i) then l:move(i, (i * 13) % 1000, (i * 29) % 1000) end end end,
      function() for i = 5, 3000, 131 do l:remove(i) end end,
      function() l:touch_box(100, 100, 300, 300) end,  -- rebuilds the index inside the outer query
      function() l:nearest(500, 500, 20) end,
      function() l:reindex() end,
    }
    local fired, armed = 0, true
    local mt = { __gc = function()
      if not armed then return end
      fired = fired + 1
      actions[fired % #actions + 1]()
    end }
    collectgarbage("generational")
    for round = 1, 20 do
      for _ = 1, 30 do setmetatable({}, mt) end   -- garbage with finalizers
      local out, n = l:touch_box(0, 0, 600, 600)  -- hundreds of ids: the result table grows
      assert.is_true(n >= 0 and #out == n)
      local near, k = l:nearest(400, 400, 300)
      assert.is_true(k >= 0 and #near == k)
      local _, m = l:in_sector_batch({ 500, 500, 1, 0, 400, 1.2, 200, 800, 0, -1, 300, 0.8 })
      assert.is_true(m >= 0)
      if round % 8 == 0 then collectgarbage() end
    end
    collectgarbage("incremental")
    assert.is_true(fired > 0)
    -- The finalizers still pending would change the layer between the queries compared below
    -- (one that adds entities while the index's answer is written makes that answer older than
    -- the scan's): they stop acting, and all of them run now.
    armed = false
    collectgarbage()
    collectgarbage()
    local count = 0
    for id in l:each() do count = count + 1; assert.is_truthy(l:get(id)) end
    assert.are.equal(#l, count)
    -- After all that, the index (rebuilt now) and the scan agree.
    local a, na = l:touch_box(0, 0, 700, 700, {})
    local b, nb = l:nearest(300, 300, 50, nil, {})
    l:index_mode("scan")
    local c, nc = l:touch_box(0, 0, 700, 700, {})
    local d, nd = l:nearest(300, 300, 50, nil, {})
    assert.are.same({ na, nb }, { nc, nd })
    assert.are.same(c, a)
    assert.are.same(d, b)
  end)

  it("raises a clear error when a finalizer closes the layer while the index is being allocated", function()
    local l = soageo.layer()
    for i = 1, 2000 do l:set(i, i % 100, i // 100) end
    l:index_mode("index")
    local armed = true
    local mt = { __gc = function() if armed then armed = false; l:close() end end }
    collectgarbage("generational")
    local ok, err
    for _ = 1, 200 do
      if not armed then break end
      setmetatable({}, mt)
      ok, err = pcall(function() return l:touch_box(0, 0, 10, 10) end)
      -- The finalizer may also run outside the query (Lua 5.5's collector steps elsewhere):
      -- then the layer is closed and the next move would raise, so stop there.
      if not ok or not armed then break end
      l:move(1, 1, 1)  -- stale again: the next query rebuilds (and allocates) again
    end
    collectgarbage("incremental")
    if not ok then
      assert.is_truthy(err:find("layer closed by a finalizer during a query", 1, true) or err:find("layer is closed", 1, true))
    end
  end)
end)

describe("when a finalizer queries the layer while a query writes its results", function()
  -- The finalizer's queries refill the hit buffers the outer query is writing from: the outer
  -- query must still return exactly its own hits (it writes them again), on the scan and
  -- through the index, for single queries, batches, nearest and segments. No `out` tables:
  -- creating the result table is where the collector steps (filling one does not).
  local function outer_calls(l)
    return {
      circle = function() return l:touch_circle(300, 300, 260) end,
      box = function() return l:in_box(0, 0, 500, 450) end,
      nearest = function() return l:nearest(250, 250, 400) end,
      batch = function() return l:in_circle_batch({ 200, 200, 180, 450, 450, 150 }) end,
      polygons = function() return l:in_polygon_batch({ { 0, 0, 500, 0, 250, 500 } }) end,
      segment = function()
        local ids, ts, n = l:cast_segment(0, 10, 1000, 990)
        for i = 1, n do ids[n + i] = ts[i] end  -- one table to compare
        return ids, n
      end,
    }
  end

  for _, mode in ipairs { "scan", "index" } do
    it("returns the same results as without the finalizer (" .. mode .. ")", function()
      local l = soageo.layer(16)
      for i = 1, 4000 do l:set(i, (i * 37) % 1000, (i * 91) % 1000, (i % 5) * 0.5) end
      l:index_mode(mode)
      local calls = outer_calls(l)
      local expected = {}
      for name, call in pairs(calls) do expected[name] = { call() } end
      local nested = 0
      local mt = { __gc = function()
        nested = nested + 1
        l:touch_circle(900, 900, 40)  -- other hits into the same buffers
        l:cast_segment_first(1000, 0, 0, 1000)
        l:nearest(990, 10, 3)
      end }
      -- Earlier specs may leave a large heap, which a few calls would never make the collector
      -- step through: collect it first, then step every few hundred bytes (eager_collector).
      collectgarbage()
      local restore = eager_collector()
      for round = 1, 200 do
        for name, call in pairs(calls) do
          for _ = 1, 20 do setmetatable({}, mt) end  -- garbage with finalizers
          assert.are.same(expected[name], { call() }, name)
        end
        if round >= 20 and nested >= 50 then break end
      end
      restore()
      assert.is_true(nested >= 50)  -- finalizers ran, many inside the calls (a build without the fix fails above)
    end)
  end
end)

describe("when a finalizer closes a layer while move_many makes its scratch", function()
  it("raises a clear error or moves every entity, never crashes", function()
    local n = 3000
    local ids, xs, ys = {}, {}, {}
    for i = 1, n do ids[i], xs[i], ys[i] = i, i + 0.5, -i end
    local current  -- the layer being moved: the finalizers close it, whenever they run
    local mt = { __gc = function() if current then current:close() end end }
    collectgarbage()
    local restore = eager_collector()
    local closed_inside, moved = 0, 0
    for _ = 1, 400 do
      current = nil
      local l = soageo.layer(n)
      for i = 1, n do l:set(i, 0, 0) end
      for _ = 1, 5 do setmetatable({}, mt) end
      current = l
      local ok, err = pcall(l.move_many, l, ids, xs, ys)  -- its first batch makes the scratch
      current = nil
      if ok then
        local x, y = l:get(n)
        assert.are.same({ n + 0.5, -n }, { x, y })
        moved = moved + 1
      else
        assert.matches("layer is closed", err)
        closed_inside = closed_inside + 1
      end
    end
    restore()
    assert.is_true(closed_inside > 0 and moved > 0)  -- both happened: the closing one inside the call
  end)
end)

describe("when a finalizer closes a layer while pairs or a growing set makes its blocks", function()
  -- Rounds of `call(l)` on a fresh layer of n entities while finalizers run: every finalizer
  -- leaves another finalizable object, so one runs at the end of every cycle, and with the
  -- eager collector cycles end inside calls that allocate. Armed rounds close the layer there.
  local function rounds(n, call, full, must_close)
    local current, armed
    local stop = perpetual_finalizers(function() if current and armed then current:close() end end)
    local closed_inside, done, kept = 0, 0, 0
    local ids, xs, ys, rs = {}, {}, {}, {}
    for i = 1, n do ids[i], xs[i], ys[i], rs[i] = i, i * 0.5, 0, 1 end
    for round = 1, 200 do
      local l = soageo.layer(n)
      l:set_many(ids, xs, ys, rs)
      shift_phase(round)
      current, armed = l, round % 4 > 0
      local ok, err = pcall(call, l)
      current = nil
      if ok then
        done = done + 1
        assert.are.equal(full, #l)
      else
        assert.is_truthy(err:find("layer is closed", 1, true) or err:find("layer closed during the sweep", 1, true), err)
        closed_inside = closed_inside + 1
        assert.has_error(function() return #l end)  -- closed, and stays so
        if closed_inside % 10 == 1 then
          -- and holds no block made after it closed: dropping it frees next to nothing
          collectgarbage()
          collectgarbage()
          local before = collectgarbage("count")
          l = nil
          collectgarbage()
          collectgarbage()
          if before - collectgarbage("count") > 16 then kept = kept + 1 end
        end
      end
    end
    stop()
    assert.are.equal(0, kept)
    assert.is_true(done > 0)
    -- Where the collector's cycles end depends on the Lua and on the heap around: inside a
    -- growing set they always do here; inside pairs() on Lua 5.4, and on 5.5 when run alone,
    -- but not in 5.5's whole suite. The checks above hold whenever they do.
    if must_close then assert.is_true(closed_inside > 0) end
  end

  it("raises a clear error or completes in pairs, and the closed layer keeps no new block", function()
    -- Its first call makes the sweep scratch and the pair buffer: blocks of about 3 MB, so
    -- that collection cycles often end inside them.
    rounds(40000, function(l) l:pairs() end, 40000, false)
  end)

  it("raises a clear error or completes in a growing set, and the closed layer keeps no new block", function()
    rounds(16, function(l) for i = 17, 3000 do l:set(i, i, i) end end, 3000, true)  -- grows 8 times
  end)
end)

describe("when a finalizer grows a layer while the layer grows", function()
  -- The finalizers add 100 new ids to the layer being grown, whenever they run (every cycle's
  -- end leaves another finalizable object); set, set_many and merge must each end with every
  -- entity of both, the blocks sized for what the layer holds then (before the fix: a heap
  -- overflow in the rehome, then a hang in the full id map).
  local N = 30000  -- blocks of a few MB: collection cycles end inside the growth
  local function rounds(grow, must_grow)
    local current, added = nil, 0
    local stop = perpetual_finalizers(function()
      if current then
        for _ = 1, 100 do
          added = added + 1
          current:set(1000000 + added, -1, -1)
        end
      end
    end)
    local inside = 0
    for round = 1, 60 do
      local l = soageo.layer(16)
      for i = 1, 16 do l:set(i, i, i) end
      shift_phase(round)
      local before = added
      current = l
      grow(l)
      current = nil
      inside = inside + (added > before and 1 or 0)
      assert.are.equal(N + (added - before), #l)
      for i = 1, N, 7 do
        local x, y = l:get(i)
        assert.are.same({ i, i }, { x, y })
      end
      for k = before + 1, added, 13 do assert.are.equal(-1, (l:get(1000000 + k))) end
    end
    stop()
    -- Finalizers grew layers inside the calls: always inside a growing set (eight growths);
    -- set_many and merge grow once, and in Lua 5.5's whole suite the collector's cycles may
    -- not end there. The checks above hold whenever they do.
    if must_grow then assert.is_true(inside > 0) end
  end

  local ids, xs, ys = {}, {}, {}
  for i = 17, N do ids[#ids + 1], xs[#xs + 1], ys[#ys + 1] = i, i, i end

  it("set keeps every entity", function()
    rounds(function(l) for i = 17, N do l:set(i, i, i) end end, true)
  end)

  it("set_many keeps every entity", function()
    rounds(function(l) l:set_many(ids, xs, ys) end)
  end)

  it("merge keeps every entity", function()
    local src = soageo.layer()
    src:set_many(ids, xs, ys)
    local snap = src:dump()
    rounds(function(l) l:merge(snap) end)
  end)
end)

describe("when a finalizer changes set_many's arrays while the layer grows", function()
  -- set_many reads its arrays before it grows the layer; the finalizers the growth runs make
  -- some elements bad. Before the fix, set_many went on with what the arrays held then: an
  -- id 7.5 became entity 0, and a y that was no number was written unread. Now each call either
  -- completes with the arrays as first read or raises a clear error, leaving the layer empty.
  local N = 30000
  it("completes with what it read or raises, and never writes an unchecked element", function()
    local ids, xs, ys, armed = {}, {}, {}, false
    local stop = perpetual_finalizers(function()
      if armed then xs[5], ids[7], ys[9] = 0 / 0, 7.5, "x" end
    end)
    local raised = 0
    -- At least 20 rounds, and on until the finalizers have acted inside a call: how often they
    -- do depends on where the collector's steps fall.
    for round = 1, 60 do
      if round > 20 and raised > 0 then break end
      for i = 1, N do ids[i], xs[i], ys[i] = i, i, i end
      shift_phase(round)
      local l = soageo.layer(16)
      armed = true
      local ok, err = pcall(l.set_many, l, ids, xs, ys)
      armed = false
      if ok then
        assert.are.equal(N, #l)
        assert.is_false(l:has(0))
        for _, i in ipairs({ 1, 5, 7, 9, N }) do
          local x, y = l:get(i)
          assert.are.same({ i, i }, { x, y })
        end
      else
        raised = raised + 1
        assert.is_truthy(tostring(err):find("xs%[5%] must be finite") or tostring(err):find("ids%[7%] must be an integer")
          or tostring(err):find("ys%[9%] must be finite"), tostring(err))
        assert.are.equal(0, #l)
      end
    end
    stop()
    -- The finalizers did act inside calls. Run alone, on Lua 5.4 and 5.5 they do in 1-3 rounds
    -- of 20; in Lua 5.5's whole suite under skynet HEAD, twice in CI, in none of 400 (the
    -- collector's cycles did not end inside set_many), while the checks above held.
    if _VERSION == "Lua 5.4" then assert.is_true(raised > 0) end
  end)
end)

describe("when a finalizer changes what a call has already read", function()
  -- Each call below reads an argument, then allocates (the index, a result table, scratch),
  -- and the finalizers that allocation runs change the argument or the layer. `call` makes the
  -- call with the finalizers armed (they act once, then disarm); `check` looks at what it gave,
  -- disarmed, and returns nil or what is wrong. Rounds go on until the finalizers have acted
  -- inside `want` calls: checks that allocate nothing while all goes well leave most of the
  -- collector's steps, hence its finalizers, to the calls. No check may fault, and the
  -- finalizers must have acted inside some call (else nothing was tested).
  local function rounds(want, on_gc, setup, call, check)
    local armed, inside = false, 0
    local stop = perpetual_finalizers(function()
      if armed then
        armed = false
        inside = inside + 1
        on_gc()
      end
    end, 2000)
    -- A step every kilobyte, each a long one: the collector's cycles end (and run finalizers)
    -- every few dozen calls even in a large heap, and a call's one allocation is often where.
    collectgarbage("incremental", 0, 1000, 10)
    pcall(collectgarbage, "param", "stepsize", 1024)
    pcall(collectgarbage, "param", "stepmul", 1000)
    local fault
    -- In the whole suite the heap is large and a cycle long: a call that allocates little (a
    -- result table of a few entries) ends one only every tens of thousands of calls.
    for round = 1, 400000 do
      setup(round)
      armed = true
      local ok, a, b, c = pcall(call)
      armed = false
      fault = fault or check(ok, a, b, c)
      if inside >= want then break end
    end
    stop()
    assert(fault == nil, fault)  -- what was wrong, in the failure
    assert.is_true(inside > 0)
  end

  it("a batch whose row turns NaN raises instead of searching a NaN shape", function()
    -- Before the fix the row was read again unchecked: a NaN miny made the index's plan
    -- overflow its row range and write past a stack array (a crash).
    local l = soageo.layer(4096)
    for i = 1, 3000 do l:set(i, (i * 37) % 400, (i * 91) % 400, 1) end
    l:index_mode("index")
    l:reindex()
    -- The second box holds every entity: its 6,000-entry result table is the allocation,
    -- large enough that the collector steps there (and, at a cycle's end, runs finalizers).
    local params = { 10, 10, 12, 50, -1, -1, 401, 401 }
    rounds(30, function() params[2] = 0 / 0 end, function() params[2] = 10 end,
      function() return l:in_box_batch(params) end,
      function(ok, out, n)
        if not ok then
          return not out:find("shape 1 changed during the call: must be finite numbers", 1, true) and out or nil
        end
        for i = 2, 2 * n, 2 do
          if not l:has(out[i]) then return "not an entity: " .. tostring(out[i]) end
        end
      end)
  end)

  it("stats counts a query once when a finalizer's query made it run again", function()
    -- The finalizer's query refills the hit buffers while the result table is made: the outer
    -- query runs again, and counted twice before the fix (found by a review helper).
    local l = soageo.layer(4096)
    for i = 1, 3000 do l:set(i, (i * 37) % 400, (i * 91) % 400, 1) end
    l:index_mode("index")
    l:reindex()
    local t, nested, before_indexed, before_nested = {}, 0, 0, 0
    for _, call in ipairs({
      function() return l:in_circle(200, 200, 150) end,
      function() return l:nearest(200, 200, 1000) end,
    }) do
      rounds(30, function() nested = nested + 1; l:in_circle(10, 10, 3) end,
        function() before_indexed, before_nested = l:stats(t).indexed, nested end,
        call,
        function(ok, out)
          if not ok then return out end
          local counted = l:stats(t).indexed - before_indexed
          local want = 1 + nested - before_nested
          if counted ~= want then return "counted " .. counted .. " queries for " .. want end
        end)
    end
  end)

  it("a query whose hit is removed meanwhile returns only ids inside the shape", function()
    -- A removal moves the last entity into the freed slot: before the fix, a query interrupted
    -- by one named that entity (far outside the circle) for its hit.
    local l = soageo.layer(256)
    rounds(30, function() l:remove(1) end,
      function()
        if l:has(1) then return end
        l:clear()
        for i = 1, 200 do l:set(i, i <= 100 and 0 or 1000, 0, 0) end
        l:index_mode("scan")
      end,
      function() return l:in_circle(0, 0, 1) end,
      function(ok, out, n)
        if not ok then return out end
        for i = 1, n do
          if out[i] > 100 then return "id " .. out[i] .. " is outside the circle" end
        end
      end)
  end)

  it("dump with ids checks them again after its allocations", function()
    -- A thousand ids: each call's blocks and snapshot are tens of kilobytes, enough that the
    -- collector steps inside the calls.
    local l = soageo.layer(1024)
    local ids = {}
    for i = 1, 1000 do l:set(i, i, i, 1); ids[i] = i end
    local all = l:dump(ids)
    assert.are.equal(1000, #soageo.load(all))
    -- Every allocation steps the collector, and the cycles' ends would keep falling on the
    -- same one of the call's four: a setup of varying size moves them.
    rounds(30, function() ids[1] = 7.5 end,
      function(round)
        ids[1] = 1
        local pad = string.rep("x", (round * 7919) % 32768)
        return pad
      end,
      function() return l:dump(ids) end,
      function(ok, s)
        if not ok then
          return not s:find("ids[1] must be an integer, got a float", 1, true) and s or nil
        end
        if s ~= all then return "not the snapshot of the ids as checked" end
      end)
  end)

  it("aoi:visible raises when a finalizer closes the aoi while its result table is made", function()
    -- Before the fix the list of a closed aoi came back empty ({}, 0) instead of an error. The
    -- watcher sees 399 entities: each call's table is large, so the collector's work (and the
    -- end of its cycles, where finalizers run) falls in the calls; setup and check allocate
    -- nothing while all goes well.
    local l = soageo.layer(512)
    for i = 1, 400 do l:set(i, i % 20, i // 20) end
    local a, closed = nil, true
    rounds(30, function() a:close(); closed = true end,
      function()
        if not closed then return end
        closed = false
        a = soageo.aoi(l)
        a:watch(1, 100)
        a:update()
      end,
      function() return a:visible(1) end,
      function(ok, out, n)
        if not ok then
          return not out:find("aoi is closed", 1, true) and out or nil
        end
        if n ~= 399 or #out ~= 399 then return "n = " .. tostring(n) .. " from an aoi closed meanwhile?" end
      end)
  end)

  it("contacts:stats reports the counters it read before a finalizer closed it", function()
    local l = soageo.layer(64)
    for i = 1, 40 do l:set(i, i, 0, 1) end
    local c, closed = nil, true
    rounds(30, function() c:close(); closed = true end,
      function()  -- allocates nothing while c is open: the collector's steps fall in the calls
        if not closed then return end
        closed = false
        c = soageo.contacts(l)
        c:update()
        c:update()
      end,
      function() return c:stats() end,
      function(ok, t)
        if not ok then return t end
        if t.full + t.incremental ~= 2 then
          return ("full %d + incremental %d: not the two updates made"):format(t.full, t.incremental)
        end
      end)
  end)

  it("aoi:update's full path sees one state of the layer when a finalizer moves it meanwhile", function()
    -- The join of 300 watchers writes some 9,000 events: the update grows its buffers, and a
    -- finalizer run by that moves half the entities 1,000 units away. Every list must then be
    -- what one of the two states gives (the update plans and tests from the positions it copied
    -- at its start); before the fix it planned from the live columns and tested the copy, and
    -- missed targets.
    local N, view = 300, 12
    local function place(l, shifted)
      for i = 1, N do l:set(i, (i * 37) % 100 + ((shifted and i % 2 == 0) and 1000 or 0), (i * 91) % 100) end
    end
    local function brute(shifted)
      local xs, ys = {}, {}
      for i = 1, N do xs[i], ys[i] = (i * 37) % 100 + ((shifted and i % 2 == 0) and 1000 or 0), (i * 91) % 100 end
      local lists = {}
      for w = 1, N do
        local out = {}
        for t = 1, N do
          local dx, dy = xs[t] - xs[w], ys[t] - ys[w]
          if t ~= w and dx * dx + dy * dy < view * view then out[#out + 1] = t end
        end
        lists[w] = table.concat(out, " ")
      end
      return lists
    end
    local before, after = brute(false), brute(true)
    local l = soageo.layer(N)
    local a
    rounds(30, function() place(l, true) end,
      function()
        place(l, false)
        if a then a:close() end
        a = soageo.aoi(l, { margin = 0 })
        for i = 1, N do a:watch(i, view) end
      end,
      function() return a:update() end,
      function(ok, err)
        if not ok then return err end
        local got = {}
        for w = 1, N do got[w] = table.concat((a:visible(w)), " ") end
        local function differs(lists)
          for w = 1, N do if got[w] ~= lists[w] then return w end end
        end
        local w = differs(before) and differs(after)
        if w then return ("watcher %d sees {%s}: the list of neither state"):format(w, got[w]) end
      end)
  end)

  it("cast_segment writes every id into out_ids even if a finalizer gives it a metatable", function()
    local l = soageo.layer(256)
    for i = 1, 100 do l:set(i, i, 0, 1) end
    l:index_mode("scan")
    local ids_out, calls = {}, 0
    local mt = { __newindex = function() calls = calls + 1 end }
    rounds(30, function() setmetatable(ids_out, mt); rawset(ids_out, 1, nil) end,
      function()
        setmetatable(ids_out, nil)
        for i = 1, 100 do ids_out[i] = 0 end
      end,
      function() return l:cast_segment(0, 0, 200, 0, ids_out) end,
      function(ok, out, _, n)
        if not ok then return out end
        if n ~= 100 then return "n = " .. n end
        for i = 1, n do
          if rawget(out, i) ~= i then return "out[" .. i .. "] = " .. tostring(rawget(out, i)) end
        end
        if calls > 0 then return "__newindex ran inside the call" end
      end)
  end)
end)
