local soageo = require "soageo"
local rng = require "rng"
local ref = require "shapes_reference"

local util = require "spec_util"
local sorted, layer_of = util.sorted, util.layer_of

local function hits(method, args, points)
  local l = layer_of(points)
  local call = { table.unpack(args) }
  local out, n = l[method](l, table.unpack(call, 1, #args))
  return sorted(out, n)
end

local function hit(method, args, point) return #hits(method, args, { point }) == 1 end

util.each_target(describe, setup, teardown, function(arch) return "when the " .. arch .. " target runs shape queries" end, function(arch)

  describe("circles", function()
    it("returns centres strictly inside for in_circle", function()
      assert.is_true(hit("in_circle", { 0, 0, 5 }, { 3, 3.99 }))
      assert.is_false(hit("in_circle", { 0, 0, 5 }, { 3, 4 }))   -- on the circle
      assert.is_false(hit("in_circle", { 0, 0, 0 }, { 0, 0 }))
    end)
    it("counts tangent disks for touch_circle", function()
      assert.is_true(hit("touch_circle", { 0, 0, 5 }, { 8, 0, 3 }))
      assert.is_false(hit("touch_circle", { 0, 0, 5 }, { 8.01, 0, 3 }))
      assert.is_true(hit("touch_circle", { 0, 0, 0 }, { 3, 4, 5 }))
    end)
  end)

  describe("boxes", function()
    local box = { -2, -1, 2, 1 }
    it("includes the edges and corners for in_box", function()
      assert.is_true(hit("in_box", box, { 2, 1 }))
      assert.is_true(hit("in_box", box, { -2, 0 }))
      assert.is_false(hit("in_box", box, { 2.001, 0 }))
      assert.is_true(hit("in_box", { 1, 1, 1, 1 }, { 1, 1 }))  -- a point box
    end)
    it("counts disks tangent to an edge or a corner for touch_box", function()
      assert.is_true(hit("touch_box", box, { 5, 0, 3 }))
      assert.is_false(hit("touch_box", box, { 5.01, 0, 3 }))
      assert.is_true(hit("touch_box", box, { 5, 5, 5 }))      -- corner (2,1): distance 5
      assert.is_false(hit("touch_box", box, { 5, 5.01, 5 }))
      assert.is_true(hit("touch_box", box, { 0, 0, 0 }))
    end)
  end)

  describe("capsules", function()
    it("counts disks within the radius of the segment, ends included", function()
      local blade = { 0, 0, 10, 0, 2 }
      assert.is_true(hit("touch_capsule", blade, { 5, 3, 1 }))
      assert.is_false(hit("touch_capsule", blade, { 5, 3.01, 1 }))
      assert.is_true(hit("touch_capsule", blade, { 13, 0, 1 }))     -- past the end: round cap
      assert.is_true(hit("touch_capsule", blade, { 12, 0, 0 }))
      assert.is_false(hit("touch_capsule", blade, { 12.01, 0, 0 }))
      assert.is_true(hit("touch_capsule", blade, { -1.2, -1.6, 0 })) -- on the start cap
    end)
    it("treats a zero-length capsule as a circle", function()
      assert.is_true(hit("touch_capsule", { 1, 1, 1, 1, 2 }, { 1, 4, 1 }))
      assert.is_false(hit("touch_capsule", { 1, 1, 1, 1, 2 }, { 1, 4.01, 1 }))
    end)
  end)

  describe("triangles", function()
    local tri = { 0, 0, 8, 0, 0, 8 }
    it("includes edges and vertices, either winding", function()
      for _, t in ipairs({ tri, { 0, 0, 0, 8, 8, 0 } }) do
        assert.is_true(hit("in_triangle", t, { 1, 1 }))
        assert.is_true(hit("in_triangle", t, { 4, 4 }))      -- on the hypotenuse
        assert.is_true(hit("in_triangle", t, { 8, 0 }))      -- a vertex
        assert.is_true(hit("in_triangle", t, { 3, 0 }))      -- on an edge
        assert.is_false(hit("in_triangle", t, { 4, 4.001 }))
        assert.is_false(hit("in_triangle", t, { -0.001, 1 }))
      end
    end)
    it("answers the recast triangle case's point exactly: outside", function()
      local t = { 261.137939, 8.13000488, 73.6379318, 8.13000488, 76.9379349, 10.2300053 }
      assert.is_false(hit("in_triangle", t, { 74.4069519, 8.6193819 }))
      assert.is_true(hit("in_triangle", t, { 74.4069519, 8.5 }))
    end)
    it("holds exactly its segment hull when degenerate", function()
      local flat = { 0, 0, 4, 4, 2, 2 }
      assert.is_true(hit("in_triangle", flat, { 1, 1 }))
      assert.is_true(hit("in_triangle", flat, { 4, 4 }))
      assert.is_false(hit("in_triangle", flat, { 5, 5 }))
      assert.is_false(hit("in_triangle", flat, { 1, 1.0000001 }))
    end)
    it("counts disks tangent to an edge or a vertex for touch_triangle", function()
      assert.is_true(hit("touch_triangle", tri, { 4, -2, 2 }))
      assert.is_false(hit("touch_triangle", tri, { 4, -2.01, 2 }))
      assert.is_true(hit("touch_triangle", tri, { 11, 0, 3 }))     -- at vertex (8, 0)
      assert.is_true(hit("touch_triangle", tri, { 1, 1, 0 }))      -- centre inside
      assert.is_true(hit("touch_triangle", { 3, 3, 3, 3, 3, 3 }, { 3, 5, 2 }))  -- a point triangle
    end)
  end)

  describe("segment casts", function()
    local l = layer_of({ { 5, 0, 1 }, { 2, 0, 0.5 }, { 8, 0, 1 }, { 5, 5, 1 }, { 0, 0, 0.25 }, { 11, 0, 1 } })
    it("returns ids ordered by entry t, with t", function()
      local ids, ts, n = l:cast_segment(0, 0, 10, 0)
      assert.are.equal(5, n)
      assert.are.same({ 5, 2, 1, 3, 6 }, ids)
      for i, t in ipairs({ 0, 0.15, 0.4, 0.7, 1 }) do assert.is_true(math.abs(ts[i] - t) < 1e-6) end
      assert.are.equal(0, ts[1])
      assert.are.equal(1, ts[5])
    end)
    it("orders equal t by id", function()
      local m = layer_of({ { 5, 1, 1 }, { 5, -1, 1 }, { 5, 0, 1 } })
      local ids, ts = m:cast_segment(0, 0, 10, 0)
      assert.are.same({ 1, 2, 3 }, ids)
      assert.are.equal(ts[1], ts[3])
    end)
    it("handles axis-parallel and zero-length segments without NaN", function()
      local ids, ts, n = l:cast_segment(5, -10, 5, 10)
      assert.are.same({ 1, 4 }, ids)
      assert.is_true(ts[1] == ts[1] and ts[2] == ts[2])
      ids, ts, n = l:cast_segment(5, 0, 5, 0)
      assert.are.equal(1, n)
      assert.are.same({ 1 }, ids)
      assert.are.same({ 0 }, ts)
    end)
    it("returns only the nearest hit from cast_segment_first", function()
      assert.are.same({ 5, 0 }, { l:cast_segment_first(0, 0, 10, 0) })
      local id, t = l:cast_segment_first(1, 0, 10, 0)
      assert.are.equal(2, id)
      assert.is_true(math.abs(t - 0.5 / 9) < 1e-6)
      assert.is_nil(l:cast_segment_first(0, 100, 10, 100))
      assert.are.same({ 6 }, { (l:cast_segment_first(20, 0, 10, 0, 1)) })
    end)
  end)

  describe("when scenes are random", function()
    local g = rng.new(4242)
    for _, size in ipairs({ 0, 1, 7, 8, 9, 16, 17, 2000 }) do
      it("returns what the pure-Lua reference returns for " .. size .. " entities", function()
        local pts, l = {}, soageo.layer()
        for i = 1, size do
          -- a 2^-10 grid, so the exact triangle reference can use integers
          local p = { g:int(-100 * 1024, 100 * 1024) / 1024, g:int(-100 * 1024, 100 * 1024) / 1024, g:int(0, 5 * 1024) / 1024, 1 << g:int(0, 2) }
          l:set(i, p[1], p[2], p[3], p[4])
          p[1], p[2], p[3] = l:get(i)  -- the references work on the stored float32 values
          pts[i] = p
        end
        local grid = function(lo, hi) return g:int(lo * 1024, hi * 1024) / 1024 end
        local out, out_t = {}, {}
        for _ = 1, (size > 100 and 5 or 20) do
          local mask = g:int(0, 1) == 1 and 3 or nil
          local shapes = {
            { "in_circle", { grid(-100, 100), grid(-100, 100), grid(0, 60) } },
            { "touch_circle", { grid(-100, 100), grid(-100, 100), grid(0, 60) } },
            { "touch_capsule", { grid(-100, 100), grid(-100, 100), grid(-100, 100), grid(-100, 100), grid(0, 20) } },
            { "in_triangle", { grid(-100, 100), grid(-100, 100), grid(-100, 100), grid(-100, 100), grid(-100, 100), grid(-100, 100) } },
            { "touch_triangle", { grid(-100, 100), grid(-100, 100), grid(-100, 100), grid(-100, 100), grid(-100, 100), grid(-100, 100) } },
          }
          local x0, y0 = grid(-100, 100), grid(-100, 100)
          shapes[#shapes + 1] = { "in_box", { x0, y0, x0 + grid(0, 80), y0 + grid(0, 80) } }
          shapes[#shapes + 1] = { "touch_box", { x0, y0, x0 + grid(0, 80), y0 + grid(0, 80) } }
          for _, s in ipairs(shapes) do
            local name, args = s[1], s[2]
            local want = {}
            for i, p in ipairs(pts) do
              if (mask == nil or p[4] & mask ~= 0) then
                local a = { table.unpack(args) }
                a[#a + 1], a[#a + 2], a[#a + 3] = p[1], p[2], p[3]
                if ref[name](table.unpack(a)) then want[#want + 1] = i end
              end
            end
            local call = { table.unpack(args) }
            call[#args + 1] = out
            call[#args + 2] = mask
            local n
            out, n = l[name](l, table.unpack(call, 1, #args + 2))
            assert.are.same(want, sorted(out, n), name)
          end
          local seg = { grid(-100, 100), grid(-100, 100), grid(-100, 100), grid(-100, 100) }
          if g:int(0, 3) == 0 then seg[3] = seg[1] end
          local want = {}
          for i, p in ipairs(pts) do
            local t = (mask == nil or p[4] & mask ~= 0) and ref.cast(seg[1], seg[2], seg[3], seg[4], p[1], p[2], p[3])
            if t then want[#want + 1] = { t, i } end
          end
          table.sort(want, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
          local ids, ts, n = l:cast_segment(seg[1], seg[2], seg[3], seg[4], out, out_t, mask)
          assert.are.equal(#want, n)
          for i = 1, n do
            assert.are.equal(want[i][2], ids[i])
            assert.are.equal(want[i][1], ts[i])
          end
        end
      end)
    end
  end)
end)

describe("shape queries", function()
  describe("when given bad input", function()
    local l = layer_of({ { 1, 1, 1 } })
    local cases = {
      { "in_circle", { 0 / 0, 0, 1 }, "bad argument #1 to 'in_circle' (x must be finite)" },
      { "touch_circle", { 0, 0, -1 }, "bad argument #3 to 'touch_circle' (radius must be finite and >= 0)" },
      { "in_box", { 0, 0, -1, 1 }, "bad argument #3 to 'in_box' (maxx must be >= minx)" },
      { "touch_box", { 0, 2, 1, 1 }, "bad argument #4 to 'touch_box' (maxy must be >= miny)" },
      { "in_box", { 0, 0, 1 / 0, 1 }, "bad argument #3 to 'in_box' (maxx must be finite)" },
      { "touch_capsule", { 0, 0, 1, 1, -2 }, "bad argument #5 to 'touch_capsule' (radius must be finite and >= 0)" },
      { "touch_capsule", { 0, 0, 0 / 0, 1, 2 }, "bad argument #3 to 'touch_capsule' (x1 must be finite)" },
      { "in_triangle", { 0, 0, 1, 1, 2, math.huge }, "bad argument #6 to 'in_triangle' (cy must be finite)" },
      { "touch_triangle", { 0, 0, 1, 1, 2, 2, 7 }, "bad argument #7 to 'touch_triangle' (table or nil expected, got number)" },
      { "in_circle", { 0, 0, 1, nil, -3 }, "bad argument #5 to 'in_circle' (mask must be an integer in [0, 0xffffffff])" },
      { "cast_segment", { 0, 0, 0 / 0, 0 }, "bad argument #3 to 'cast_segment' (x1 must be finite)" },
      { "cast_segment", { 0, 0, 1, 1, {}, 3 }, "bad argument #6 to 'cast_segment' (table or nil expected, got number)" },
      { "cast_segment_first", { 0, 0, 1, 1, 1.5 }, "bad argument #5 to 'cast_segment_first' (mask must be an integer in [0, 0xffffffff])" },
    }
    local method = util.method
    for _, case in ipairs(cases) do
      it("raises " .. case[3], function()
        assert.has_error(function() method(case[1])(l, table.unpack(case[2], 1, 7)) end, case[3])
        assert.are.same({ 1.0, 1.0, 1.0, 1 }, { l:get(1) })
      end)
    end
    it("refuses the same table for ids and ts", function()
      local t = {}
      assert.has_error(function() l:cast_segment(0, 0, 1, 1, t, t) end,
        "bad argument #6 to 'cast_segment' (out_t must be another table than out_ids)")
    end)

    it("refuses a segment whose extent leaves float32, and casts one just within it", function()
      -- Ends at -2e38 and 2e38: x1 - x0 is infinite in float32, and every entity was met at
      -- t = 0 (before the check), the one far off the segment included.
      local far = soageo.layer()
      far:set(1, 0, 0, 1)
      far:set(2, 1e38, -1e38, 0)
      assert.has_error(function() far:cast_segment(-2e38, -2e38, 2e38, 2e38) end,
        "bad argument #3 to 'cast_segment' (x1 - x0 must be finite)")
      assert.has_error(function() far:cast_segment_first(0, -2e38, 0, 2e38) end,
        "bad argument #4 to 'cast_segment_first' (y1 - y0 must be finite)")
      assert.has_error(function() far:touch_capsule(-2e38, 0, 2e38, 0, 1) end,
        "bad argument #3 to 'touch_capsule' (x1 - x0 must be finite)")
      local ids, ts, n = far:cast_segment(-1e38, -1e38, 1e38, 1e38)
      assert.are.equal(1, n)
      assert.are.equal(1, ids[1])
      assert.is_true(math.abs(ts[1] - 0.5) < 1e-6)
    end)
  end)
end)

describe("when a segment or an edge is longer than float32 squares allow", function()
  it("returns the disks within reach of it, on every target, as the reference", function()
    -- len2 = dx * dx + dy * dy overflows past about 1.8e19: t must not fall back to the start
    local pts = {
      { 0, 1, 2 },        -- 1 above the middle: within 2
      { 0, 5, 2 },        -- 5 above: out
      { 9e18, -1.5, 2 },  -- near the far half
      { 3e38, 1, 2 },     -- past an end
      { -2e38, 1, 2 },    -- beside the start of the longest
    }
    local f32 = require("float32").f32
    for _, p in ipairs(pts) do p[1], p[2] = f32(p[1]), f32(p[2]) end  -- as stored: the references read them so
    local layer = layer_of(pts)
    local capsules = { { -1e19, 0, 1e19, 0, 0 }, { -3e38, 0, 3e37, 0, 0 }, { -1e18, 0, 1e18, 0, 0 } }
    local triangles = { { -1e19, 0, 1e19, 0, 0, -1e19 }, { -3e38, 0, 3e37, 0, 0, -3e38 } }
    local was = soageo.arch()
    for _, arch in ipairs(soageo.archs()) do
      soageo.use_arch(arch)
      for _, c in ipairs(capsules) do
        local want = {}
        for i, p in ipairs(pts) do
          if ref.touch_capsule(c[1], c[2], c[3], c[4], c[5], p[1], p[2], p[3]) then want[#want + 1] = i end
        end
        local out, n = layer:touch_capsule(table.unpack(c))
        assert.are.same(want, sorted(out, n), arch)
        assert.is_true(#want >= 1)
      end
      for _, t in ipairs(triangles) do
        -- The centre inside (exact: in_triangle) or an edge within r: each edge a capsule of
        -- radius 0 in the reference (its float32 steps are touch_triangle's).
        local inside = {}
        local ins, nin = layer:in_triangle(table.unpack(t))
        for i = 1, nin do inside[ins[i]] = true end
        local want = {}
        for i, p in ipairs(pts) do
          local near = inside[i]
          for k = 0, 2 do
            local a, b = k * 2 + 1, (k + 1) % 3 * 2 + 1
            near = near or ref.touch_capsule(t[a], t[a + 1], t[b], t[b + 1], 0, p[1], p[2], p[3])
          end
          if near then want[#want + 1] = i end
        end
        local out, n = layer:touch_triangle(table.unpack(t))
        assert.are.same(want, sorted(out, n), arch)
        local pout, pn = layer:touch_polygon(t)
        assert.are.same(want, sorted(pout, pn), arch)
      end
    end
    soageo.use_arch(was)
    -- 1 above the middle of a 2e19 blade: the start's distance (1e19) would have missed it
    local out, n = layer:touch_capsule(-1e19, 0, 1e19, 0, 0)
    assert.are.same({ 1 }, sorted(out, n))
    out, n = layer:touch_capsule(-3e38, 0, 3e37, 0, 0)
    assert.are.same({ 1, 3, 5 }, sorted(out, n))
    out, n = layer:touch_triangle(-1e19, 0, 1e19, 0, 0, -1e19)
    assert.are.same({ 1, 3 }, sorted(out, n))
  end)
end)
