local soageo = require "soageo"
local rng = require "rng"
local ref = require "sector_reference"
local quick = require "quick"

local pi = math.pi

local util = require "spec_util"
local ids_of, layer_of = util.sorted, util.layer_of

local function hit(method, sector, point)
  local l = layer_of({ point })
  local _, n = l[method](l, table.unpack(sector))
  return n == 1
end

-- Every spec below runs under each SIMD target this CPU has; they must all agree with the
-- scalar reference, so the pure-Lua reference covers them all.
util.each_target(describe, setup, teardown, function(arch) return "when the " .. arch .. " target runs sector queries" end, function(arch)

  describe("in_sector (strict)", function()
    local cone = { 0, 0, 1, 0, 10, pi / 4 }
    it("returns a point well inside", function() assert.is_true(hit("in_sector", cone, { 5, 0 })) end)
    it("leaves out a point on the arc", function() assert.is_false(hit("in_sector", cone, { 10, 0 })) end)
    it("leaves out a point on the arc off-axis", function()
      assert.is_false(hit("in_sector", { 0, 0, 1, 0, 10, pi / 2 }, { 6, 8 }))
      assert.is_true(hit("in_sector", { 0, 0, 1, 0, 10, pi / 2 }, { 6, 7.99 }))
    end)
    it("leaves out the apex", function() assert.is_false(hit("in_sector", cone, { 0, 0 })) end)
    it("leaves out points on the edge rays", function()
      assert.is_false(hit("in_sector", cone, { 5, 5 }))
      assert.is_false(hit("in_sector", cone, { 5, -5 }))
      assert.is_true(hit("in_sector", cone, { 5, 4.99 }))
    end)
    it("treats half_angle pi/2 as the exact half-plane", function()
      local half = { 0, 0, 1, 0, 10, pi / 2 }
      assert.is_false(hit("in_sector", half, { 0, 5 }))
      assert.is_false(hit("in_sector", half, { 0, -5 }))
      assert.is_true(hit("in_sector", half, { 1e-30, 5 }))
      assert.is_false(hit("in_sector", half, { -1e-30, 5 }))
      local up = { 3, 3, 0, 2, 10, pi / 2 }  -- any direction, not only +x
      assert.is_false(hit("in_sector", up, { -2, 3 }))
      assert.is_true(hit("in_sector", up, { -2, 3.0001 }))
    end)
    it("treats half_angle pi as the full disk, apex and straight behind included", function()
      local full = { 0, 0, 1, 0, 10, pi }
      assert.is_true(hit("in_sector", full, { 0, 0 }))
      assert.is_true(hit("in_sector", full, { -9.5, 0 }))
      assert.is_false(hit("in_sector", full, { -10, 0 }))
    end)
    it("handles reflex (pac-man) sectors", function()
      local pac = { 0, 0, 1, 0, 10, 3 * pi / 4 }
      assert.is_true(hit("in_sector", pac, { 0, 5 }))
      assert.is_true(hit("in_sector", pac, { -5, 5.01 }))
      assert.is_false(hit("in_sector", pac, { -5, 5 }))
      assert.is_false(hit("in_sector", pac, { -5, 0 }))
    end)
    it("normalises any non-zero direction", function()
      assert.is_true(hit("in_sector", { 0, 0, 1e-20, 0, 10, 0.1 }, { 5, 0 }))
      assert.is_true(hit("in_sector", { 0, 0, 0, -1e20, 10, 0.1 }, { 0, -5 }))
    end)
  end)

  describe("touch_sector (closed, entity disks)", function()
    local half = { 0, 0, 1, 0, 10, pi / 2 }
    it("counts a disk tangent to the arc", function()
      assert.is_true(hit("touch_sector", half, { 12, 0, 2 }))
      assert.is_false(hit("touch_sector", half, { 12.01, 0, 2 }))
    end)
    it("counts a disk tangent to an edge", function()
      assert.is_true(hit("touch_sector", half, { -3, 5, 3 }))
      assert.is_false(hit("touch_sector", half, { -3.01, 5, 3 }))
      local cone = { 0, 0, 0, 1, 10, pi / 4 }
      assert.is_true(hit("touch_sector", cone, { 0, -1, 1 }))  -- the apex, from behind
    end)
    it("counts a disk tangent at the apex", function()
      assert.is_true(hit("touch_sector", half, { -3, 0, 3 }))
      assert.is_false(hit("touch_sector", half, { -3.01, 0, 3 }))
    end)
    it("counts a disk tangent at an edge's far end", function()
      assert.is_true(hit("touch_sector", half, { 0, 13, 3 }))
      assert.is_false(hit("touch_sector", half, { 0, 13.01, 3 }))
    end)
    it("treats radius 0 as the closed point test", function()
      assert.is_true(hit("touch_sector", half, { 10, 0, 0 }))
      assert.is_true(hit("touch_sector", half, { 0, 0, 0 }))
      assert.is_true(hit("touch_sector", half, { 0, 5, 0 }))
    end)
    it("handles the full disk", function()
      local full = { 0, 0, 1, 0, 10, pi }
      assert.is_true(hit("touch_sector", full, { -15, 0, 5 }))
      assert.is_false(hit("touch_sector", full, { -15.01, 0, 5 }))
    end)
  end)

  describe("when scenes are random", function()
    local g = rng.new(99)
    local sizes = { 0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, quick(100000, 2000) }
    for _, size in ipairs(sizes) do
      it("returns what the pure-Lua reference returns for " .. size .. " entities", function()
        local l = soageo.layer()
        local pts = {}
        for i = 1, size do
          local p = { g:uniform(-200, 200), g:uniform(-200, 200), g:uniform(0, 8), 1 << g:int(0, 3) }
          l:set(i, p[1], p[2], p[3], p[4])
          p[1], p[2], p[3] = l:get(i)  -- the reference works on the stored float32 values
          pts[i] = p
        end
        local out = {}
        for _ = 1, (size > 1000 and 2 or 30) do
          local half = g:uniform(0.01, pi)
          local pick = g:int(1, 6)
          if pick == 1 then half = pi elseif pick == 2 then half = pi / 2 end
          local args = { g:uniform(-100, 100), g:uniform(-100, 100), g:uniform(-1, 1), g:uniform(-1, 1),
            g:uniform(0, 150), half }
          local s = ref.sector(table.unpack(args))
          local mask = g:int(0, 1) == 1 and 3 or nil
          local want_in, want_touch = {}, {}
          for i, p in ipairs(pts) do
            local pass = mask == nil or (p[4] & mask) ~= 0
            if pass and ref.point_in(s, p[1], p[2]) then want_in[#want_in + 1] = i end
            if pass and ref.disk_touches(s, p[1], p[2], p[3]) then want_touch[#want_touch + 1] = i end
          end
          local n
          out, n = l:in_sector(args[1], args[2], args[3], args[4], args[5], args[6], out, mask)
          assert.are.same(want_in, ids_of(out, n))
          out, n = l:touch_sector(args[1], args[2], args[3], args[4], args[5], args[6], out, mask)
          assert.are.same(want_touch, ids_of(out, n))
        end
      end)
    end
  end)
end)

describe("sector query results", function()
  describe("when an out table is reused", function()
    it("returns the same table with stale entries cleared", function()
      local l = layer_of({ { 1, 0 }, { 2, 0 }, { 3, 0 } })
      local out = { "a", "b", "c", "d", "e" }
      local same, n = l:in_sector(0, 0, 1, 0, 2.5, 1, out)
      assert.are.equal(out, same)
      assert.are.equal(2, n)
      assert.are.same({ 1, 2 }, out)
    end)
  end)

  describe("when no out table is given", function()
    it("returns a new table", function()
      local l = layer_of({ { 1, 0 } })
      local out, n = l:in_sector(0, 0, 1, 0, 2, 1)
      assert.are.same({ 1 }, out)
      assert.are.equal(1, n)
    end)
  end)

  describe("when a mask is given", function()
    it("returns only entities sharing a bit with it", function()
      local l = layer_of({ { 1, 0, 0, 1 }, { 2, 0, 0, 2 }, { 3, 0, 0, 6 }, { 4, 0, 0, 0 } })
      local out, n = l:in_sector(0, 0, 1, 0, 10, 1, nil, 2)
      assert.are.same({ 2, 3 }, ids_of(out, n))
      out, n = l:in_sector(0, 0, 1, 0, 10, 1)
      assert.are.equal(4, n)
    end)
  end)

  describe("when given bad input", function()
    local l = layer_of({ { 1, 0 } })
    local bad = {
      { { 0 / 0, 0, 1, 0, 1, 1 }, "bad argument #1 to 'in_sector' (x must be finite)" },
      { { 0, 1 / 0, 1, 0, 1, 1 }, "bad argument #2 to 'in_sector' (y must be finite)" },
      { { 0, 0, 0 / 0, 0, 1, 1 }, "bad argument #3 to 'in_sector' (dx must be finite)" },
      { { 0, 0, 0, 0, 1, 1 }, "bad argument #3 to 'in_sector' (direction (dx, dy) must not be zero)" },
      { { 0, 0, 1, 0, -1, 1 }, "bad argument #5 to 'in_sector' (radius must be finite and >= 0)" },
      { { 0, 0, 1, 0, 1 / 0, 1 }, "bad argument #5 to 'in_sector' (radius must be finite and >= 0)" },
      { { 0, 0, 1, 0, 1, 0 }, "bad argument #6 to 'in_sector' (half_angle must be in (0, pi])" },
      { { 0, 0, 1, 0, 1, 4 }, "bad argument #6 to 'in_sector' (half_angle must be in (0, pi])" },
      { { 0, 0, 1, 0, 1, 0 / 0 }, "bad argument #6 to 'in_sector' (half_angle must be in (0, pi])" },
      { { 0, 0, 1, 0, 1, 1, 5 }, "bad argument #7 to 'in_sector' (table or nil expected, got number)" },
      { { 0, 0, 1, 0, 1, 1, nil, 1.5 }, "bad argument #8 to 'in_sector' (mask must be an integer in [0, 0xffffffff])" },
      { { 0, 0, "x", 0, 1, 1 }, "bad argument #3 to 'in_sector' (number expected, got string)" },
    }
    for _, case in ipairs(bad) do
      it("raises " .. case[2], function()
        assert.has_error(function() l:in_sector(table.unpack(case[1], 1, 8)) end, case[2])
        local touch_msg = case[2]:gsub("in_sector", "touch_sector")
        assert.has_error(function() l:touch_sector(table.unpack(case[1], 1, 8)) end, touch_msg)
        assert.are.same({ 1.0, 0.0, 0.0, 1 }, { l:get(1) })
      end)
    end
  end)
end)
