-- layer:dump(ids), layer:merge(snapshot [, set [, clear]]) and layer:remove_many(ids): the
-- primitives a region uses to mirror its border strip into a neighbour as ghosts.
local soageo = require "soageo"
local rng = require "rng"
local forge = require "snapshot_forge"
local util = require "spec_util"
local method, rows, by_id = util.method, util.rows, util.by_id

local function sample()
  local l = soageo.layer()
  for i = 1, 60 do l:set(i * 11, i * 0.5, -i, i % 4, 1 + i % 5) end
  return l
end

describe("a partial dump", function()
  describe("when given a list of ids", function()
    it("returns a snapshot of exactly those entities, in list order", function()
      local l = sample()
      local ids = { 330, 11, 605, 44 }
      local copy = soageo.load(l:dump(ids))
      local want = {}
      for i, id in ipairs(ids) do want[i] = { id, l:get(id) } end
      assert.are.same(want, rows(copy))
    end)

    it("returns an empty snapshot for an empty list, and the whole layer without a list", function()
      local l = sample()
      assert.are.equal(0, #soageo.load(l:dump({})))
      assert.are.equal(l:dump(), l:dump(nil))
    end)

    it("equals the whole dump when the list is the layer's ids in slot order", function()
      local l = sample()
      for i = 1, 20 do l:remove(i * 33) end
      local ids = {}
      for id in l:each() do ids[#ids + 1] = id end
      assert.are.equal(l:dump(), l:dump(ids))
    end)

    it("dumps the result of a query (a border strip) in one call", function()
      local g = rng.new(16)
      local l = soageo.layer()
      for i = 1, 5000 do l:set(i, g:uniform(0, 1000), g:uniform(0, 1000), g:uniform(0, 3), 1 << g:int(0, 3)) end
      local strip, n = l:in_box(900, 0, 1000, 1000)
      local ghosts = soageo.load(l:dump(strip))
      assert.are.equal(n, #ghosts)
      for id, x, y, r, mask in ghosts:each() do assert.are.same({ l:get(id) }, { x, y, r, mask }) end
    end)
  end)

  describe("when the list is bad", function()
    local l = sample()
    local before = l:dump()
    local function err(...) return select(2, pcall(method("dump"), l, ...)) end

    it("names the index of an unknown id", function()
      assert.matches("bad argument #1 to 'dump' %(ids%[3%]: no entity with id 12%)", err({ 11, 22, 12 }))
    end)

    it("names both indexes of a duplicate", function()
      assert.matches("bad argument #1 to 'dump' %(ids%[4%] repeats ids%[2%]%)", err({ 11, 22, 33, 22 }))
      assert.matches("ids%[2%] repeats ids%[1%]", err({ 55, 55, 55 }))
    end)

    it("names the index of an element that is not an integer", function()
      assert.matches("bad argument #1 to 'dump' %(ids%[2%] must be an integer, got a float%)", err({ 11, 2.5 }))
      assert.matches("ids%[1%] must be an integer, got string", err({ "11" }))
      assert.matches("bad argument #1 to 'dump' %(table expected, got number%)", err(11))
    end)

    it("leaves the layer unchanged", function()
      assert.are.equal(before, l:dump())
    end)
  end)
end)

describe("merge", function()
  describe("when the snapshot is good", function()
    it("inserts new ids, updates known ones, and returns how many were new", function()
      local l = sample()
      local src = soageo.layer()
      src:set(11, 100, 100, 2, 8)       -- known: updated in place
      src:set(7, -5, 5, 0.5, 16)        -- new
      src:set(8, 3, 3, 0, 0)            -- new
      local want = by_id(l)
      want[11], want[7], want[8] = { 100, 100, 2, 8 }, { -5, 5, 0.5, 16 }, { 3, 3, 0, 0 }
      assert.are.equal(2, l:merge(src:dump()))
      assert.are.same(want, by_id(l))
      assert.are.equal(62, #l)
    end)

    it("sets and clears mask bits of every merged entity (ghost marks)", function()
      local l = soageo.layer()
      l:set(1, 0, 0, 0, 0xff)
      local src = soageo.layer()
      src:set(1, 1, 1, 0, 0x40000003)
      src:set(2, 2, 2, 0, 0x40000001)
      assert.are.equal(1, l:merge(src:dump(), 0x80000000, 0x40000000))
      assert.are.equal(0x80000003, select(4, l:get(1)))
      assert.are.equal(0x80000001, select(4, l:get(2)))
    end)

    it("grows the layer as needed and equals a model after random merges", function()
      local g = rng.new(161)
      local l, model = soageo.layer(), {}
      for round = 1, 30 do
        local src = soageo.layer()
        for _ = 1, g:int(0, 400) do
          local id = g:int(1, 3000)
          src:set(id, g:uniform(-1e4, 1e4), g:uniform(-1e4, 1e4), g:uniform(0, 10), g:int(0, 0xffffffff))
        end
        local fresh = 0
        for id, x, y, r, mask in src:each() do
          if not model[id] then fresh = fresh + 1 end
          model[id] = { x, y, r, mask }
        end
        assert.are.equal(fresh, l:merge(src:dump()))
        if round % 3 == 0 then
          local gone = {}
          for _ = 1, 50 do gone[#gone + 1] = g:int(1, 3000) end
          for _, id in ipairs(gone) do model[id] = nil end
          l:remove_many(gone)
        end
      end
      assert.are.same(model, by_id(l))
    end)

    it("merging a whole dump into an empty layer gives what load gives", function()
      local l = sample()
      local m = soageo.layer()
      m:merge(l:dump())
      assert.are.same(rows(soageo.load(l:dump())), rows(m))
    end)
  end)

  describe("when the snapshot is bad", function()
    local l = sample()
    local good = soageo.layer()
    for i = 1, 10 do good:set(1000 + i, i, i, 1, 1) end
    local s = good:dump()

    local function rejects(snapshot, pattern, ...)
      local before = l:dump()
      local ok, err = pcall(method("merge"), l, snapshot, ...)
      assert.is_false(ok)
      if pattern then assert.matches(pattern, err) end
      assert.are.equal(before, l:dump())
    end

    it("rejects every truncation and every flipped byte, leaving the layer unchanged", function()
      for len = 0, #s - 1 do rejects(s:sub(1, len), "bad argument #1 to 'merge'") end
      for i = 1, #s do rejects(s:sub(1, i - 1) .. string.char(s:byte(i) ~ 0x04) .. s:sub(i + 1)) end
    end)

    it("rejects bad content behind a valid checksum, even after good entities", function()
      local dup = {}
      for i = 1, 9 do dup[i] = { 11 * i, i, i, 0, 1 } end  -- known ids: would be updates
      dup[10] = { 33, 0, 0, 0, 1 }
      rejects(forge.snapshot(dup), "snapshot holds a duplicate id")
      rejects(forge.snapshot({ { 5000, 1, 1, 0, 1 }, { 5001, 0 / 0, 1, 0, 1 } }), "snapshot holds a non%-finite position")
      rejects(forge.snapshot({ { 11, 1, 1, 0, 1 }, { 5001, 1, math.huge, 0, 1 } }), "non%-finite position")
      rejects(forge.snapshot({ { 11, 1, 1, 0, 1 }, { 5001, 1, 1, -1, 1 } }), "snapshot holds a bad radius")
      rejects(forge.snapshot({ { 11, 1, 1, 0 / 0, 1 } }), "bad radius")
    end)

    it("rejects bad mask arguments and non-strings", function()
      rejects(s, "bad argument #2 to 'merge' %(mask must be an integer in %[0, 0xffffffff%]%)", -1)
      rejects(s, "bad argument #3 to 'merge'", 0, 2 ^ 32)
      rejects(s, "bad argument #2 to 'merge'", 1.5)
      rejects({}, "bad argument #1 to 'merge' %(string expected, got table%)")
      rejects(5, "bad argument #1 to 'merge' %(string expected, got number%)")
      rejects(nil, "bad argument #1 to 'merge'")
    end)

    it("accepts a forged snapshot with good content", function()
      local m = soageo.layer()
      assert.are.equal(2, m:merge(forge.snapshot({ { -7, 1, 2, 3, 4 }, { math.maxinteger, -1, -2, 0, 0 } })))
      assert.are.same({ 1, 2, 3, 4 }, { m:get(-7) })
    end)
  end)
end)

describe("remove_many", function()
  it("removes the listed ids and returns how many were there", function()
    local l = sample()
    assert.are.equal(3, l:remove_many({ 11, 22, 999, 22, 33 }))
    assert.are.equal(57, #l)
    assert.is_false(l:has(11) or l:has(22) or l:has(33))
    assert.are.equal(0, l:remove_many({}))
  end)

  it("checks every element first: a bad one anywhere removes nothing", function()
    local l = sample()
    local before = l:dump()
    local function err(...) return select(2, pcall(method("remove_many"), l, ...)) end
    assert.matches("bad argument #1 to 'remove_many' %(ids%[3%] must be an integer, got a float%)", err({ 11, 22, 1.5 }))
    assert.matches("ids%[2%] must be an integer, got boolean", err({ 11, false, 33 }))
    assert.matches("bad argument #1 to 'remove_many' %(table expected, got no value%)", err())
    assert.are.equal(before, l:dump())
  end)

  it("keeps queries right after swap-removes", function()
    local g = rng.new(1616)
    local l = soageo.layer()
    for i = 1, 2000 do l:set(i, g:uniform(0, 100), g:uniform(0, 100)) end
    local gone = {}
    for i = 1, 2000, 3 do gone[#gone + 1] = i end
    assert.are.equal(#gone, l:remove_many(gone))
    local out, n = l:in_box(0, 0, 100, 100)
    assert.are.equal(2000 - #gone, n)
    for i = 1, n do assert.are_not.equal(1, out[i] % 3) end
  end)
end)
