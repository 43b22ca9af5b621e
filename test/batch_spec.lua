local soageo = require "soageo"
local rng = require "rng"

local util = require "spec_util"
local method = util.method

describe("shape batches", function()
  local g = rng.new(77)
  local l = soageo.layer()
  for i = 1, 3000 do l:set(i, g:uniform(0, 500), g:uniform(0, 500), g:uniform(0, 4), 1 << g:int(0, 1)) end

  local kinds = {
    { "sector", 6, function() return { g:uniform(0, 500), g:uniform(0, 500), g:uniform(-1, 1), g:uniform(-1, 1), g:uniform(0, 80), g:uniform(0.1, math.pi) } end },
    { "circle", 3, function() return { g:uniform(0, 500), g:uniform(0, 500), g:uniform(0, 40) } end },
    { "box", 4, function() local x, y = g:uniform(0, 500), g:uniform(0, 500) return { x, y, x + g:uniform(0, 60), y + g:uniform(0, 60) } end },
    { "capsule", 5, function() return { g:uniform(0, 500), g:uniform(0, 500), g:uniform(0, 500), g:uniform(0, 500), g:uniform(0, 10) } end },
    { "triangle", 6, function() local x, y = g:uniform(0, 500), g:uniform(0, 500) return { x, y, x + g:uniform(-60, 60), y + g:uniform(-60, 60), x + g:uniform(-60, 60), y + g:uniform(-60, 60) } end },
    { "rect", 6, function() return { g:uniform(0, 500), g:uniform(0, 500), g:uniform(-1, 1), g:uniform(-1, 1), g:uniform(0, 80), g:uniform(0, 20) } end },
    { "ring", 4, function() local outer = g:uniform(0, 60) return { g:uniform(0, 500), g:uniform(0, 500), g:uniform(0, outer), outer } end },
  }
  for _, kind in ipairs(kinds) do
    local name, arity, make = kind[1], kind[2], kind[3]
    for _, prefix in ipairs({ "in_", "touch_" }) do
      local single = prefix .. name
      if l[single] then
        describe("when " .. single .. "_batch runs 50 shapes", function()
          it("returns the (shape, id) pairs of 50 single queries, in order", function()
            local params, want = {}, {}
            for s = 1, 50 do
              local p = make()
              if s == 7 and name == "capsule" then p[3], p[4] = p[1], p[2] end  -- zero length
              for j = 1, arity do params[#params + 1] = p[j] end
              local args = { table.unpack(p) }
              args[arity + 1], args[arity + 2] = nil, 2
              local out, n = l[single](l, table.unpack(args, 1, arity + 2))
              for i = 1, n do want[#want + 1] = s; want[#want + 1] = out[i] end
            end
            local out = { "stale", "stale" }
            for i = 1, #want + 10 do out[i] = "stale" end
            local got, n = l[single .. "_batch"](l, params, out, 2)
            assert.are.equal(out, got)
            util.same_pairs(assert, want, got, n)
          end)
        end)
      end
    end
  end

  describe("when given bad input", function()
    local cases = {
      { "in_sector_batch", { { 0, 0, 1, 0, 5 } }, "bad argument #1 to 'in_sector_batch' (params must hold 6 numbers per shape (x, y, dx, dy, radius, half_angle))" },
      { "in_sector_batch", { { 0, 0, 1, 0, 5, 1, 0, 0, 0, 0, 5, 1 } }, "bad argument #1 to 'in_sector_batch' (shape 2 has a zero direction)" },
      { "touch_circle_batch", { { 0, 0, 0 / 0 } }, "bad argument #1 to 'touch_circle_batch' (shape 1 must be finite numbers)" },
      { "in_box_batch", { { 0, 0, -1, 1 } }, "bad argument #1 to 'in_box_batch' (shape 1 has min > max)" },
      { "touch_capsule_batch", { { 0, 0, 1, 1, -1 } }, "bad argument #1 to 'touch_capsule_batch' (shape 1 has a negative radius)" },
      { "in_circle_batch", { 5 }, "bad argument #1 to 'in_circle_batch' (table expected, got number)" },
      { "in_circle_batch", { { 0, 0, 1 }, 5 }, "bad argument #2 to 'in_circle_batch' (table or nil expected, got number)" },
      { "in_circle_batch", { { 0, "0", 1 } }, "bad argument #1 to 'in_circle_batch' (shape 1 must be finite numbers)" },
    }
    for _, case in ipairs(cases) do
      it("raises " .. case[3], function()
        assert.has_error(function() method(case[1])(l, table.unpack(case[2], 1, 3)) end, case[3])
        assert.are.equal(3000, #l)
      end)
    end

    -- The shapes are read again while results are written: written into the shapes' own
    -- tables, results would become the later shapes (before: silently wrong hits).
    it("takes a direction as any finite numbers, as the single queries do", function()
      -- dx, dy are normalised in double: a direction beyond float32 is still a direction.
      local one, n1 = l:in_sector(250, 250, 1e300, -1e300, 80, 1)
      local all, n = l:in_sector_batch({ 250, 250, 1e300, -1e300, 80, 1 })
      assert.is_true(n1 > 0)
      assert.are.equal(n1, n)
      for i = 1, n do assert.are.equal(one[i], all[2 * i]) end
      local _, m1 = l:in_rect(250, 250, 1e-300, 1e300, 80, 20)
      local _, m = l:in_rect_batch({ 250, 250, 1e-300, 1e300, 80, 20 })
      assert.is_true(m1 > 0)
      assert.are.equal(m1, m)
    end)

    it("raises when out is the params table, and leaves params as they were", function()
      local params = { 0, 0, 100, 100, 200, 200, 300, 300 }
      assert.has_error(function() l:in_box_batch(params, params) end,
        "bad argument #2 to 'in_box_batch' (out must be another table than params)")
      assert.are.same({ 0, 0, 100, 100, 200, 200, 300, 300 }, params)
    end)

    it("raises when out is the polygons table or one of its polygons", function()
      local a, b = { 0, 0, 100, 0, 100, 100 }, { 200, 200, 300, 200, 300, 300 }
      local polys = { a, b }
      assert.has_error(function() l:in_polygon_batch(polys, polys) end,
        "bad argument #2 to 'in_polygon_batch' (out must be another table than polygons)")
      assert.has_error(function() l:touch_polygon_batch(polys, b) end,
        "bad argument #2 to 'touch_polygon_batch' (out must be another table than polygon 2)")
      assert.are.same({ 200, 200, 300, 200, 300, 300 }, b)
      local _, n = l:in_polygon_batch(polys, {})
      assert.is_true(n > 0)
    end)
  end)
end)
