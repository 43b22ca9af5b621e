-- A finalizer runs inside an allocation, so it may run inside a soageo call. A call holds the
-- objects it reads while it allocates (doc/design.md, "Finalizers"): a finalizer that calls a
-- method on one of them gets a clear error, close() on one waits for the call's end, and the
-- call answers as if no finalizer had run.
--
-- Deterministic: util.during makes the finalizer run at the call's first allocation, and
-- raises when it did not run there. Each test checks what it saw.
local soageo = require "soageo"
local util = require "spec_util"

local during = util.during

-- The error of f(...) without its position, or nil.
local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  return not ok and tostring(e):gsub("^[^\n]-:%d+: ", "", 1) or nil
end

local BUSY = "layer is busy: called from a finalizer during a call"

local function grid(n, first)
  local l = soageo.layer()
  for i = 1, n do l:set((first or 0) + i, (i % 20) * 3, (i // 20) * 3, 1) end
  return l
end

local function sorted(t, n)
  local s = table.move(t, 1, n, 1, {})
  table.sort(s)
  return s
end

describe("when a finalizer calls a method of a layer a query holds", function()
  it("raises the busy error inside the finalizer, and the query answers as without it", function()
    local layer = grid(200)
    local want, wn = layer:in_circle(10, 10, 8)
    local seen = {}
    local ok, out, n = during(function() return layer:in_circle(10, 10, 8) end, function()
      seen[1] = err_of(layer.set, layer, 999, 0, 0)
      seen[2] = err_of(layer.remove, layer, 1)
      seen[3] = err_of(layer.in_box, layer, 0, 0, 1, 1)
      seen[4] = err_of(function() return #layer end)
    end)
    assert.is_true(ok)
    for i = 1, 4 do assert.matches(BUSY, seen[i], 1, true) end
    assert.are.same(sorted(want, wn), sorted(out, n))
    assert.are.equal(200, #layer)
    assert.is_true(layer:has(1))
  end)

  it("closes the layer when the query returns, which still answers in full", function()
    local layer = grid(200)
    local want, wn = layer:touch_box(0, 0, 20, 20)
    local ok, out, n = during(function() return layer:touch_box(0, 0, 20, 20) end, function() layer:close() end)
    assert.is_true(ok)
    assert.are.same(sorted(want, wn), sorted(out, n))
    assert.matches("closed", tostring(layer), 1, true)
    assert.matches("layer is closed", err_of(layer.get, layer, 1), 1, true)
  end)

  it("lets the finalizer use another layer, whose own allocations nest", function()
    local layer, other = grid(200), grid(100)
    local got
    local ok = during(function() return layer:in_circle(0, 0, 30) end, function()
      local out, n = other:in_circle(0, 0, 30)  -- a new table: a window inside a window
      got = n == #out and n
    end)
    assert.is_true(ok)
    assert.are.equal(select(2, other:in_circle(0, 0, 30)), got)
  end)
end)

describe("when a finalizer runs while a layer grows", function()
  it("set, set_many, merge and move_many keep every entity, and the finalizer's calls raise", function()
    local ids, xs, snapshot = { 1000, 1001 }, { 1, 2 }, grid(2, 999):dump()
    local grows = {
      function(l) l:set(1000, 1, 1) end,
      function(l) l:set_many(ids, xs, xs) end,
      function(l) l:merge(snapshot) end,
    }
    for _, grow in ipairs(grows) do
      local layer = grid(64)  -- full: the next new id grows it
      local cap, seen = layer:capacity(), nil
      assert.is_true((during(function() grow(layer) end, function() seen = err_of(layer.set, layer, 5000, 0, 0) end)))
      assert.matches(BUSY, seen, 1, true)
      assert.is_true(layer:capacity() > cap and layer:has(1000) and layer:has(64) and not layer:has(5000))
    end
    local layer, seen = grid(10), nil
    ids, xs = { 1, 2, 3 }, { 7, 8, 9 }
    assert.is_true((during(function() layer:move_many(ids, xs, xs) end, function() seen = err_of(layer.clear, layer) end)))
    assert.matches(BUSY, seen, 1, true)
    local x, y = layer:get(2)
    assert.are.same({ 8, 8, 10 }, { x, y, #layer })
  end)

  it("set_many checks its arrays again when the finalizer changed them", function()
    local layer = grid(64)
    local ids, xs = {}, {}
    for i = 1, 65 do ids[i], xs[i] = i, i end  -- one new id
    local ok, e = during(function() layer:set_many(ids, xs, xs) end, function() xs[3] = 0 / 0 end)
    assert.is_false(ok)
    assert.matches("xs[3] must be finite", e, 1, true)
    assert.are.equal(64, #layer)
    layer, xs[3] = grid(64), 3
    ids[65] = 100  -- room is made for one new id, and the finalizer makes all 65 new
    ok, e = during(function() layer:set_many(ids, xs, xs) end, function() for i = 1, 65 do ids[i] = 1000 + i end end)
    assert.is_false(ok)
    assert.matches("ids changed during the call", e, 1, true)
    assert.are.same({ 64, false }, { #layer, layer:has(1001) })
  end)

  it("a call that raises after a finalizer closed its layer leaves it closed, and never busy", function()
    local layer = grid(64)
    local ok = during(function() layer:set_many({ 1000, 1.5 }, { 0, 0 }, { 0, 0 }) end, function() layer:close() end)
    assert.is_false(ok)  -- raised: ids[2] is checked again after the growth
    assert.matches("layer is closed", err_of(layer.get, layer, 1), 1, true)
  end)
end)

describe("when a finalizer calls an aoi or contacts object, or its layer, during its update", function()
  local function world(n)
    local layer = grid(n)
    local aoi = soageo.aoi(layer)
    for i = 1, n, 3 do aoi:watch(i, 6) end
    return layer, aoi
  end

  it("aoi:update raises in the finalizer, commits, and gives the events of an aoi without it", function()
    local layer, aoi = world(300)  -- the first update outgrows the aoi's first blocks
    local _, ref = world(300)
    local seen, enter_t, leave_t = {}, {}, {}
    local ok, enter, _, ne = during(function() return aoi:update(enter_t, leave_t) end, function()
      seen[1] = err_of(aoi.watch, aoi, 2, 5)
      seen[2] = err_of(layer.move, layer, 2, 50, 50)
      seen[3] = err_of(aoi.visible, aoi, 1)
    end)
    assert.is_true(ok)
    assert.matches("aoi is busy: called from a finalizer during a call", seen[1], 1, true)
    assert.matches(BUSY, seen[2], 1, true)
    assert.matches("aoi is busy", seen[3], 1, true)
    local want, _, wn = ref:update()
    assert.are.same(want, enter)
    assert.are.equal(wn, ne)
    assert.are.same({ ref:visible(1) }, { aoi:visible(1) })
  end)

  it("aoi:update and contacts:update hold the layer while they make the tables not given", function()
    -- The first allocation of an update called without tables makes them: the layer is held
    -- already, so the finalizer's change raises and the events are those of a layer without it.
    local layer, aoi = world(300)
    local _, ref = world(300)
    local seen = {}
    local ok, enter, _, ne = during(function() return aoi:update() end, function()
      seen[1] = err_of(layer.set, layer, 5000, 3, 3)
    end)
    assert.is_true(ok)
    assert.matches(BUSY, seen[1], 1, true)
    local want, _, wn = ref:update()
    assert.are.same(want, enter)
    assert.are.equal(wn, ne)
    local c = soageo.contacts(layer)
    local began, _, nb
    ok, began, _, nb = during(function() return c:update() end, function()
      seen[2] = err_of(layer.set, layer, 5001, 3, 3, 1)
    end)
    assert.is_true(ok)
    assert.matches(BUSY, seen[2], 1, true)
    assert.is_false(layer:has(5000) or layer:has(5001))
    local _, np = layer:pairs()
    assert.are.equal(np, nb)
    assert.are.equal(2 * np, #began)
  end)

  it("aoi:watchers_of and visible hold the aoi while they make their tables; close waits", function()
    local layer, aoi = world(300)
    aoi:update()
    local want = { aoi:watchers_of(4) }
    local seen
    local ok, out, n = during(function() return aoi:watchers_of(4) end, function()
      seen = err_of(aoi.unwatch, aoi, 1)
      aoi:close()
    end)
    assert.is_true(ok)
    assert.matches("aoi is busy", seen, 1, true)
    assert.are.same(want, { out, n })
    assert.matches("aoi is closed", err_of(aoi.visible, aoi, 1), 1, true)
    assert.is_true(#layer == 300)
  end)

  it("contacts:update raises in the finalizer and its events replay onto layer:pairs()", function()
    local layer = grid(300)
    local c = soageo.contacts(layer)
    local seen, began_t, ended_t = {}, {}, {}
    local ok, began, _, nb = during(function() return c:update(began_t, ended_t) end, function()
      seen[1] = err_of(c.touching, c, 1)
      seen[2] = err_of(layer.set, layer, 1, 500, 500)
    end)
    assert.is_true(ok)
    assert.matches("contacts is busy: called from a finalizer during a call", seen[1], 1, true)
    assert.matches(BUSY, seen[2], 1, true)
    local _, np = layer:pairs()
    assert.are.equal(np, nb)
    assert.are.equal(2 * np, #began)
  end)

  it("pairs_between holds both layers", function()
    local a, b = grid(100), grid(100, 1000)
    local want = select(2, soageo.pairs_between(a, b))
    local seen = {}
    local ok, _, n = during(function() return soageo.pairs_between(a, b) end, function()
      seen[1], seen[2] = err_of(a.pairs, a), err_of(b.remove, b, 1001)
    end)
    assert.is_true(ok)
    assert.matches(BUSY, seen[1], 1, true)
    assert.matches(BUSY, seen[2], 1, true)
    assert.are.equal(want, n)
  end)
end)

describe("when the manual lists the errors", function()
  it("lists the busy errors and the changed arrays", function()
    local manual = util.read("doc/manual.md")
    for _, e in ipairs({ BUSY, "aoi is busy: called from a finalizer during a call",
      "contacts is busy: called from a finalizer during a call", "ids changed during the call" }) do
      assert.is_truthy(manual:find(e, 1, true))
    end
  end)
end)
