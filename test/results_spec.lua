-- How results reach Lua tables: raw sets whatever the table (lua_seti serves plain tables,
-- lua_rawseti tables with a metatable), the same ids through every path, sparse and dense.
local soageo = require "soageo"
local rng = require "rng"
local quick = require "quick"

-- A table whose __newindex and __index record every call: a raw set never calls them.
local function watched()
  local calls = { n = 0 }
  local t = setmetatable({}, {
    __newindex = function(_, k, v)
      calls.n = calls.n + 1
      error("__newindex called for key " .. tostring(k) .. " with " .. tostring(v))
    end,
    __index = function(_, k)
      calls.n = calls.n + 1
      return nil
    end,
  })
  return t, calls
end

local function copy(t, n)
  local c = {}
  for i = 1, n do c[i] = rawget(t, i) end
  return c
end

local function world(n, seed)
  local g = rng.new(seed)
  local l = soageo.layer(n)
  for i = 1, n do
    l:set((g:next() << 31) ~ g:next() ~ (i << 56), g:uniform(0, 1000), g:uniform(0, 1000), g:uniform(0, 3), 1 + i % 3)
  end
  return l
end

describe("results written to a table", function()
  local l = world(quick(20000, 3000), 5)

  -- Every function that writes ids, as (layer, out) -> the flat list it wrote.
  local writers = {
    { "in_circle", function(out) local _, n = l:in_circle(500, 500, 100, out) return n end },
    { "touch_box", function(out) local _, n = l:touch_box(0, 0, 1000, 1000, out) return n end },
    { "touch_box sparse", function(out) local _, n = l:touch_box(0, 0, 1000, 40, out, 2) return n end },
    { "in_triangle", function(out) local _, n = l:in_triangle(0, 0, 900, 100, 300, 800, out) return n end },
    { "nearest", function(out) local _, n = l:nearest(500, 500, 50, nil, out) return n end },
    { "in_circle_batch", function(out) local _, n = l:in_circle_batch({ 100, 100, 50, 700, 300, 80 }, out) return 2 * n end },
    { "cast_segment", function(out) local _, _, n = l:cast_segment(0, 0, 1000, 1000, out, {}) return n end },
    { "pairs", function(out) local _, n = l:pairs(out) return 2 * n end },
  }

  for _, w in ipairs(writers) do
    describe("by " .. w[1], function()
      it("are the same in a plain table, a new table, a reused one and one with a metatable", function()
        local plain = {}
        local n = w[2](plain)
        assert.is_true(n > 0)
        local expected = copy(plain, n)
        -- reused: every slot exists now (lua_seti's fast path), and a longer stale tail
        for i = n + 1, n + 7 do plain[i] = "stale" end
        assert.are.equal(n, w[2](plain))
        assert.are.same(expected, copy(plain, n))
        assert.is_nil(rawget(plain, n + 1))
        -- a table with __newindex and __index: written raw, neither is called
        local t, calls = watched()
        assert.are.equal(n, w[2](t))
        assert.are.same(expected, copy(t, n))
        assert.are.equal(0, calls.n)
        assert.are.equal(n, w[2](t))  -- again, into existing slots
        assert.are.same(expected, copy(t, n))
        assert.are.equal(0, calls.n)
        -- a table that had more entries, holes in it, and a metatable set afterwards
        local holes = {}
        for i = 1, n + 20 do holes[i] = i % 3 == 0 and "x" or nil end
        assert.are.equal(n, w[2](holes))
        assert.are.same(expected, copy(holes, n))
      end)
    end)
  end

  it("aoi:update writes enter and leave lists raw into tables with a metatable", function()
    local a = soageo.aoi(l, { margin = 0 })
    local ids = {}
    for id in l:each() do
      ids[#ids + 1] = id
      if #ids >= 50 then break end
    end
    for _, id in ipairs(ids) do a:watch(id, 30) end
    local plain_enter, plain_leave = {}, {}
    local b = soageo.aoi(l, { margin = 0 })
    for _, id in ipairs(ids) do b:watch(id, 30) end
    local enter, ecalls = watched()
    local leave, lcalls = watched()
    local _, _, ne = a:update(enter, leave)
    local _, _, pe = b:update(plain_enter, plain_leave)
    assert.is_true(ne > 0)
    assert.are.equal(pe, ne)
    assert.are.same(copy(plain_enter, 2 * pe), copy(enter, 2 * ne))
    assert.are.equal(0, ecalls.n + lcalls.n)
  end)

  it("sparse hits in a large layer (ids read ahead) are the same through every kind of table", function()
    local big = world(quick(200000, 20000), 9)
    local out = {}
    local g = rng.new(3)
    local total = 0
    for _ = 1, 20 do
      local x, y = g:uniform(0, 1000), g:uniform(0, 1000)
      local _, k = big:touch_circle(x, y, 15, out)
      local fresh, k2 = big:touch_circle(x, y, 15)
      local t, calls = watched()
      local _, k3 = big:touch_circle(x, y, 15, t)
      assert.are.equal(k, k2)
      assert.are.equal(k, k3)
      assert.are.same(copy(fresh, k), copy(out, k))
      assert.are.same(copy(fresh, k), copy(t, k))
      assert.are.equal(0, calls.n)
      total = total + k
    end
    assert.is_true(total > 20 * 16)  -- enough hits per query to run ahead
  end)
end)
