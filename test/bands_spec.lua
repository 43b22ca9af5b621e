-- layer:pairs, layer:pair_count and soageo.pairs_between on layers large enough to be swept
-- in y bands: the same pairs as a plain Lua sort-and-sweep, in worlds that band differently,
-- and again after every entity moved.
local soageo = require "soageo"
local rng = require "rng"
local ref = require "pairs_reference"
local quick = require "quick"

local function flat_equal(a, na, b)
  if 2 * na ~= #b then return false, string.format("%d pairs vs %d", na, #b // 2) end
  for i = 1, #b do
    if a[i] ~= b[i] then return false, string.format("entry %d: %s vs %s", i, tostring(a[i]), tostring(b[i])) end
  end
  return true
end

-- n entities in w x h (x0, y0 the corner), radius to rmax, scattered 64-bit ids.
local function scene(g, n, w, h, rmax, x0, y0)
  local l = soageo.layer(n)
  for i = 1, n do
    local id = (g:next() << 33) ~ (g:next() << 2) ~ i
    l:set(id, (x0 or 0) + g:uniform(0, w), (y0 or 0) + g:uniform(0, h), g:int(0, 4) == 0 and 0 or g:uniform(0, rmax))
  end
  return l
end

describe("layer:pairs swept in y bands", function()
  -- Sizes past the band threshold (32,768 boxes); worlds whose x windows stay short enough for
  -- the Lua reference to check them in a few seconds.
  local n = quick(40000, 34000)
  local cases = {
    { "a wide world (a few bands)", function(g) return scene(g, n, 40000, 500, 15) end },
    { "a tall world (many bands)", function(g) return scene(g, n, 600, 40000, 15) end },
    { "touching boxes on a lattice", function(g)
      local l = soageo.layer(n)
      for i = 1, n do l:set(i * 7919, g:int(0, 2000) * 4, g:int(0, 50) * 8, g:int(0, 2) * 4) end
      return l
    end },
    { "clusters far apart in a world of +-1e7", function(g)
      local l = soageo.layer(n)
      for i = 1, n do
        local c = i % 4
        l:set(-i, -1e7 + c * 6e6 + g:uniform(0, 3000), 1e7 - c * 6e6 - g:uniform(0, 300), g:uniform(0, 12))
      end
      return l
    end },
  }
  it("finds the plain sweep's pairs again once the layer outgrew its band scratch", function()
    local g = rng.new(99)
    local l = scene(g, n, 40000, 500, 15)
    local out = l:pairs({})
    assert.is_true(l:pair_count() > 1000)
    for i = 1, n // 2 do l:set(-i, g:uniform(0, 40000), g:uniform(0, 500), g:uniform(0, 15)) end
    local out2, np = l:pairs(out)
    assert(flat_equal(out2, np, ref.pairs_sweep(ref.entities(l))))
    assert.are.equal(np, l:pair_count())
  end)
  for k, c in ipairs(cases) do
    it("finds the plain sweep's pairs: " .. c[1], function()
      local g = rng.new(100 + k)
      local l = c[2](g)
      local out, np = l:pairs({})
      local want = ref.pairs_sweep(ref.entities(l))
      assert.is_true(np > 1000)
      assert(flat_equal(out, np, want))
      assert.are.equal(np, l:pair_count())
      -- every entity moves by up to 2 units; the scratch from the first call is reused
      local ids, xs, ys = {}, {}, {}
      for id, x, y in l:each() do
        ids[#ids + 1], xs[#xs + 1], ys[#ys + 1] = id, x + g:uniform(-2, 2), y + g:uniform(-2, 2)
      end
      l:move_many(ids, xs, ys)
      local out2, np2 = l:pairs(out)
      assert(flat_equal(out2, np2, ref.pairs_sweep(ref.entities(l))))
      assert.are.equal(np2, l:pair_count())
    end)
    it("finds the plain sweep's pairs between two layers: " .. c[1], function()
      local g = rng.new(200 + k)
      local a = c[2](g)
      -- every other entity of a, moved by up to 10 units and resized, under its own id
      local b, i = soageo.layer(), 0
      for id, x, y, r in a:each() do
        i = i + 1
        if i % 2 == 0 then b:set(id ~ 1, x + g:uniform(-10, 10), y + g:uniform(-10, 10), r * g:uniform(0, 1.5)) end
      end
      local out, np = soageo.pairs_between(a, b)
      assert.is_true(np > 1000)
      assert(flat_equal(out, np, ref.pairs_between_sweep(ref.entities(a), ref.entities(b))))
      local back, nback = soageo.pairs_between(b, a, out)
      assert(flat_equal(back, nback, ref.pairs_between_sweep(ref.entities(b), ref.entities(a))))
    end)
  end
end)
