local soageo = require "soageo"
local rng = require "rng"
local util = require "spec_util"
local ref = require "pairs_reference"
local quick = require "quick"

local function scene(g, n, span, rmax, id_base)
  local l = soageo.layer()
  for i = 1, n do
    local r = g:int(0, 4) == 0 and 0 or g:uniform(0, rmax)
    l:set((id_base or 0) + i * 13 % 100003, g:uniform(0, span), g:uniform(0, span), r)
  end
  return l
end

util.each_target(describe, setup, teardown, function(arch) return "when the " .. arch .. " target pairs entities" end, function(arch)

  local g = rng.new(31)
  local cases = {
    { "no entities", 0, 100, 5 }, { "one entity", 1, 100, 5 }, { "uniform", 300, 500, 12 },
    { "clustered", 300, 40, 3 }, { "zero radii on a grid", 0, 0, 0 },
  }
  for _, c in ipairs(cases) do
    it("returns the brute-force pairs for " .. c[1], function()
      local l = scene(g, c[2], c[3], c[4])
      if c[1] == "zero radii on a grid" then
        for i = 0, 99 do l:set(i, i % 10, i // 10, 0) end
        l:set(500, 3, 3, 0)  -- an identical position
        l:set(501, 4.5, 4.5, 0.5)  -- touches four grid points
      end
      local want = ref.pairs(ref.entities(l))
      local out, n = l:pairs()
      assert.are.equal(#want // 2, n)
      assert.are.same(want, out)
      assert.are.equal(n, l:pair_count())
    end)
  end

  it("handles huge and tiny coordinates", function()
    local l = soageo.layer()
    l:set(1, 3e38, 0, 3e38)
    l:set(2, 3.3e38, 0, 1)
    l:set(3, -3e38, 0, 3e38)
    l:set(4, 1e-30, 1e-30, 1e-30)
    l:set(5, 2e-30, 1e-30, 0)
    assert.are.same(ref.pairs(ref.entities(l)), (l:pairs()))
  end)

  it("returns the brute-force pairs between two layers", function()
    local a, b = scene(g, 400, 300, 8), scene(g, 250, 300, 8, 1000000)
    local want = ref.pairs_between(ref.entities(a), ref.entities(b))
    util.same_pairs(assert, want, soageo.pairs_between(a, b))
  end)
end)

describe("layer:pairs", function()
  describe("when the layer is large", function()
    it("returns the brute-force pairs for 3,000 clustered entities", function()
      local g = rng.new(8)
      local l = scene(g, quick(3000, 300), 150, 2)
      local want = ref.pairs(ref.entities(l))
      local out, n = l:pairs({})
      assert.are.equal(#want // 2, n)
      assert.are.same(want, out)
    end)

    it("agrees with the plain Lua sweep, which agrees with brute force, at 2,000 entities", function()
      local g = rng.new(11)
      for _, span in ipairs({ 40, 400 }) do
        local es = ref.entities(scene(g, 2000, span, 6))
        assert.are.same(ref.pairs(es), ref.pairs_sweep(es))
        local half = #es // 2
        local as, bs = table.move(es, 1, half, 1, {}), table.move(es, half + 1, #es, 1, {})
        assert.are.same(ref.pairs_between(as, bs), ref.pairs_between_sweep(as, bs))
      end
    end)

    it("returns every pair of 20,000 entities, uniform and clustered, as the plain sweep does", function()
      local g = rng.new(12)
      for _, span in ipairs({ 2000, 250 }) do
        local l = scene(g, quick(20000, 2000), quick(span, span / math.sqrt(10)), 15)  -- quick: as dense
        local want = ref.pairs_sweep(ref.entities(l))
        local out, n = l:pairs()
        assert.are.equal(#want // 2, n)
        assert.are.equal(n, l:pair_count())
        assert.is_true(n > 1000)
        assert.are.same(want, out)
      end
    end)

    it("orders pairs by id beyond 65,536 entities, with negative and huge ids", function()
      local g = rng.new(13)
      local n = quick(70000, 3000)
      local l = soageo.layer(n)
      for i = 1, n do
        local id = (i * 2654435761) % 4294967291 * (i % 2 == 0 and -1 or 1) * 1000003
        l:set(id, g:uniform(0, 5300), g:uniform(0, 5300), g:uniform(0, 15))
      end
      l:set(math.maxinteger, 1, 1, 5)
      l:set(math.mininteger, 2, 2, 5)
      local want = ref.pairs_sweep(ref.entities(l))
      local out, count = l:pairs()
      assert.are.equal(#want // 2, count)
      assert.are.same(want, out)
    end)

    it("returns every pair between two layers of 10,000, as the plain sweep does", function()
      local g = rng.new(14)
      local span = quick(1500, 1500 / math.sqrt(10))  -- quick: as dense
      local a = scene(g, quick(10000, 1000), span, 12)
      local b = scene(g, quick(10000, 1000), span, 12, 500000)
      local want = ref.pairs_between_sweep(ref.entities(a), ref.entities(b))
      local out, n = soageo.pairs_between(a, b)
      util.same_pairs(assert, want, out, n, 500)
    end)
  end)

  describe("when an out table is reused", function()
    it("clears entries past the pairs", function()
      local l = soageo.layer()
      l:set(1, 0, 0, 1)
      l:set(2, 1, 0, 1)
      local out = { 9, 9, 9, 9, 9, 9 }
      local same, n = l:pairs(out)
      assert.are.equal(out, same)
      assert.are.equal(1, n)
      assert.are.same({ 1, 2 }, out)
    end)
  end)

  describe("when given bad input", function()
    it("raises clear errors", function()
      local l = soageo.layer()
      assert.has_error(function() l:pairs(5) end, "bad argument #1 to 'pairs' (table or nil expected, got number)")
      assert.has_error(function() soageo.pairs_between(l, l) end)
      assert.has_error(function() soageo.pairs_between(l, {}) end)
    end)
  end)
end)
