-- Every rejected call leaves the layer exactly as before: the layer's snapshot (dump) is the
-- checksum, compared byte for byte around each call.
local soageo = require "soageo"

local method = require("spec_util").method

describe("a rejected call", function()
  local l = soageo.layer()
  for i = 1, 50 do l:set(i, i, -i, i % 4, 1 + i % 3) end
  local other = soageo.layer()
  other:set(1, 0, 0)
  local nan, inf = 0 / 0, math.huge
  local calls = {
    { "set", { 1, nan, 0 } }, { "set", { 1, 0, inf } }, { "set", { 1, 0, 0, -1 } }, { "set", { 1.5, 0, 0 } },
    { "set", { 2.0, 0, 0 } }, { "set", { "x", 0, 0 } }, { "set", { 1, 0, 0, 0, -1 } }, { "set", { 1, 0, 0, 0, 2 ^ 32 } },
    { "move", { 999, 0, 0 } }, { "move", { 1, nan, 0 } }, { "remove", { 1.5 } }, { "get", { {} } },
    { "set_many", { { 1, 2 }, { 0, nan }, { 0, 0 } } }, { "set_many", { { 1, 2 }, { 0 }, { 0, 0 } } },
    { "set_many", { { 1, 2.5 }, { 0, 0 }, { 0, 0 } } }, { "set_many", { { 1 }, { 0 }, { 0 }, { -2 } } },
    { "set_many", { 5, { 0 }, { 0 } } },
    { "in_sector", { 0, 0, 0, 0, 1, 1 } }, { "in_sector", { 0, 0, 1, 0, -1, 1 } }, { "touch_sector", { 0, 0, 1, 0, 1, 4 } },
    { "in_sector", { 0, 0, 1, 0, 1, 1, 7 } }, { "in_sector", { 0, 0, 1, 0, 1, 1, nil, -1 } },
    { "in_circle", { nan, 0, 1 } }, { "touch_circle", { 0, 0, -1 } }, { "in_box", { 1, 0, 0, 1 } },
    { "touch_box", { 0, 1, 1, 0 } }, { "touch_capsule", { 0, 0, 1, 1, -1 } }, { "in_triangle", { 0, 0, 1, 1, 2, inf } },
    { "touch_triangle", { 0, 0, 1, 1, 2, 2, "out" } }, { "cast_segment", { 0, 0, nan, 0 } },
    { "cast_segment_first", { 0, 0, 1, 1, 0.5 } }, { "in_sector_batch", { { 0, 0, 1, 0, 1 } } },
    { "touch_circle_batch", { { 0, 0, 1, 0, 0, -1 } } }, { "in_box_batch", { { 0, 0, -1, 1 } } },
    { "in_rect", { 0, 0, 0, 0, 1, 1 } }, { "touch_rect", { 0, 0, 1, 0, -1, 1 } }, { "in_ring", { 0, 0, 2, 1 } },
    { "touch_ring", { 0, 0, nan, 1 } }, { "in_polygon", { { 0, 0, 2, 0, 2, 2, 1, 1, 0, 2 } } },
    { "touch_polygon", { { 0, 0, 1, 0 } } }, { "in_polygon_batch", { { { 0, 0, 1, 0, 1, 1 }, 7 } } },
    { "touch_polygon_batch", { { { 0, 0, 1, 0, 1, inf } } } }, { "in_rect_batch", { { 0, 0, 1, 0, 1 } } },
    { "touch_ring_batch", { { 0, 0, 3, 2 } } }, { "touch_triangle_batch", { { 0, 0, 1, 0, 1, nan } } },
    { "pairs", { 3 } }, { "merge", { 5 } },
  }
  for _, c in ipairs(calls) do
    it("leaves the layer unchanged: " .. c[1], function()
      local before = l:dump()
      assert.has_error(function() method(c[1])(l, table.unpack(c[2], 1, 8)) end)
      assert.are.equal(before, l:dump())
    end)
  end

  it("leaves both layers unchanged: pairs_between and aoi", function()
    local before, before_other = l:dump(), other:dump()
    assert.has_error(function() soageo.pairs_between(l, l) end)
    assert.has_error(function() soageo.pairs_between(l, other, 5) end)
    assert.has_error(function() soageo.aoi(l, { margin = nan }) end)
    local aoi = soageo.aoi(l)
    aoi:watch(1, 10)
    aoi:update()
    assert.has_error(function() aoi:watch(2, -1) end)
    assert.has_error(function() aoi:update(1) end)
    assert.are.equal(before, l:dump())
    assert.are.equal(before_other, other:dump())
    local vis, n = aoi:visible(1)
    local _, _, ne, nl = aoi:update()
    assert.are.same({ 0, 0 }, { ne, nl })  -- nothing changed: no events
    assert.is_true(n >= 0 and #vis == n)
  end)

  it("raises for a wrong self everywhere", function()
    local mt = getmetatable(l).__index
    for name, f in pairs(mt) do
      if name ~= "each" then assert.has_error(function() f({}) end) end
    end
  end)
end)
