-- Oriented rectangles, rings and convex polygons against the pure-Lua references of
-- test/shapes_reference.lua, on every target: exact boundary cases, one float32 step either
-- side, zero sizes, both windings, collinear vertices, scenes near 1e-30 and 1e7, random scenes.
local soageo = require "soageo"
local rng = require "rng"
local ref = require "shapes_reference"
local util = require "spec_util"
local sorted, layer_of = util.sorted, util.layer_of
local step = ref.step

local function hits(method, args, points)
  local l = layer_of(points)
  local out, n = l[method](l, table.unpack(args))
  return sorted(out, n)
end
local function hit(method, args, point) return #hits(method, args, { point }) == 1 end

-- Every query of a scene against its reference; `pts` hold the stored (float32) values.
local function check_scene(l, pts, shapes, mask)
  local out = { "stale" }
  for _, s in ipairs(shapes) do
    local name, args, test = s[1], s[2], s[3]
    local want = {}
    for i, p in ipairs(pts) do
      if (mask == nil or p[4] & mask ~= 0) and test(p[1], p[2], p[3]) then want[#want + 1] = i end
    end
    local call = { table.unpack(args) }
    call[#args + 1], call[#args + 2] = out, mask
    local n
    out, n = l[name](l, table.unpack(call, 1, #args + 2))
    assert.are.same(want, sorted(out, n), name)
    assert.is_nil(out[n + 1])
  end
end

-- The six queries of one rectangle, one ring and one polygon (unit: the polygon grid).
local function shapes_for(rect, ring, coords, unit)
  local q = ref.rect(table.unpack(rect))
  local p = assert(ref.polygon(coords, unit))
  local g = ring
  return {
    { "in_rect", rect, function(x, y) return ref.in_rect(q, x, y) end },
    { "touch_rect", rect, function(x, y, r) return ref.touch_rect(q, x, y, r) end },
    { "in_ring", ring, function(x, y) return ref.in_ring(g[1], g[2], g[3], g[4], x, y) end },
    { "touch_ring", ring, function(x, y, r) return ref.touch_ring(g[1], g[2], g[3], g[4], x, y, r) end },
    { "in_polygon", { coords }, function(x, y) return ref.in_polygon(p, x, y) end },
    { "touch_polygon", { coords }, function(x, y, r) return ref.touch_polygon(p, x, y, r) end },
  }
end

-- A layer of the given points plus, for each, its 8 neighbours one float32 step away.
local function scene_around(points, radius)
  local l, pts = soageo.layer(), {}
  for _, p in ipairs(points) do
    for _, dx in ipairs({ -1, 0, 1 }) do
      for _, dy in ipairs({ -1, 0, 1 }) do
        local x = dx == 0 and p[1] or step(p[1], dx)
        local y = dy == 0 and p[2] or step(p[2], dy)
        local i = #pts + 1
        l:set(i, x, y, radius(i), 1 << (i % 3))
        local sx, sy, sr, sm = l:get(i)
        pts[i] = { sx, sy, sr, sm }
      end
    end
  end
  return l, pts
end

-- Corners and edge points of the shapes below, in a scene scaled by `scale` (a power of two,
-- so every coordinate scales exactly): coordinates stay in [1, 128) * scale.
local function adversarial(scale)
  local s = function(v) return v * scale end
  local rect = { s(10), s(20), 3, 4, s(50), s(8) }                 -- direction (0.6, 0.8)
  local axis_rect = { s(10), s(20), 1, 0, s(50), s(8) }
  local ring = { s(60), s(60), s(20), s(30) }
  local coords = { s(40), s(40), s(80), s(40), s(100), s(60), s(100), s(80), s(70), s(100), s(40), s(70), s(40), s(55) }
  local pts = {}
  local add = function(x, y) pts[#pts + 1] = { x, y } end
  for k = 1, #coords, 2 do  -- vertices and edge midpoints (exact: coordinates are multiples of 2*scale)
    local nx = k + 2 > #coords and 1 or k + 2
    add(coords[k], coords[k + 1])
    add((coords[k] + coords[nx]) / 2, (coords[k + 1] + coords[nx + 1]) / 2)
  end
  for _, q in ipairs({ ref.rect(table.unpack(rect)), ref.rect(table.unpack(axis_rect)) }) do
    local nx, ny = -q.uy, q.ux
    for _, a in ipairs({ 0, q.length / 2, q.length }) do
      for _, b in ipairs({ -q.hw, 0, q.hw }) do add(q.ax + a * q.ux + b * nx, q.ay + a * q.uy + b * ny) end
    end
  end
  for _, d in ipairs({ { 1, 0 }, { 0, 1 }, { 0.6, 0.8 }, { -0.8, 0.6 } }) do  -- on both circles
    for _, rad in ipairs({ ring[3], ring[4] }) do add(ring[1] + d[1] * rad, ring[2] + d[2] * rad) end
  end
  return rect, axis_rect, ring, coords, pts
end

util.each_target(describe, setup, teardown, function(arch) return "when the " .. arch .. " target runs rect, ring and polygon queries" end, function(arch)

  describe("oriented rectangles", function()
    local r = { 0, 0, 2, 0, 10, 2 }  -- (dx, dy) = (2, 0): normalised to (1, 0)
    it("includes edges and corners, and nothing one float32 step outside", function()
      for _, p in ipairs({ { 0, 0 }, { 10, 2 }, { 10, -2 }, { 0, -2 }, { 5, 2 }, { 10, 0 } }) do
        assert.is_true(hit("in_rect", r, p))
      end
      assert.is_false(hit("in_rect", r, { step(10, 1), 0 }))
      assert.is_false(hit("in_rect", r, { 5, step(2, 1) }))
      assert.is_false(hit("in_rect", r, { -1e-45, 0 }))
      assert.is_true(hit("in_rect", r, { step(10, -1), step(2, -1) }))
    end)
    it("extends along the direction only, either way it points", function()
      assert.is_false(hit("in_rect", r, { -1, 0 }))
      assert.is_true(hit("in_rect", { 0, 0, -1, 0, 10, 2 }, { -1, 0 }))
      assert.is_true(hit("in_rect", { 0, 0, 0, -5, 10, 2 }, { 2, -10 }))
      assert.is_false(hit("in_rect", { 0, 0, 0, -5, 10, 2 }, { 2, 10 }))
    end)
    it("counts disks tangent to a side or a corner for touch_rect", function()
      assert.is_true(hit("touch_rect", r, { 13, 0, 3 }))
      assert.is_false(hit("touch_rect", r, { step(13, 1), 0, 3 }))
      assert.is_true(hit("touch_rect", r, { 13, 6, 5 }))      -- corner (10, 2) at distance 5
      assert.is_false(hit("touch_rect", r, { 13, 6, step(5, -1) }))
      assert.is_true(hit("touch_rect", r, { -1, 0, 1 }))      -- behind the start
    end)
    it("is a segment when half_width is 0 and a point when length is 0 too", function()
      assert.is_true(hit("in_rect", { 0, 0, 1, 0, 10, 0 }, { 5, 0 }))
      assert.is_false(hit("in_rect", { 0, 0, 1, 0, 10, 0 }, { 5, 1e-45 }))
      assert.is_true(hit("in_rect", { 3, 4, 1, 1, 0, 0 }, { 3, 4 }))
      assert.is_false(hit("in_rect", { 3, 4, 1, 1, 0, 0 }, { step(3, 1), 4 }))
      assert.is_true(hit("touch_rect", { 3, 4, 0, 1, 0, 0 }, { 6, 8, 5 }))
      assert.is_false(hit("touch_rect", { 3, 4, 0, 1, 0, 0 }, { 6, 8, step(5, -1) }))
    end)
    it("leaves a disk beyond float32 of the corner out, unless its reach squared is infinite", function()
      -- p = (inf, inf) with direction (0, 1): along and across are inf * 0 + inf, NaN
      local far = { -3e38, -3e38, 0, 1, 1, 1 }
      assert.is_false(hit("touch_rect", far, { 3e38, 3e38, 0 }))
      assert.is_false(hit("touch_rect", far, { 3e38, 0, 1e19 }))
      assert.is_true(hit("touch_rect", far, { 3e38, 3e38, 2e19 }))  -- r * r is infinite
      assert.is_false(hit("in_rect", far, { 3e38, 3e38 }))
      local q = ref.rect(table.unpack(far))
      assert.is_false(ref.touch_rect(q, 3e38, 3e38, 0))
      assert.is_true(ref.touch_rect(q, 3e38, 3e38, 2e19))
    end)
  end)

  describe("rings", function()
    it("keeps the inner edge and drops the outer one for in_ring", function()
      local g = { 0, 0, 5, 10 }
      assert.is_true(hit("in_ring", g, { 3, 4 }))
      assert.is_true(hit("in_ring", g, { 6, 8 - 1e-6 }))
      assert.is_false(hit("in_ring", g, { 6, 8 }))
      assert.is_false(hit("in_ring", g, { step(3, -1), 4 }) and hit("in_ring", g, { 3, step(4, -1) }))
      assert.is_false(hit("in_ring", g, { 0, 0 }))
      assert.is_false(hit("in_ring", { 0, 0, 5, 5 }, { 3, 4 }))  -- inner = outer: empty
      assert.is_true(hit("in_ring", { 0, 0, 0, 1 }, { 0, 0 }))   -- inner 0: a circle with its centre
    end)
    it("counts disks reaching into the annulus for touch_ring", function()
      local g = { 0, 0, 5, 10 }
      assert.is_true(hit("touch_ring", g, { 13, 0, 3 }))
      assert.is_false(hit("touch_ring", g, { step(13, 1), 0, 3 }))
      assert.is_true(hit("touch_ring", g, { 1, 0, 4 }))          -- reaches the inner edge
      assert.is_false(hit("touch_ring", g, { 1, 0, step(4, -1) }))
      assert.is_true(hit("touch_ring", g, { 0, 0, 5 }))          -- fills the hole
      assert.is_true(hit("touch_ring", { 0, 0, 5, 5 }, { 3, 4, 0 }))  -- the thin ring is a circle line
      assert.is_false(hit("touch_ring", { 0, 0, 5, 5 }, { 0, 0, step(5, -1) }))
    end)
  end)

  describe("convex polygons", function()
    local square = { 0, 0, 4, 0, 4, 4, 0, 4 }
    it("includes edges and vertices in either winding, with collinear vertices", function()
      local windings = { square, { 0, 0, 0, 4, 4, 4, 4, 0 }, { 0, 0, 2, 0, 4, 0, 4, 4, 0, 4, 0, 2 }, { 0, 4, 4, 4, 4, 0, 2, 0, 0, 0 } }
      for _, c in ipairs(windings) do
        for _, p in ipairs({ { 0, 0 }, { 4, 4 }, { 2, 0 }, { 4, 1 }, { 2, 2 } }) do assert.is_true(hit("in_polygon", { c }, p)) end
        for _, p in ipairs({ { step(4, 1), 1 }, { 2, -1e-45 }, { 5, 5 } }) do assert.is_false(hit("in_polygon", { c }, p)) end
      end
    end)
    it("decides points a hair off a slanted edge exactly", function()
      local tri = { 261.137939, 8.13000488, 200, 8.13000488, 73.6379318, 8.13000488, 76.9379349, 10.2300053 }
      assert.is_false(hit("in_polygon", { tri }, { 74.4069519, 8.6193819 }))
      assert.is_true(hit("in_polygon", { tri }, { 74.4069519, 8.5 }))
    end)
    it("counts disks tangent to an edge or a vertex for touch_polygon", function()
      assert.is_true(hit("touch_polygon", { square }, { 2, -3, 3 }))
      assert.is_false(hit("touch_polygon", { square }, { 2, -3, step(3, -1) }))
      assert.is_true(hit("touch_polygon", { square }, { 7, 8, 5 }))  -- vertex (4, 4)
      assert.is_true(hit("touch_polygon", { square }, { 1, 1, 0 }))
    end)
  end)

  for _, case in ipairs({ { "1", 1, 2 ^ -23 }, { "1e-30", 2 ^ -100, 2 ^ -123 }, { "1e7", 2 ^ 23, 1 } }) do
    it("matches the references on corners, edges and one step off, at scale " .. case[1], function()
      local rect, axis_rect, ring, coords, points = adversarial(case[2])
      local radius = function(i) return i % 4 == 0 and 0 or (i % 7) * case[2] end
      local l, pts = scene_around(points, radius)
      local shapes = shapes_for(rect, ring, coords, case[3])
      table.insert(shapes, { "in_rect", axis_rect, function(x, y) return ref.in_rect(ref.rect(table.unpack(axis_rect)), x, y) end })
      local reversed = {}
      for k = #coords - 1, 1, -2 do reversed[#reversed + 1] = coords[k]; reversed[#reversed + 1] = coords[k + 1] end
      local p = ref.polygon(reversed, case[3])
      table.insert(shapes, { "touch_polygon", { reversed }, function(x, y, r) return ref.touch_polygon(p, x, y, r) end })
      check_scene(l, pts, shapes)
      check_scene(l, pts, shapes, 2)
      local zero = { ring[1], ring[2], ring[4], ring[4] }
      check_scene(l, pts, { { "in_ring", zero, function(x, y) return ref.in_ring(zero[1], zero[2], zero[3], zero[4], x, y) end },
        { "touch_ring", zero, function(x, y, r) return ref.touch_ring(zero[1], zero[2], zero[3], zero[4], x, y, r) end } })
    end)
  end

  describe("when scenes are random", function()
    local g = rng.new(1414)
    -- Coordinates on a 2^-10 grid in [1, 127], so the polygon reference's 2^-23 unit holds.
    local grid = function(lo, hi) return g:int(lo * 1024, hi * 1024) / 1024 end
    for _, size in ipairs({ 0, 1, 7, 8, 9, 16, 17, 2000 }) do
      it("returns what the references return for " .. size .. " entities", function()
        local pts, l = {}, soageo.layer()
        for i = 1, size do
          l:set(i, grid(1, 127), grid(1, 127), grid(0, 5), 1 << g:int(0, 2))
          local x, y, r, m = l:get(i)
          pts[i] = { x, y, r, m }
        end
        local accepted = 0
        for _ = 1, (size > 100 and 8 or 20) do
          local rect = { grid(1, 127), grid(1, 127), grid(-1, 1), grid(-1, 1), grid(0, 60), grid(0, 20) }
          if rect[3] == 0 and rect[4] == 0 then rect[3] = 1 end
          local outer = grid(0, 60)
          local ring = { grid(1, 127), grid(1, 127), g:int(0, 4) == 0 and outer or grid(0, outer), outer }
          -- A polygon from sorted angles on an ellipse, on the grid: rounding can make it
          -- non-convex, and then the binding must refuse it exactly when the reference does.
          local m, angles, coords = g:int(3, 12), {}, {}
          for k = 1, m do angles[k] = g:uniform(0, 2 * math.pi) end
          table.sort(angles)
          local cx, cy, rx, ry = grid(30, 97), grid(30, 97), grid(1, 29), grid(1, 29)
          for k = 1, m do
            coords[2 * k - 1] = math.floor((cx + rx * math.cos(angles[k])) * 1024) / 1024
            coords[2 * k] = math.floor((cy + ry * math.sin(angles[k])) * 1024) / 1024
          end
          local p, why = ref.polygon(coords, 2 ^ -23)
          local ok = pcall(l.in_polygon, l, coords)
          assert.are.equal(p ~= nil, ok, why)
          local mask = g:int(0, 1) == 1 and 3 or nil
          if p then
            accepted = accepted + 1
            check_scene(l, pts, shapes_for(rect, ring, coords, 2 ^ -23), mask)
          else
            check_scene(l, pts, { table.unpack(shapes_for(rect, ring, { 1, 1, 2, 1, 1, 2 }, 2 ^ -23), 1, 4) }, mask)
          end
        end
        assert.is_true(accepted > 0)
      end)
    end
  end)
end)

describe("rect, ring and polygon batches", function()
  local g = rng.new(99)
  local l = soageo.layer()
  for i = 1, 3000 do l:set(i, g:uniform(0, 500), g:uniform(0, 500), g:uniform(0, 4), 1 << g:int(0, 1)) end
  local function polygon()
    local cx, cy, r, coords = g:uniform(50, 450), g:uniform(50, 450), g:uniform(5, 50), {}
    local m = g:int(3, 9)
    for k = 1, m do
      coords[#coords + 1] = cx + r * math.cos(2 * math.pi * k / m)
      coords[#coords + 1] = cy + r * math.sin(2 * math.pi * k / m)
    end
    return coords
  end
  for _, prefix in ipairs({ "in_", "touch_" }) do
    it("returns the (shape, id) pairs of 30 single " .. prefix .. "polygon queries, in order", function()
      local polys, want = {}, {}
      for s = 1, 30 do
        polys[s] = polygon()
        local out, n = l[prefix .. "polygon"](l, polys[s], nil, 2)
        for i = 1, n do want[#want + 1] = s; want[#want + 1] = out[i] end
      end
      local out = {}
      for i = 1, #want + 10 do out[i] = "stale" end
      local got, n = l[prefix .. "polygon_batch"](l, polys, out, 2)
      assert.are.equal(out, got)
      util.same_pairs(assert, want, got, n)
    end)
  end
  it("checks every polygon before running any, naming the polygon and the vertex", function()
    local before = l:dump()
    local method = util.method
    local cases = {
      { { { 0, 0, 1, 0, 1, 1 }, { 0, 0, 2, 0, 1, 0.5, 2, 2, 0, 2 } }, "bad argument #1 to 'in_polygon_batch' (polygon 2: polygon is not convex at vertex 3)" },
      { { { 0, 0, 1, 0, 1, 1 }, 5 }, "bad argument #1 to 'in_polygon_batch' (polygon 2 must be a table of coordinates)" },
      { { { 0, 0, 1, 0, 1 } }, "bad argument #1 to 'in_polygon_batch' (polygon 1: coords must hold x, y pairs (got 5 numbers))" },
      { { { 0, 0, 1, 0, 1, 0 / 0 } }, "bad argument #1 to 'in_polygon_batch' (polygon 1: vertex 3 must be two finite numbers)" },
    }
    for _, c in ipairs(cases) do
      assert.has_error(function() method("in_polygon_batch")(l, c[1]) end, c[2])
      assert.are.equal(before, l:dump())
    end
  end)
end)

describe("rect, ring and polygon queries", function()
  describe("when given bad input", function()
    local l = layer_of({ { 1, 1, 1 } })
    local nan, inf = 0 / 0, math.huge
    local cases = {
      { "in_rect", { nan, 0, 1, 0, 1, 1 }, "bad argument #1 to 'in_rect' (x must be finite)" },
      { "in_rect", { 0, 0, 0, 0, 1, 1 }, "bad argument #3 to 'in_rect' (direction (dx, dy) must not be zero)" },
      { "touch_rect", { 0, 0, 1, inf, 1, 1 }, "bad argument #4 to 'touch_rect' (dy must be finite)" },
      { "in_rect", { 0, 0, 1, 0, -1, 1 }, "bad argument #5 to 'in_rect' (length must be finite and >= 0)" },
      { "touch_rect", { 0, 0, 1, 0, 1, -0.5 }, "bad argument #6 to 'touch_rect' (half_width must be finite and >= 0)" },
      { "in_rect", { 0, 0, 1, 0, 1, 1, 5 }, "bad argument #7 to 'in_rect' (table or nil expected, got number)" },
      { "in_rect", { 0, 0, 1, 0, 1, 1, nil, -1 }, "bad argument #8 to 'in_rect' (mask must be an integer in [0, 0xffffffff])" },
      { "in_ring", { 0, 0, 2, 1 }, "bad argument #4 to 'in_ring' (outer must be >= inner)" },
      { "touch_ring", { 0, 0, -1, 1 }, "bad argument #3 to 'touch_ring' (inner must be finite and >= 0)" },
      { "in_ring", { 0, 1e39, 0, 1 }, "bad argument #2 to 'in_ring' (y must be finite)" },
      { "touch_ring", { 0, 0, 0, nan }, "bad argument #4 to 'touch_ring' (outer must be finite and >= 0)" },
      { "in_polygon", { 5 }, "bad argument #1 to 'in_polygon' (table expected, got number)" },
      { "in_polygon", { { 0, 0, 1, 0 } }, "bad argument #1 to 'in_polygon' (coords must hold 3 to 64 vertices (got 2))" },
      { "in_polygon", { { 0, 0, 1, 0, 1 } }, "bad argument #1 to 'in_polygon' (coords must hold x, y pairs (got 5 numbers))" },
      { "touch_polygon", { { 0, 0, 1, 0, "1", 1 } }, "bad argument #1 to 'touch_polygon' (vertex 3 must be two finite numbers)" },
      { "in_polygon", { { 0, 0, 1, inf, 1, 1 } }, "bad argument #1 to 'in_polygon' (vertex 2 must be two finite numbers)" },
      { "in_polygon", { { 0, 0, 2, 0, 2, 2, 1, 1, 0, 2 } }, "bad argument #1 to 'in_polygon' (polygon is not convex at vertex 4)" },
      { "in_polygon", { { 0, 0, 2, 0, 1, 0, 1, 1 } }, "bad argument #1 to 'in_polygon' (polygon is not convex at vertex 2 (it turns back))" },
      { "in_polygon", { { 0, 0, 1, 1, 1, 1, 0, 0 } }, "bad argument #1 to 'in_polygon' (polygon needs 3 distinct vertices (vertex 3 repeats its neighbour))" },
      { "in_polygon", { { 1, 0, -0.809, 0.588, 0.309, -0.951, 0.309, 0.951, -0.809, -0.588 } }, "bad argument #1 to 'in_polygon' (polygon is not convex (it winds around more than once))" },
      { "in_polygon", { { 0, 0, 1, 0, 1, 1 }, 3 }, "bad argument #2 to 'in_polygon' (table or nil expected, got number)" },
      { "in_rect_batch", { { 0, 0, 0, 0, 1, 1 } }, "bad argument #1 to 'in_rect_batch' (shape 1 has a zero direction)" },
      { "touch_rect_batch", { { 0, 0, 1, 0, 1, -1 } }, "bad argument #1 to 'touch_rect_batch' (shape 1 has a negative half_width)" },
      { "in_ring_batch", { { 0, 0, 1, 2, 0, 0, 3, 2 } }, "bad argument #1 to 'in_ring_batch' (shape 2 has inner > outer)" },
      { "touch_ring_batch", { { 0, 0, 1 } }, "bad argument #1 to 'touch_ring_batch' (params must hold 4 numbers per shape (x, y, inner, outer))" },
      { "in_triangle_batch", { { 0, 0, 1, 0, 1, nan } }, "bad argument #1 to 'in_triangle_batch' (shape 1 must be finite numbers)" },
    }
    local method = util.method
    for _, case in ipairs(cases) do
      it("raises " .. case[3] .. " and leaves the layer unchanged", function()
        local before = l:dump()
        assert.has_error(function() method(case[1])(l, table.unpack(case[2], 1, 8)) end, case[3])
        assert.are.equal(before, l:dump())
      end)
    end
  end)
end)

describe("when finalizers run inside a polygon batch", function()
  it("survives the layer growing and refuses polygons edited meanwhile, never a mixed answer", function()
    local l = soageo.layer(16)
    for i = 1, 800 do l:set(i, (i * 37) % 400, (i * 91) % 400, 1) end
    local polys = {}
    for k = 1, 40 do polys[k] = { 0, 0, 400, 0, 400, 400, 0, 400 } end  -- every entity, 40 times
    local next_id, edit = 100000, false
    local mt = { __gc = function()
      for _ = 1, 20 do next_id = next_id + 1; l:set(next_id, next_id % 400, (next_id * 7) % 400, 1) end
      l:in_polygon({ 0, 0, 10, 0, 0, 10 })
      if edit then polys[40][3] = 0 / 0 end
    end }
    collectgarbage("generational")
    local grown, refused = false, false
    for round = 1, 8 do
      edit = round > 4
      for _ = 1, 50 do setmetatable({}, mt) end
      local before = #l
      local ok, out, n = pcall(l.touch_polygon_batch, l, polys)
      if ok then
        assert.are.equal(2 * n, #out)
        for i = 1, n do assert.is_truthy(l:get(out[2 * i])) end  -- every id is a real entity
        grown = grown or #l > before
      else
        -- edited before the call (checked up front) or during it (checked again per polygon)
        assert.matches("polygon 40", out)
        assert.matches("vertex 2 must be two finite numbers", out)
        refused = true
        polys[40][3] = 400
      end
    end
    collectgarbage("incremental")
    -- Every pending finalizer runs now, and none during the loop: one adding entities there
    -- would (rightly) make each() raise.
    collectgarbage(); collectgarbage()
    collectgarbage("stop")
    local count = 0
    for id in l:each() do count = count + 1; assert.is_truthy(l:get(id)) end
    collectgarbage("restart")
    assert.are.equal(#l, count)
    assert.is_true(count > 800)  -- the finalizers did run and grow the layer
    assert.is_true(grown or refused)
  end)
end)
