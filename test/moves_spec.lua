-- layer:move_many, and the id map under scattered 64-bit ids and churn, against a Lua table.
local soageo = require "soageo"
local rng = require "rng"
local f32 = require("float32").f32
local quick = require "quick"
local util = require "spec_util"

-- Everything observable in a layer, slot order included (moves must not reorder anything).
local function snapshot(layer) return util.fingerprint(layer) end

-- An id spread over all 64 bits (both signs) from the seeded generator.
local function scattered(g)
  return (g:next() << 33) ~ (g:next() << 2) ~ g:next()
end

describe("layer:move_many", function()
  local function layer_of(n)
    local l = soageo.layer()
    for i = 1, n do l:set(i * 1000003, i, -i, i % 5, 1 + i % 7) end
    return l
  end

  describe("when every element is good", function()
    it("moves each id and keeps radius, mask and slot order", function()
      local l = layer_of(50)
      local ids, xs, ys = {}, {}, {}
      for i = 50, 1, -2 do
        ids[#ids + 1], xs[#xs + 1], ys[#ys + 1] = i * 1000003, i + 0.1, i * 2 - 0.3
      end
      local order_before = {}
      for id in l:each() do order_before[#order_before + 1] = id end
      l:move_many(ids, xs, ys)
      local order_after = {}
      for id in l:each() do order_after[#order_after + 1] = id end
      assert.are.same(order_before, order_after)
      for i = 1, 50 do
        local x, y, r, mask = l:get(i * 1000003)
        if i % 2 == 0 then
          assert.are.same({ f32(i + 0.1), f32(i * 2 - 0.3) }, { x, y })
        else
          assert.are.same({ i + 0.0, -i + 0.0 }, { x, y })
        end
        assert.are.same({ i % 5 + 0.0, 1 + i % 7 }, { r, mask })
      end
    end)

    it("equals layer:move called in order, repeated ids included (the last move wins)", function()
      local g = rng.new(7)
      local a, b = layer_of(300), layer_of(300)
      local ids, xs, ys = {}, {}, {}
      for k = 1, 2000 do  -- longer than the capacity (possible only with repeated ids)
        ids[k], xs[k], ys[k] = g:int(1, 300) * 1000003, g:uniform(-1e6, 1e6), g:uniform(-1e6, 1e6)
        b:move(ids[k], xs[k], ys[k])
      end
      assert.is_true(#ids > a:capacity())
      a:move_many(ids, xs, ys)
      assert.are.equal(snapshot(b), snapshot(a))
    end)

    -- A batch of 16,384 moves or more in a map of 2^19 entries or more (a layer of 131,073
    -- entities or more) is looked up in the map's order: the moves of one id must still apply
    -- in the caller's order, and the first bad element must still be the error.
    describe("when the batch is long and the layer large", function()
      local n, m = 150000, 40000
      local function two_layers()
        local g = rng.new(23)
        local ids = {}
        local a, b = soageo.layer(), soageo.layer()
        for i = 1, n do
          ids[i] = scattered(g)
          a:set(ids[i], i, -i)
          b:set(ids[i], i, -i)
        end
        local mids, xs, ys = {}, {}, {}
        for k = 1, m do
          mids[k] = k % 7 == 0 and mids[k - 5] or ids[g:int(1, n)]  -- some ids twice or more
          xs[k], ys[k] = g:uniform(-1e6, 1e6), g:uniform(-1e6, 1e6)
        end
        return a, b, mids, xs, ys
      end

      it("equals layer:move called in order, repeated ids included", function()
        local a, b, mids, xs, ys = two_layers()
        for k = 1, m do b:move(mids[k], xs[k], ys[k]) end
        a:move_many(mids, xs, ys)
        assert.is_true(snapshot(b) == snapshot(a), "move_many and a loop of move disagree")
      end)

      it("reports the first bad element and changes nothing", function()
        local a, _, mids, xs, ys = two_layers()
        local dump = a:dump()
        local absent = mids[30000] + 1
        while a:has(absent) do absent = absent + 1 end
        mids[30000], xs[35000] = absent, 0 / 0
        assert.has_error(function() a:move_many(mids, xs, ys) end,
          "bad argument #1 to 'move_many' (ids[30000]: no entity with id " .. absent .. ")")
        xs[20000] = 1e39
        assert.has_error(function() a:move_many(mids, xs, ys) end,
          "bad argument #2 to 'move_many' (xs[20000] must be finite)")
        assert.is_true(dump == a:dump(), "the layer changed")
      end)
    end)

    it("accepts empty arrays and returns nothing", function()
      local l = layer_of(3)
      local before = snapshot(l)
      assert.are.equal(0, select("#", l:move_many({}, {}, {})))
      assert.are.equal(before, snapshot(l))
    end)

    it("takes integers and floats for x and y, and the float32 extremes", function()
      local l = layer_of(2)
      local big = 3.4028234663852886e38  -- the largest finite float32
      l:move_many({ 1000003, 2000006 }, { 5, -big }, { big, 0.5 })
      local x1, y1 = l:get(1000003)
      local x2, y2 = l:get(2000006)
      assert.are.same({ 5.0, big, -big, 0.5 }, { x1, y1, x2, y2 })
    end)
  end)

  describe("when an element is bad", function()
    local nan, inf = 0 / 0, math.huge
    local id1, id2, id3 = 1000003, 2000006, 3000009
    local cases = {
      { { 5, {}, {} }, "bad argument #1 to 'move_many' (table expected, got number)" },
      { { {}, "xs", {} }, "bad argument #2 to 'move_many' (table expected, got string)" },
      { { {}, {} }, "bad argument #3 to 'move_many' (table expected, got nil)" },
      { { { id1, id2 }, { 1 }, { 1, 2 } }, "bad argument #2 to 'move_many' (xs must have as many elements as ids)" },
      { { { id1 }, { 1 }, { 1, 2 } }, "bad argument #3 to 'move_many' (ys must have as many elements as ids)" },
      { { { id1, 2.5 }, { 1, 2 }, { 1, 2 } }, "bad argument #1 to 'move_many' (ids[2] must be an integer)" },
      { { { id1, 2.0 }, { 1, 2 }, { 1, 2 } }, "bad argument #1 to 'move_many' (ids[2] must be an integer)" },
      { { { id1, "7" }, { 1, 2 }, { 1, 2 } }, "bad argument #1 to 'move_many' (ids[2] must be an integer)" },
      { { { id1, id2, 999 }, { 1, 2, 3 }, { 1, 2, 3 } }, "bad argument #1 to 'move_many' (ids[3]: no entity with id 999)" },
      { { { id1, id2 }, { 1, nan }, { 1, 2 } }, "bad argument #2 to 'move_many' (xs[2] must be finite)" },
      { { { id1, id2 }, { 1, 2 }, { 1, -inf } }, "bad argument #3 to 'move_many' (ys[2] must be finite)" },
      { { { id1, id2 }, { 1, 1e39 }, { 1, 2 } }, "bad argument #2 to 'move_many' (xs[2] must be finite)" },
      { { { id1, id2 }, { 1, "2" }, { 1, 2 } }, "bad argument #2 to 'move_many' (xs[2] must be a number)" },
      { { { id1, id2 }, { 1, 2 }, { 1, true } }, "bad argument #3 to 'move_many' (ys[2] must be a number)" },
      -- the first bad element is reported, whatever comes after it
      { { { id1, id2, 999, 1.5 }, { 1, nan, 3, 4 }, { 1, 2, 3, 4 } }, "bad argument #2 to 'move_many' (xs[2] must be finite)" },
      { { { id1, 999, id3 }, { 1, nan, 3 }, { 1, 2, 3 } }, "bad argument #1 to 'move_many' (ids[2]: no entity with id 999)" },
    }
    for i, c in ipairs(cases) do
      it("raises a clear error and leaves the layer unchanged (case " .. i .. ")", function()
        local l = layer_of(3)
        local before = snapshot(l)
        local dump = l:dump()
        assert.has_error(function() l:move_many(table.unpack(c[1], 1, 3)) end, c[2])
        assert.are.equal(before, snapshot(l))
        assert.are.equal(dump, l:dump())
      end)
    end

    it("changes nothing when only the last of 100,000 moves is bad", function()
      local n = quick(100000, 5000)
      local l = soageo.layer(n)
      local ids, xs, ys = {}, {}, {}
      local g = rng.new(11)
      for i = 1, n do
        ids[i] = scattered(g)
        l:set(ids[i], i, i)
      end
      for i = 1, n do xs[i], ys[i] = -i, -i end
      local dump = l:dump()
      local last = ys[n]
      ys[n] = 0 / 0
      assert.has_error(function() l:move_many(ids, xs, ys) end,
        "bad argument #3 to 'move_many' (ys[" .. n .. "] must be finite)")
      assert.are.equal(dump, l:dump())
      ids[n], ys[n] = ids[n] + 1, last  -- an unknown id at the end
      if l:has(ids[n]) then ids[n] = ids[n] + 1 end
      assert.has_error(function() l:move_many(ids, xs, ys) end,
        "bad argument #1 to 'move_many' (ids[" .. n .. "]: no entity with id " .. ids[n] .. ")")
      assert.are.equal(dump, l:dump())
    end)

    it("rejects a closed layer and a non-layer", function()
      local l = layer_of(1)
      l:close()
      assert.has_error(function() l:move_many({}, {}, {}) end, "calling 'move_many' on bad self (layer is closed)")
      local move_many = layer_of(1).move_many
      assert.has_error(function() move_many({}, {}, {}, {}) end)
      assert.has_error(function() move_many(io.stdout, {}, {}, {}) end)
    end)
  end)
end)

describe("the id map", function()
  it("finds ids scattered over 64 bits and the int64 extremes through set, move, remove and reinsertion", function()
    local g = rng.new(2024)
    local l = soageo.layer()
    local ref = {}  -- id -> { x, y }
    local live = {}  -- ids in ref, for picking
    local special = { math.mininteger, math.maxinteger, 0, -1, 1, math.mininteger + 1, math.maxinteger - 1 }
    local function add(id, x, y)
      if not ref[id] then live[#live + 1] = id end
      ref[id] = { f32(x), f32(y) }
      l:set(id, x, y)
    end
    local function drop(k)
      local id = live[k]
      live[k] = live[#live]
      live[#live] = nil
      ref[id] = nil
      assert.is_true(l:remove(id))
    end
    local function check()  -- plain comparisons: busted's deep compare is too slow here
      assert.are.equal(#live, #l)
      local bad = 0
      for id, xy in pairs(ref) do
        local x, y = l:get(id)
        if x ~= xy[1] or y ~= xy[2] then bad = bad + 1 end
      end
      local seen = 0
      for id, x, y in l:each() do
        seen = seen + 1
        local xy = ref[id]
        if not xy or x ~= xy[1] or y ~= xy[2] then bad = bad + 1 end
      end
      assert.are.equal(0, bad)
      assert.are.equal(#live, seen)
    end
    local steps = quick(60000, 6000)
    for _, id in ipairs(special) do add(id, 1, 2) end
    for step = 1, steps do
      local op = g:int(1, 10)
      if op <= 5 or #live < 10 then
        add(scattered(g), g:uniform(-1e4, 1e4), g:uniform(-1e4, 1e4))
      elseif op <= 7 then
        drop(g:int(1, #live))
      elseif op == 8 then  -- reinsert one of the extremes (they are removed too, above)
        local id = special[g:int(1, #special)]
        add(id, step, -step)
      elseif op == 9 then
        local id = live[g:int(1, #live)]
        local x, y = g:uniform(-1e4, 1e4), g:uniform(-1e4, 1e4)
        l:move(id, x, y)
        ref[id] = { f32(x), f32(y) }
      else
        local ids, xs, ys = {}, {}, {}
        for k = 1, g:int(1, 40) do
          ids[k], xs[k], ys[k] = live[g:int(1, #live)], g:uniform(-1e4, 1e4), g:uniform(-1e4, 1e4)
        end
        l:move_many(ids, xs, ys)
        for k = 1, #ids do ref[ids[k]] = { f32(xs[k]), f32(ys[k]) } end
      end
      -- absent ids stay absent (a near miss of a live id, and a fresh random one)
      local probe = scattered(g)
      if (ref[probe] ~= nil) ~= l:has(probe) then assert.are.equal(ref[probe] ~= nil, l:has(probe)) end
      if step % 5000 == 0 then check() end
    end
    check()
    -- remove everything, in random order, then the map is empty and reusable
    while #live > 0 do drop(g:int(1, #live)) end
    check()
    for _, id in ipairs(special) do assert.is_false(l:has(id)) end
    for _, id in ipairs(special) do add(id, 3, 4) end
    check()
  end)

  it("keeps working through growth with ids that collide in their low bits", function()
    local l = soageo.layer()
    local n = quick(40000, 4000)
    for i = 1, n do l:set(i << 40, i, 0) end  -- low 40 bits all zero
    for i = 1, n, 2 do assert.is_true(l:remove(i << 40)) end
    for i = 1, n do
      assert.are.equal(i % 2 == 0, l:has(i << 40))
      if i % 2 == 0 then assert.are.equal(i + 0.0, (l:get(i << 40))) end
    end
    assert.are.equal(n // 2, #l)
  end)
end)
