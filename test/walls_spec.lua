-- soageo.walls against the exact plain-Lua reference (test/walls_reference.lua) on integer
-- lattices scaled by 1/4, where collinear walls, shared ends, zero-length walls and queries,
-- and rays through wall ends are common; on every SIMD target.
local soageo = require "soageo"
local ref = require "walls_reference"
local rng = require "rng"
local util = require "spec_util"

local Q = 0.25  -- the module sees integer coordinates times Q: exact in float32 and doubles

local function scaled(list)
  local out = {}
  for i, v in ipairs(list) do out[i] = v * Q end
  return out
end

-- Walls from a small pool of points (shared ends), on a few lines (collinear runs), some of
-- them points.
local function random_walls(g, n, span)
  local pool = {}
  for i = 1, 12 do pool[i] = { g:int(-span, span), g:int(-span, span) } end
  local walls = {}
  for i = 1, n do
    local kind = g:int(1, 6)
    local a = pool[g:int(1, #pool)]
    local w
    if kind == 1 then w = { a[1], a[2], a[1], a[2] }                                  -- a point
    elseif kind == 2 then local b = pool[g:int(1, #pool)]; w = { a[1], a[2], b[1], b[2] }  -- shared ends
    elseif kind == 3 then local y = g:int(-3, 3) * 2; w = { g:int(-span, span), y, g:int(-span, span), y }  -- on few rows
    elseif kind == 4 then local x = g:int(-3, 3) * 2; w = { x, g:int(-span, span), x, g:int(-span, span) }
    elseif kind == 5 then local s, l = g:int(-span, span), g:int(-6, 6); w = { s, s, s + l, s + l }  -- the diagonal
    else w = { a[1], a[2], a[1] + g:int(-8, 8), a[2] + g:int(-8, 8) } end
    walls[i] = w
  end
  return walls
end

local function random_query(g, walls, span)
  local kind = g:int(1, 5)
  local function wall_end()
    local w = walls[g:int(1, #walls)]
    if g:int(0, 1) == 0 then return w[1], w[2] end
    return w[3], w[4]
  end
  if kind == 1 and #walls > 0 then  -- from a wall end
    local x, y = wall_end()
    return { x, y, g:int(-span, span), g:int(-span, span) }
  elseif kind == 2 and #walls > 0 then  -- through a wall end: twice the way to it
    local x, y = wall_end()
    local sx, sy = g:int(-span, span), g:int(-span, span)
    return { sx, sy, 2 * x - sx, 2 * y - sy }
  elseif kind == 3 then  -- a point
    local x, y = g:int(-span, span), g:int(-span, span)
    return { x, y, x, y }
  elseif kind == 4 then  -- along the rows and the diagonal the walls use
    local y = g:int(-3, 3) * 2
    if g:int(0, 1) == 0 then return { g:int(-span, span), y, g:int(-span, span), y } end
    local s, k = g:int(-span, span), g:int(-10, 10)
    return { s, s, s + k, s + k }
  end
  return { g:int(-span, span), g:int(-span, span), g:int(-span, span), g:int(-span, span) }
end

local function flat(walls)
  local c = {}
  for _, w in ipairs(walls) do for j = 1, 4 do c[#c + 1] = w[j] * Q end end
  return c
end

util.each_target(describe, setup, teardown, function(arch) return "when walls are queried on target " .. arch end, function(arch)

  it("returns the reference's blocked, cast and visible on random lattice scenes", function()
    local g = rng.new(3301)
    for scene = 1, 60 do
      local span = 6 + scene % 10
      local walls = random_walls(g, g:int(0, 40), span)
      local w = soageo.walls(flat(walls))
      assert.are.equal(#walls, #w)
      for _ = 1, 80 do
        local q = random_query(g, walls, span + 2)
        local sq = scaled(q)
        local rt, ri = ref.walls_cast(walls, q)
        util.same_cast(assert, w, rt, ri, table.unpack(sq))
      end
    end
  end)

  it("returns the ids the reference sees, in order, into out or in place", function()
    local g = rng.new(3302)
    for scene = 1, 40 do
      local span = 8
      local walls = random_walls(g, g:int(0, 30), span)
      local w = soageo.walls(flat(walls))
      local l = soageo.layer()
      local pts, ids = {}, {}
      for id = 1, 30 do
        pts[id] = { g:int(-span, span), g:int(-span, span) }
        l:set(id * 7, pts[id][1] * Q, pts[id][2] * Q)
        ids[#ids + 1] = id * 7
      end
      for _ = 1, 10 do
        local vx, vy
        if g:int(0, 2) == 0 and #walls > 0 then local ww = walls[g:int(1, #walls)]; vx, vy = ww[1], ww[2]
        else vx, vy = g:int(-span, span), g:int(-span, span) end
        local want = {}
        for id = 1, 30 do
          if ref.walls_visible(walls, { vx, vy, pts[id][1], pts[id][2] }) then want[#want + 1] = id * 7 end
        end
        local out, m = w:visible(vx * Q, vy * Q, l, ids)
        assert.are.same(want, out)
        assert.are.equal(#want, m)
        local copy = { table.unpack(ids) }
        local same, m2 = w:visible(vx * Q, vy * Q, l, copy, nil, copy)
        assert.are.equal(copy, same)
        assert.are.same(want, copy)
        assert.are.equal(m, m2)
      end
    end
  end)

  it("returns blocked_many as one blocked per query", function()
    local g = rng.new(3303)
    local walls = random_walls(g, 30, 10)
    local w = soageo.walls(flat(walls))
    local coords, want = {}, {}
    for k = 1, 50 do
      local q = random_query(g, walls, 12)
      for j = 1, 4 do coords[#coords + 1] = q[j] * Q end
      want[k] = ref.walls_blocked(walls, q)
    end
    local out, n = w:blocked_many(coords)
    assert.are.same(want, out)
    assert.are.equal(50, n)
    local reuse = { true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true,
      true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true,
      true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, "x", "y" }
    local same = w:blocked_many(coords, reuse)
    assert.are.equal(reuse, same)
    assert.are.same(want, reuse)
  end)
end)

describe("when walls meet the rules' boundary cases", function()
  local w = soageo.walls({ 0, 0, 10, 0,  5, -5, 5, 5,  5, 0, 7, -2,  3, 3, 3, 3,  20, 0, 14, 0 })

  it("returns the lowest wall at an exact tie (shared end on the ray)", function()
    local t, i = w:cast(5, 5, 5, -10)  -- along wall 2, through wall 1 at (5, 0) and wall 3's end
    assert.are.equal(2, i)
    assert.are.equal(0, t)
    t, i = w:cast(4, 1, 6, -1)  -- crosses walls 1, 2, 3 at (5, 0)
    assert.are.equal(1, i)
    assert.are.equal(0.5, t)
  end)

  it("returns the first point of a collinear overlap", function()
    local t, i = w:cast(30, 0, 12, 0)
    assert.are.equal(5, i)
    assert.is_true(math.abs(t - 10 / 18) < 1e-12)
  end)

  it("returns zero-length walls and queries as points", function()
    assert.is_true(w:blocked(3, 3, 3, 3))
    assert.is_false(w:blocked(3, 3.25, 3, 3.25))
    assert.is_true(w:blocked(2, 2, 4, 4))
    assert.is_true(w:blocked(7, 0, 7, 0))  -- on wall 1
    local t, i = w:cast(3, 0, 3, 0)
    assert.are.equal(0, t)
    assert.are.equal(1, i)
    -- A point wall at the start of a ray heading to negative x and y: t is +0, not -0.
    t, i = w:cast(3, 3, 2, 2)
    assert.are.equal(4, i)
    assert.are.equal("0.0", tostring(t))
  end)

  it("returns visible across a wall touched only at the viewer or only at the target", function()
    local l = soageo.layer()
    l:set(1, 2, 2)     -- seen from (2, 0) on wall 1: touches only at the viewer
    l:set(2, 12, 0)    -- from (16, 0): wall 5 overlaps the segment beyond its end
    l:set(3, 14, -3)   -- from (14, 3): wall 5's end at (14, 0) is inside the segment
    l:set(4, 5, 0)     -- the target at the crossing of walls 1, 2, 3
    l:set(5, 3, 3)     -- the target on the point wall
    assert.are.same({ 1 }, (w:visible(2, 0, l, { 1 })))
    assert.are.same({}, (w:visible(16, 0, l, { 2 })))
    assert.are.same({}, (w:visible(14, 3, l, { 3 })))
    assert.are.same({ 4 }, (w:visible(6, 3, l, { 4 })))
    assert.are.same({ 4 }, (w:visible(8, -1, l, { 4 })))
    -- along wall 2, or along wall 3 from beyond its far end: collinear overlaps block
    assert.are.same({}, (w:visible(5, 3, l, { 4 })))
    assert.are.same({}, (w:visible(8, -3, l, { 4 })))
    assert.are.same({ 5 }, (w:visible(1, 1, l, { 5 })))
    -- a collinear wall holding the viewer and more of the segment blocks; one that holds only
    -- the viewer's point of it (it goes the other way) does not
    assert.are.same({}, (w:visible(15, 0, l, { 2 })))
    assert.are.same({ 2 }, (w:visible(14, 0, l, { 2 })))
    -- the viewer on the target: nothing between
    assert.are.same({ 5 }, (w:visible(3, 3, l, { 5 })))
  end)

  it("returns the count and honours n", function()
    local l = soageo.layer()
    l:set(1, 1, 1); l:set(2, 1, -1); l:set(3, 2, 1)
    local out, m = w:visible(1, 2, l, { 1, 2, 3 }, 2)
    assert.are.same({ 1 }, out)
    assert.are.equal(1, m)
    out, m = w:visible(1, 2, l, { 1, 2, 3 }, 0)
    assert.are.same({}, out)
    assert.are.equal(0, m)
  end)

  it("returns get, # and the rounded float32 values", function()
    local v = soageo.walls({ 0.1, 0, 1, 2 })
    local x0, y0, x1, y1 = v:get(1)
    assert.are.equal(string.unpack("f", string.pack("f", 0.1)), x0)
    assert.are.same({ 0, 1, 2 }, { y0, x1, y1 })
    assert.are.equal(1, #v)
  end)

  it("returns nothing for empty walls and raises once closed", function()
    local e = soageo.walls({})
    assert.are.equal(0, #e)
    assert.is_false(e:blocked(0, 0, 1, 1))
    assert.is_nil(e:cast(0, 0, 1, 1))
    local v <close> = soageo.walls({ 0, 0, 1, 1 })
    v:close()
    v:close()
    assert.has_error(function() v:blocked(0, 0, 1, 1) end)
    assert.truthy(tostring(v):find("closed"))
  end)

  it("returns the same answers far from the origin and at float32's extremes", function()
    local big = 2 ^ 24
    local v = soageo.walls({ -big, 1, big, 1,  1e30, 1e30, 1e30, 1e30,  -3e38, 1e38, 3e38, 1e38 })
    local t, i = v:cast(0, 0, 0, 1)
    assert.are.equal(1, i)
    assert.are.equal(1, t)
    assert.is_true(v:blocked(1e30, 1e30, 1e30, 1e30))
    t, i = v:cast(-3e38, 3e38, 3e38, -3e38)
    assert.are.equal(3, i)
    local f32 = require("float32").f32
    local f3, f1 = f32(3e38), f32(1e38)
    assert.is_true(math.abs(t - (f3 - f1) / (2 * f3)) < 1e-9)
  end)
end)

describe("when a ring is outlined", function()
  it("returns one wall per edge, the last closing the ring", function()
    assert.are.same({ 0, 0, 4, 0, 4, 0, 4, 4, 4, 4, 0, 0 }, soageo.outline({ 0, 0, 4, 0, 4, 4 }))
  end)

  it("returns the same walls for a ring written closed", function()
    assert.are.same(soageo.outline({ 0, 0, 4, 0, 4, 4 }), soageo.outline({ 0, 0, 4, 0, 4, 4, 0, 0 }))
  end)

  it("keeps a last vertex that repeats only the first one's x", function()
    assert.are.equal(16, #soageo.outline({ 0, 0, 4, 0, 4, 4, 0, 3 }))
  end)

  it("appends to out after what it holds", function()
    local out = soageo.outline({ 1, 1, 2, 2 }, { 9 })
    assert.are.same({ 9, 1, 1, 2, 2, 2, 2, 1, 1 }, out)
  end)

  it("returns the walls a set of walls blocks with", function()
    local walls = soageo.walls(soageo.outline({ 0, 0, 4, 0, 4, 4, 0, 4, 0, 0 }))
    assert.are.equal(4, #walls)
    assert.is_true(walls:blocked(2, 2, 6, 2))
    assert.is_false(walls:blocked(1, 1, 3, 3))
  end)
end)
