-- soageo.tiles against the exact plain-Lua reference (test/walls_reference.lua): maps whose
-- edges fall on an integer lattice scaled by 1/8, with queries on that lattice, so that rays
-- along tile edges, through corners, from corners and zero-length ones are common; on every
-- SIMD target. Then edges that are no float32 value, doors (set), and the rules' corner cases.
local soageo = require "soageo"
local ref = require "walls_reference"
local rng = require "rng"
local util = require "spec_util"
local f32 = require("float32").f32

local Q = 0.125

-- A map of cols x rows cells, `percent` of them blocked at random; its cells (cell, x0, y0:
-- 4, -6, 2 unless given) on the lattice.
local function random_map(g, cols, rows, percent, cell, x0, y0)
  local map = { cols = cols, rows = rows, cell = cell or 4, x0 = x0 or -6, y0 = y0 or 2, blocked = {} }
  local bytes = {}
  for k = 0, cols * rows - 1 do
    local b = g:int(1, 100) <= percent
    map.blocked[k] = b or nil
    bytes[k + 1] = b and "1" or "0"
  end
  return map, table.concat(bytes)
end

local function random_query(g, map)
  local function lattice() return g:int(-12, map.x0 + map.cols * map.cell + 6), g:int(-4, map.y0 + map.rows * map.cell + 6) end
  local function corner()
    return map.x0 + g:int(-1, map.cols + 1) * map.cell, map.y0 + g:int(-1, map.rows + 1) * map.cell
  end
  local kind = g:int(1, 6)
  local ax, ay, bx, by
  if kind == 1 then ax, ay = corner(); bx, by = corner()                    -- corner to corner: edges, diagonals
  elseif kind == 2 then ax, ay = corner(); local k = g:int(-6, 6); bx, by = ax + 4 * k, ay + 4 * k  -- a diagonal through corners
  elseif kind == 3 then ax, ay = lattice(); bx, by = ax, ay                  -- a point
  elseif kind == 4 then ax, ay = corner(); bx, by = lattice()
  elseif kind == 5 then local _; _, ay = corner(); ax = g:int(-12, 30); bx, by = g:int(-12, 30), ay  -- along a row edge
  else ax, ay = lattice(); bx, by = lattice() end
  return { ax, ay, bx, by }
end

local function module_map(map, bytes)
  return soageo.tiles(map.cols, map.rows, map.cell * Q, bytes, map.x0 * Q, map.y0 * Q)
end

local function scaled(q) return q[1] * Q, q[2] * Q, q[3] * Q, q[4] * Q end

util.each_target(describe, setup, teardown, function(arch) return "when tiles are queried on target " .. arch end, function(arch)

  it("returns the reference's blocked, cast and visible on random maps", function()
    local g = rng.new(3311)
    for _ = 1, 25 do
      local map, bytes = random_map(g, g:int(1, 8), g:int(1, 6), 30)
      local tiles = module_map(map, bytes)
      for _ = 1, 120 do
        local q = random_query(g, map)
        local rt, rk = ref.tiles_cast(map, q)
        util.same_cast(assert, tiles, rt, rk, scaled(q))
      end
    end
  end)

  -- The cells are stored in 8 x 8 bit blocks: a map of several blocks each way, whose side
  -- is no multiple of 8, with rays that cross block boundaries, run along them and through
  -- their corners (the small maps above fit in one block).
  it("returns the reference's answers on a map of several 8 x 8 blocks", function()
    local g = rng.new(3313)
    local cols, rows = 21, 17
    for _ = 1, 3 do
      local map, bytes = random_map(g, cols, rows, 12, 3, -5, 7)
      local tiles = module_map(map, bytes)
      local function edge_x(c) return map.x0 + c * map.cell end
      local function edge_y(r) return map.y0 + r * map.cell end
      local function block_x() return edge_x(8 * g:int(0, 3)) end  -- 0, 8, 16, 24: block edges
      local function block_y() return edge_y(8 * g:int(0, 2)) end
      local function anywhere() return g:int(-12, edge_x(cols) + 6), g:int(0, edge_y(rows) + 6) end
      local function corner() return edge_x(g:int(-1, cols + 1)), edge_y(g:int(-1, rows + 1)) end
      local function query()
        local kind = g:int(1, 8)
        if kind == 1 then local ax, ay = corner(); local bx, by = corner(); return { ax, ay, bx, by } end
        if kind == 2 then  -- a diagonal through cell corners, often across a block corner
          local ax, ay = block_x(), block_y()
          local k, s = g:int(1, 12), g:int(0, 1) * 2 - 1
          return { ax - 3 * k, ay - 3 * k * s, ax + 3 * k, ay + 3 * k * s }
        end
        if kind == 3 then local ax, ay = anywhere(); local y = block_y(); return { ax, y, g:int(-12, 70), y } end
        if kind == 4 then local x = block_x(); local _, ay = anywhere(); local _, by = anywhere(); return { x, ay, x, by } end
        if kind == 5 then  -- along a row or column edge
          if g:int(0, 1) == 0 then local y = edge_y(g:int(0, rows)); return { g:int(-12, 70), y, g:int(-12, 70), y } end
          local x = edge_x(g:int(0, cols)); return { x, g:int(0, 65), x, g:int(0, 65) }
        end
        if kind == 6 then  -- long, across the map through several blocks
          return { g:int(-12, 0), g:int(0, 12), g:int(50, 70), g:int(50, 65) }
        end
        if kind == 7 then local ax, ay = anywhere(); return { ax, ay, ax, ay } end
        local ax, ay = anywhere(); local bx, by = anywhere(); return { ax, ay, bx, by }
      end
      for _ = 1, 150 do
        local q = query()
        local rt, rk = ref.tiles_cast(map, q)
        util.same_cast(assert, tiles, rt, rk, scaled(q))
      end
      -- visible: targets on cell corners (block corners among them) and anywhere.
      local l = soageo.layer()
      local pts, ids = {}, {}
      for id = 1, 40 do
        local x, y
        if id % 4 == 0 then x, y = block_x(), block_y()
        elseif id % 4 == 1 then x, y = corner()
        else x, y = anywhere() end
        pts[id] = { x, y }
        l:set(id, x * Q, y * Q)
        ids[id] = id
      end
      for _ = 1, 8 do
        local v = pts[g:int(1, 40)]
        local want = {}
        for id = 1, 40 do
          if ref.tiles_visible(map, { v[1], v[2], pts[id][1], pts[id][2] }) then want[#want + 1] = id end
        end
        local out, m = tiles:visible(v[1] * Q, v[2] * Q, l, ids)
        assert.are.same(want, out)
        assert.are.equal(#want, m)
      end
    end
  end)

  it("returns the ids the reference sees, and follows set (doors)", function()
    local g = rng.new(3312)
    for _ = 1, 15 do
      local map, bytes = random_map(g, 6, 5, 30)
      local tiles = module_map(map, bytes)
      local l = soageo.layer()
      local pts, ids = {}, {}
      for id = 1, 25 do
        local x, y
        if id % 3 == 0 then x, y = map.x0 + g:int(0, 6) * 4, map.y0 + g:int(0, 5) * 4  -- on corners
        else x, y = g:int(-8, 22), g:int(-2, 24) end
        pts[id] = { x, y }
        l:set(id, x * Q, y * Q)
        ids[id] = id
      end
      for round = 1, 6 do
        if round > 1 then  -- open or close a door
          local c, r = g:int(0, 5), g:int(0, 4)
          local b = g:int(0, 1) == 1
          tiles:set(c, r, b)
          map.blocked[r * 6 + c] = b or nil
        end
        local vx, vy = pts[g:int(1, 25)][1], pts[g:int(1, 25)][2]
        local want = {}
        for id = 1, 25 do
          if ref.tiles_visible(map, { vx, vy, pts[id][1], pts[id][2] }) then want[#want + 1] = id end
        end
        local out, m = tiles:visible(vx * Q, vy * Q, l, ids)
        assert.are.same(want, out)
        assert.are.equal(#want, m)
        local coords, many = {}, {}
        for k = 1, 20 do
          local q = random_query(g, map)
          for j = 1, 4 do coords[#coords + 1] = q[j] * Q end
          many[k] = ref.tiles_blocked(map, q)
        end
        assert.are.same(many, (tiles:blocked_many(coords)))
      end
    end
  end)
end)

-- The float32 value next to v (positive v), up (+1) or down (-1).
local function next_float(v, dir)
  local bits = string.unpack("<I4", string.pack("<f", v))
  return (string.unpack("<f", string.pack("<I4", bits + dir)))
end

describe("when tile edges are no float32 value", function()
  it("returns decisions against the exact sum x0 + col * cell", function()
    local x0, cell = f32(0.3), f32(0.1)
    local edge = x0 + 3 * cell  -- exact in a double, and no float32
    assert.are_not.equal(f32(edge), edge)
    local lo = f32(edge) < edge and f32(edge) or next_float(f32(edge), -1)
    local hi = f32(edge) > edge and f32(edge) or next_float(f32(edge), 1)
    local tiles = soageo.tiles(8, 1, 0.1, "00010000", 0.3, 0)
    assert.is_false(tiles:blocked(lo, 0.05, lo, 0.05))
    assert.is_true(tiles:blocked(hi, 0.05, hi, 0.05))
    assert.is_false(tiles:blocked(lo, 0.05, lo, 0.5))
    local t, k = tiles:cast(x0, 0.05, 1.1, 0.05)
    assert.are.equal(4, k)
    assert.is_true(math.abs(t - (edge - x0) / (f32(1.1) - x0)) < 1e-12)
  end)
end)

describe("when a ray misses a blocked cell by one float32 step", function()
  -- 3 x 3 unit cells from (0, 0), only the middle one (number 5) blocked. The misses are far
  -- closer than the walk's padding: only an exact decision tells them from contacts.
  local tiles = soageo.tiles(3, 3, 1, "000" .. "010" .. "000")
  local below1, above2, below2 = next_float(1, -1), next_float(2, 1), next_float(2, -1)

  it("returns free just outside its edges and corners, blocked on them", function()
    local misses = {
      { 0, below1, 3, below1 }, { below1, 0, below1, 3 },  -- along the low edges
      { 0, above2, 3, above2 }, { above2, 3, above2, 0 },  -- along the high edges
      { 0, below2, below2, 0 }, { below2, 0, 0, below2 },  -- past the corner (1, 1)
      { 0.5, below1, below1, 0.5 },
      { 1, 0, 1, below1 }, { 0, 1, below1, 1 },            -- ending just short
    }
    for _, q in ipairs(misses) do
      assert.is_false(tiles:blocked(q[1], q[2], q[3], q[4]))
      assert.is_nil(tiles:cast(q[1], q[2], q[3], q[4]))
    end
    assert.are.same({ false, false }, (tiles:blocked_many({ 0, below1, 3, below1, 0, below2, below2, 0 })))
    local hits = { { 0, 1, 3, 1 }, { 1, 0, 1, 3 }, { 0, 2, 2, 0 }, { 1, 0, 1, 1 }, { 0, 3, 3, 0 } }
    for _, q in ipairs(hits) do
      assert.is_true(tiles:blocked(q[1], q[2], q[3], q[4]))
      assert.are.equal(5, select(2, tiles:cast(q[1], q[2], q[3], q[4])))
    end
  end)

  it("returns the contact beyond a cell it passes by a float32 step", function()
    -- Cell 6 (col 1, row 1) is passed just below, cell 4 (col 3, row 0) is hit after it.
    local two = soageo.tiles(4, 2, 1, "0001" .. "0100")
    assert.is_true(two:blocked(0, below1, 4, below1))
    assert.are.equal(4, select(2, two:cast(0, below1, 4, below1)))
    assert.are.same({ true, false }, (two:blocked_many({ 0, below1, 4, below1, 0, below1, 2.5, below1 })))
    assert.is_false(two:blocked(0, below1, 2.5, below1))
  end)
end)

describe("when tiles meet the rules' corner cases", function()
  -- 4 x 4 unit cells from (0, 0); only cell (2, 2), number 11, is blocked.
  local tiles = soageo.tiles(4, 4, 1, "0000" .. "0000" .. "0010" .. "0000")

  it("returns contact along an edge and through a corner", function()
    assert.is_true(tiles:blocked(0, 2, 4, 2))
    assert.is_true(tiles:blocked(0, 0, 2, 2))
    assert.is_true(tiles:blocked(0, 4, 4, 0))
    local t, k = tiles:cast(0, 4, 4, 0)
    assert.are.same({ 0.5, 11 }, { t, k })
    assert.is_false(tiles:blocked(0, 1.5, 4, 1.5))
  end)

  it("returns the lowest cell at a tie", function()
    local two = soageo.tiles(4, 4, 1, "0000" .. "0011" .. "0011" .. "0000")  -- cells 7, 8, 11, 12
    local t, k = two:cast(0, 2, 4, 2)  -- along the edge between rows 1 and 2
    assert.are.same({ 0.5, 7 }, { t, k })
    t, k = two:cast(4, 4, 0, 0)        -- the diagonal: (3, 3) is a corner of 11 and of 12
    assert.are.same({ 0.25, 11 }, { t, k })
    t, k = two:cast(4.5, 2.5, 0.5, 2.5)  -- enters 12 first
    assert.are.same({ 0.125, 12 }, { t, k })
  end)

  it("returns visible from or to a corner, and not from inside a blocked cell", function()
    local l = soageo.layer()
    l:set(1, 0, 0)
    l:set(2, 2, 2)
    l:set(3, 4, 2)
    assert.are.same({ 1 }, (tiles:visible(2, 2, l, { 1 })))   -- the viewer on the corner
    assert.are.same({ 2 }, (tiles:visible(0, 0, l, { 2 })))   -- the target on the corner
    assert.are.same({}, (tiles:visible(0, 2, l, { 3 })))      -- along the edge
    assert.are.same({}, (tiles:visible(2.5, 2.5, l, { 1 })))  -- from inside
    assert.are.same({ 2 }, (tiles:visible(2, 2, l, { 2 })))   -- the viewer on the target
  end)

  it("returns free outside the map, on empty maps, and raises once closed", function()
    assert.is_false(tiles:blocked(-5, -5, -1, 9))
    local e = soageo.tiles(0, 0, 1, "")
    assert.is_false(e:blocked(0, 0, 1, 1))
    assert.is_nil(e:cast(0, 0, 1, 1))
    local c <close> = soageo.tiles(1, 1, 1, "1", -0.5, -0.5)
    assert.is_true(c:blocked(0, 0, 0, 0))
    c:set(0, 0, false)
    assert.is_false(c:blocked(0, 0, 0, 0))
    c:close()
    c:close()
    assert.has_error(function() c:blocked(0, 0, 1, 1) end)
    assert.truthy(tostring(c):find("closed"))
  end)
end)
