local soageo = require "soageo"
local rng = require "rng"
local f32 = require("float32").f32
local quick = require "quick"
local util = require "spec_util"

-- A checksum of everything observable in a layer, to prove a rejected call changed nothing.
local function checksum(layer) return util.fingerprint(layer, true) end

describe("soageo.layer", function()
  describe("when entities are set", function()
    it("returns them from get, rounded to float32", function()
      local l = soageo.layer()
      l:set(7, 0.1, -2.5, 3, 6)
      local x, y, r, mask = l:get(7)
      assert.are.equal(f32(0.1), x)
      assert.are.equal(-2.5, y)
      assert.are.equal(3.0, r)
      assert.are.equal(6, mask)
      assert.are.equal(1, #l)
    end)

    it("uses radius 0 and mask 1 by default", function()
      local l = soageo.layer()
      l:set(1, 1, 2)
      assert.are.same({ 1.0, 2.0, 0.0, 1 }, { l:get(1) })
    end)

    it("updates an existing id in place", function()
      local l = soageo.layer()
      l:set(1, 1, 2)
      l:set(1, 3, 4, 5, 2)
      assert.are.equal(1, #l)
      assert.are.same({ 3.0, 4.0, 5.0, 2 }, { l:get(1) })
    end)

    it("accepts any Lua integer as an id", function()
      local l = soageo.layer()
      for _, id in ipairs({ math.mininteger, -1, 0, math.maxinteger }) do l:set(id, 1, 1) end
      assert.are.equal(4, #l)
      assert.are.equal(1.0, (l:get(math.mininteger)))
      assert.is_nil(l:get(12345))
    end)

    it("grows past its initial capacity", function()
      local l = soageo.layer(1)
      for i = 1, 1000 do l:set(i, i, -i) end
      assert.are.equal(1000, #l)
      for i = 1, 1000 do assert.are.equal(i + 0.0, (l:get(i))) end
      assert.is_true(l:capacity() >= 1000)
    end)
  end)

  describe("when moved, removed and cleared", function()
    it("moves known ids and rejects unknown ones", function()
      local l = soageo.layer()
      l:set(1, 0, 0, 2, 4)
      l:move(1, 5, 6)
      assert.are.same({ 5.0, 6.0, 2.0, 4 }, { l:get(1) })
      assert.has_error(function() l:move(2, 0, 0) end, "bad argument #1 to 'move' (no entity with this id)")
    end)

    it("returns true or false from remove", function()
      local l = soageo.layer()
      l:set(1, 0, 0)
      l:set(2, 1, 1)
      assert.is_true(l:remove(1))
      assert.is_false(l:remove(1))
      assert.are.equal(1, #l)
      assert.are.same({ 1.0, 1.0, 0.0, 1 }, { l:get(2) })
    end)

    it("empties on clear and stays usable", function()
      local l = soageo.layer()
      for i = 1, 50 do l:set(i, i, i) end
      l:clear()
      assert.are.equal(0, #l)
      assert.is_nil(l:get(3))
      l:set(3, 1, 1)
      assert.are.equal(1, #l)
    end)
  end)

  describe("when iterated", function()
    it("returns every entity once with its fields", function()
      local l = soageo.layer()
      for i = 1, 100 do l:set(i * 3, i, -i, i % 7, i % 5 + 1) end
      local seen = 0
      for id, x, y, r, mask in l:each() do
        seen = seen + 1
        local i = id // 3
        assert.are.same({ i + 0.0, -i + 0.0, (i % 7) + 0.0, i % 5 + 1 }, { x, y, r, mask })
      end
      assert.are.equal(100, seen)
    end)

    it("gives every entity to each of two loops run in step, and to nested loops", function()
      local l = soageo.layer()
      for i = 1, 50 do l:set(i * 7, i, i) end
      local all = {}
      for id in l:each() do all[#all + 1] = id end
      assert.are.equal(50, #all)
      -- two iterations advanced in turn, one 10 steps ahead: each step of one moves the
      -- other's hint away
      local fa, sa, ca = l:each()
      local fb, sb, cb = l:each()
      local a, b = {}, {}
      for _ = 1, 10 do
        ca = fa(sa, ca)
        a[#a + 1] = ca
      end
      repeat
        ca = ca ~= nil and fa(sa, ca) or nil
        if ca then a[#a + 1] = ca end
        cb = fb(sb, cb)
        if cb then b[#b + 1] = cb end
      until ca == nil and cb == nil
      assert.are.same(all, a)
      assert.are.same(all, b)
      local pairs_seen = 0
      for _ in l:each() do
        for _ in l:each() do pairs_seen = pairs_seen + 1 end
      end
      assert.are.equal(50 * 50, pairs_seen)
    end)

    it("keeps going when entities move, and raises when the current one is removed", function()
      local l = soageo.layer()
      for i = 1, 20 do l:set(i, i, i) end
      local seen = 0
      for id, x in l:each() do
        seen = seen + 1
        l:move(id, x + 1, 0)
      end
      assert.are.equal(20, seen)
      for i = 1, 20 do
        local x, y = l:get(i)
        assert.are.same({ i + 1.0, 0.0 }, { x, y })
      end
      l:set(100, 0, 0)
      -- the entity each() just returned swapped away by a remove: moves find each id anew
      for id in l:each() do
        if id == 7 then
          l:remove(7)
          assert.has_error(function() l:move(7, 0, 0) end, "bad argument #1 to 'move' (no entity with this id)")
          l:move(100, -5, -5)  -- the id now in 7's slot
          break
        end
      end
      local x100, y100 = l:get(100)
      assert.are.same({ -5.0, -5.0 }, { x100, y100 })
      l:set(7, 8, 0)
      -- the current entity removed: another takes its slot, and the next step says so
      assert.has_error(function()
        for id in l:each() do
          if id == 3 then l:remove(3) end
        end
      end, "layer changed during iteration (id 3 removed)")
      -- the last entity removed while it is the current one: its slot is past the end
      local last
      for id in l:each() do last = id end
      assert.has_error(function()
        for id in l:each() do
          if id == last then l:remove(id) end
        end
      end, ("layer changed during iteration (id %d removed)"):format(last))
    end)
  end)

  describe("when its ids change while each() iterates", function()
    local CHANGED = "layer changed during iteration (ids added or removed)"
    local function layer_of(n)
      local l = soageo.layer()
      for i = 1, n do l:set(i, i, 0) end
      return l
    end
    -- Runs `body(l, id)` at every step of a loop over a layer of 5 and returns the error it
    -- raised (nil when the loop ended) and how many steps ran. A loop past 100 steps stops
    -- there: without the check, one that adds an entity per step runs until memory runs out.
    local function iterate(body)
      local l = layer_of(5)
      local steps = 0
      local ok, err = pcall(function()
        for id in l:each() do
          steps = steps + 1
          if steps > 100 then error("the loop did not end", 0) end
          body(l, id)
        end
      end)
      return not ok and tostring(err):gsub("^[^\n]-:%d+: ", "", 1) or nil, steps, l
    end

    it("raises at the next step when every step adds an entity (instead of never ending)", function()
      local err, steps, l = iterate(function(l, id) l:set(id + 1000, 0, 0) end)
      assert.are.equal(CHANGED, err)
      assert.are.equal(1, steps)
      assert.are.equal(6, #l)
    end)

    it("raises for each way of adding or removing ids", function()
      local snapshot = layer_of(0)
      snapshot:set(77, 1, 1)
      local dump = snapshot:dump()
      local changes = {
        set = function(l) l:set(99, 0, 0) end,
        remove = function(l, id) if id == 1 then l:remove(4) end end,
        remove_many = function(l) l:remove_many({ 3, 99 }) end,
        clear = function(l) l:clear() l:set(1, 0, 0) end,
        merge = function(l) l:merge(dump) end,
        set_many = function(l) l:set_many({ 1, 2, 50 }, { 0, 0, 0 }, { 0, 0, 0 }) end,
      }
      for name, change in pairs(changes) do
        local err, steps = iterate(function(l, id) if id == 1 then change(l, id) end end)
        assert.are.equal(CHANGED, err, name)
        assert.are.equal(1, steps, name)
      end
    end)

    it("raises at the step that would end the loop", function()
      local err, steps = iterate(function(l, id) if id == 5 then l:set(6, 0, 0) end end)
      assert.are.equal(CHANGED, err)
      assert.are.equal(5, steps)
      err, steps = iterate(function(l, id) if id == 5 then l:remove(1) end end)
      assert.are.equal(CHANGED, err)
      assert.are.equal(5, steps)
    end)

    it("raises when an id is removed and added back between two steps", function()
      local err = iterate(function(l, id)
        if id == 2 then
          l:remove(4)
          l:set(4, 0, 0)
        end
      end)
      assert.are.equal(CHANGED, err)
    end)

    it("still names the current entity when that one was removed", function()
      local err = iterate(function(l, id) if id == 3 then l:remove(3) end end)
      assert.are.equal("layer changed during iteration (id 3 removed)", err)
    end)

    it("returns every entity when the calls change no id", function()
      local dump = layer_of(5):dump()
      local err, steps, l = iterate(function(l, id)
        if id == 1 then l:merge(dump) end  -- ids all there already
        l:move(id, id, 1)
        l:set(id, id, 2, 1, 2)  -- an id already there: an update
        l:move_many({ id }, { id }, { 3 })
        l:set_many({ id }, { id }, { 4 })
        l:remove(1000)          -- not there: nothing removed
        l:remove_many({ 1001 })
      end)
      assert.is_nil(err)
      assert.are.equal(5, steps)
      for i = 1, 5 do
        local x, y = l:get(i)
        assert.are.same({ i + 0.0, 4.0 }, { x, y })
      end
      local empty = soageo.layer()
      for _ in empty:each() do empty:clear() end
    end)

    it("raises in the outer loop when an inner loop ran after the change", function()
      local l = layer_of(5)
      local outer = 0
      assert.has_error(function()
        for _ in l:each() do
          outer = outer + 1
          if outer == 2 then l:set(100, 0, 0) end
          for _ in l:each() do end  -- begun after the change: runs to its end
        end
      end, CHANGED)
      assert.are.equal(2, outer)
    end)

    it("raises on the first step of an iterator made before the change, and not of one made after", function()
      local l = layer_of(5)
      local f, s, c = l:each()
      l:set(6, 0, 0)
      assert.has_error(function() f(s, c) end, CHANGED)
      local n = 0
      for _ in l:each() do n = n + 1 end
      assert.are.equal(6, n)
      -- the one made before the change stays stale
      assert.has_error(function() f(s, c) end, CHANGED)
    end)
  end)

  describe("when set_many is given arrays", function()
    it("inserts and updates them all", function()
      local l = soageo.layer()
      l:set(2, 9, 9)
      l:set_many({ 1, 2, 3 }, { 1, 2, 3 }, { 4, 5, 6 }, { 0, 1, 2 }, { 1, 2, 4 })
      assert.are.equal(3, #l)
      assert.are.same({ 2.0, 5.0, 1.0, 2 }, { l:get(2) })
      l:set_many({ 4 }, { 7 }, { 8 })
      assert.are.same({ 7.0, 8.0, 0.0, 1 }, { l:get(4) })
    end)

    it("rejects the whole batch when one element is bad", function()
      local l = soageo.layer()
      l:set(1, 1, 1)
      local before = checksum(l)
      assert.has_error(function() l:set_many({ 5, 6 }, { 1, 0 / 0 }, { 1, 1 }) end,
        "bad argument #2 to 'set_many' (xs[2] must be finite)")
      assert.has_error(function() l:set_many({ 5, 6.5 }, { 1, 1 }, { 1, 1 }) end,
        "bad argument #1 to 'set_many' (ids[2] must be an integer)")
      assert.has_error(function() l:set_many({ 5, 6 }, { 1 }, { 1, 1 }) end,
        "bad argument #2 to 'set_many' (xs must have as many elements as ids)")
      assert.has_error(function() l:set_many({ 5 }, { 1 }, { 1 }, { -1 }) end,
        "bad argument #4 to 'set_many' (rs[1] must be finite and >= 0)")
      assert.has_error(function() l:set_many({ 5 }, { 1 }, { 1 }, nil, { 2 ^ 32 }) end,
        "bad argument #5 to 'set_many' (masks[1] must be an integer in [0, 0xffffffff])")
      assert.has_error(function() l:set_many({ 5 }, { "1" }, { 1 }) end,
        "bad argument #2 to 'set_many' (xs[1] must be a number)")
      assert.has_error(function() l:set_many({ 5, 6 }, { 1, 1 }, { 1, 1 }, { 0, false }) end,
        "bad argument #4 to 'set_many' (rs[2] must be a number)")
      assert.has_error(function() l:set_many({ 5, 6 }, { 1, 1 }, { 1, 1 / 0 }) end,
        "bad argument #3 to 'set_many' (ys[2] must be finite)")
      assert.are.equal(before, checksum(l))
    end)
  end)

  describe("when given bad input", function()
    local l = soageo.layer()
    l:set(1, 1, 1, 1, 1)
    local cases = {
      { "nan x", function() l:set(2, 0 / 0, 0) end, "bad argument #2 to 'set' (x must be finite)" },
      { "inf y", function() l:set(2, 0, math.huge) end, "bad argument #3 to 'set' (y must be finite)" },
      { "beyond float32", function() l:set(2, 1e39, 0) end, "bad argument #2 to 'set' (x must be finite)" },
      { "negative r", function() l:set(2, 0, 0, -1) end, "bad argument #4 to 'set' (r must be finite and >= 0)" },
      { "float id", function() l:set(2.0, 0, 0) end, "bad argument #1 to 'set' (id must be an integer)" },
      { "non-integer id", function() l:set(1.5, 0, 0) end, "bad argument #1 to 'set' (id must be an integer)" },
      { "string id", function() l:set("a", 0, 0) end, "bad argument #1 to 'set' (integer expected, got string)" },
      { "wrong x type", function() l:set(2, {}, 0) end, "bad argument #2 to 'set' (number expected, got table)" },
      { "bad mask", function() l:set(2, 0, 0, 0, -1) end,
        "bad argument #5 to 'set' (mask must be an integer in [0, 0xffffffff])" },
      { "move nan", function() l:move(1, 0 / 0, 0) end, "bad argument #2 to 'move' (x must be finite)" },
      { "wrong self", function() l.set({}, 2, 0, 0) end, "bad argument #1 to 'set' (soageo.layer expected, got table)" },
      -- userdata of other kinds, some of a layer's own making: only a layer passes for one
      { "a file as self", function() l.move(io.stdout, 1, 0, 0) end, "bad argument #1 to 'move' (soageo.layer expected, got FILE*)" },
      { "an aoi as self", function() l.move(soageo.aoi(l), 1, 0, 0) end, "bad argument #1 to 'move' (soageo.layer expected, got soageo.aoi)" },
      { "contacts as self", function() l.get(soageo.contacts(l), 1) end,
        "bad argument #1 to 'get' (soageo.layer expected, got soageo.contacts)" },
      { "bad capacity", function() soageo.layer(-1) end, "bad argument #1 to 'layer' (capacity must be in [0, 2^28])" },
    }
    it("takes a mask computed as a float with an integral value, as Lua's own functions do", function()
      local m = soageo.layer()
      m:set(1, 0, 0, 0, 2 ^ 3)
      assert.are.equal(8, select(4, m:get(1)))
      assert.are.equal(math.type(select(4, m:get(1))), "integer")
      assert.are.equal(1, select(2, m:in_circle(0, 0, 1, nil, 2.0 ^ 3)))
      assert.has_error(function() m:set(1, 0, 0, 0, 2.5) end,
        "bad argument #5 to 'set' (mask must be an integer in [0, 0xffffffff])")
      assert.has_error(function() m:set(1, 0, 0, 0, 2 ^ 32) end,
        "bad argument #5 to 'set' (mask must be an integer in [0, 0xffffffff])")
      assert.has_error(function() m:set(1, 0, 0, 0, "8") end,
        "bad argument #5 to 'set' (mask must be an integer in [0, 0xffffffff])")
      assert.has_error(function() m:set_many({ 1 }, { 0 }, { 0 }, { 0 }, { "8" }) end,
        "bad argument #5 to 'set_many' (masks[1] must be an integer in [0, 0xffffffff])")
      m:set_many({ 1 }, { 0 }, { 0 }, { 0 }, { 2.0 ^ 4 })
      assert.are.equal(16, select(4, m:get(1)))
    end)

    for _, case in ipairs(cases) do
      it("raises for " .. case[1] .. " and leaves the layer unchanged", function()
        local before = checksum(l)
        assert.has_error(case[2], case[3])
        assert.are.equal(before, checksum(l))
      end)
    end
  end)

  describe("when closed", function()
    it("closes idempotently and refuses further use", function()
      local l = soageo.layer()
      l:set(1, 1, 1)
      l:close()
      l:close()
      assert.has_error(function() l:get(1) end, "calling 'get' on bad self (layer is closed)")
      assert.matches("closed", tostring(l))
    end)

    it("closes at the end of a to-be-closed scope", function()
      local l
      do
        local scoped <close> = soageo.layer()
        l = scoped
        l:set(1, 1, 1)
      end
      assert.has_error(function() return #l end)
    end)
  end)

  describe("when driven by 100,000 random operations (5,000 in quick mode)", function()
    it("agrees with a pure-Lua model at every step", function()
      local g = rng.new(20261122)
      local l = soageo.layer()
      local model, count = {}, 0
      for step = 1, quick(100000, 5000) do
        local id = g:int(1, 2000)
        local op = g:int(1, 4)
        if op == 1 then
          local x, y, r, m = g:uniform(-1e4, 1e4), g:uniform(-1e4, 1e4), g:uniform(0, 50), g:int(0, 255)
          if not model[id] then count = count + 1 end
          model[id] = { f32(x), f32(y), f32(r), m }
          l:set(id, x, y, r, m)
        elseif op == 2 then
          local x, y = g:uniform(-1e4, 1e4), g:uniform(-1e4, 1e4)
          if model[id] then
            model[id][1], model[id][2] = f32(x), f32(y)
            l:move(id, x, y)
          else
            assert.is_false(pcall(l.move, l, id, x, y))
          end
        elseif op == 3 then
          local had = model[id] ~= nil
          if had then count = count - 1 end
          model[id] = nil
          assert.are.equal(had, l:remove(id))
        else
          local e = model[id]
          if e then
            local x, y, r, m = l:get(id)
            if x ~= e[1] or y ~= e[2] or r ~= e[3] or m ~= e[4] then
              error(("step %d: get(%d) differs from the model"):format(step, id))
            end
          elseif l:get(id) ~= nil then
            error(("step %d: get(%d) should be nil"):format(step, id))
          end
        end
        if #l ~= count then error(("step %d: #layer %d, model %d"):format(step, #l, count)) end
      end
      local seen = 0
      for id, x in l:each() do
        seen = seen + 1
        assert.are.equal(model[id][1], x)
      end
      assert.are.equal(count, seen)
    end)
  end)
end)
