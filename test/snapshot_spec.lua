local soageo = require "soageo"
local rng = require "rng"
local rows = require("spec_util").rows

describe("layer snapshots", function()
  describe("when a layer is dumped and loaded", function()
    it("returns an equal layer, in the same slot order", function()
      local g = rng.new(5)
      local l = soageo.layer()
      for i = 1, 3000 do
        l:set(g:int(-1000000000, 1000000000) * 1000 + i, g:uniform(-1e6, 1e6), g:uniform(-1e6, 1e6), g:uniform(0, 100), g:int(0, 0xffffffff))
      end
      l:set(math.mininteger, -0.0, 1e-40, 0, 0)
      l:set(math.maxinteger, 3.4e38, -3.4e38, 3e38, 0xffffffff)
      for i = 1, 500 do l:remove(g:int(1, 3000)) end
      local copy = soageo.load(l:dump())
      assert.are.same(rows(l), rows(copy))
      assert.are.equal(#l, #copy)
      assert.are.equal(l:dump(), copy:dump())
      copy:set(1, 1, 1)  -- the copy is an ordinary, independent layer
      assert.is_nil(l:get(1))
    end)

    it("round-trips an empty layer", function()
      local copy = soageo.load(soageo.layer():dump())
      assert.are.equal(0, #copy)
      copy:set(1, 2, 3)
      assert.are.equal(1, #copy)
    end)

    it("keeps query results", function()
      local l = soageo.layer()
      for i = 1, 200 do l:set(i, i % 20, i // 20, 1) end
      local a, na = l:touch_sector(0, 0, 1, 1, 12, 0.5)
      local b, nb = soageo.load(l:dump()):touch_sector(0, 0, 1, 1, 12, 0.5)
      assert.are.equal(na, nb)
      assert.are.same(a, b)
    end)
  end)

  describe("when the string is malformed", function()
    local l = soageo.layer()
    for i = 1, 40 do l:set(i, i, -i, i % 3, i) end
    local good = l:dump()

    it("rejects every truncation", function()
      for len = 0, #good - 1 do
        local ok, err = pcall(soageo.load, good:sub(1, len))
        assert.is_false(ok)
        assert.matches("bad argument #1", err)
      end
    end)

    it("rejects every single flipped byte", function()
      for i = 1, #good do
        local b = good:byte(i)
        local bad = good:sub(1, i - 1) .. string.char(b ~ 0x10) .. good:sub(i + 1)
        assert.is_false((pcall(soageo.load, bad)))
      end
    end)

    it("rejects trailing bytes, other magic and other types", function()
      local function err(s) return select(2, pcall(soageo.load, s)) end
      assert.matches("bad argument #1 to '[%w.]*load' %(snapshot has trailing bytes%)", err(good .. "\0"))
      assert.matches("bad argument #1 to '[%w.]*load' %(not a soageo layer snapshot%)", err("XGEO" .. good:sub(5)))
      assert.matches("bad argument #1 to '[%w.]*load' %(string expected, got table%)", err({}))
      -- a number is no snapshot either (not the string "5", which would be "truncated")
      assert.matches("bad argument #1 to '[%w.]*load' %(string expected, got number%)", err(5))
    end)
  end)
end)
