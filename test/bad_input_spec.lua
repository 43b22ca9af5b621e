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

-- Walls and tiles: every rejected call raises and leaves the object answering as before (the
-- answers to a fixed set of queries are the checksum; tiles:set is the only change there is).
describe("a rejected call on walls or tiles", function()
  local nan, inf = 0 / 0, math.huge
  local probes = { 0, 0, 10, 10,  5, -5, 5, 5,  -1, 3, 12, 3,  2, 2, 2, 2,  0, 1, 1, 0 }
  local function answers(o)
    local out = {}
    local b = o:blocked_many(probes)
    for i = 1, #b do out[#out + 1] = tostring(b[i]) end
    for i = 1, #probes, 4 do out[#out + 1] = tostring((o:cast(table.unpack(probes, i, i + 3)))) end
    return table.concat(out, " ")
  end
  local l = soageo.layer()
  l:set(1, 3, 3)
  l:set(2, -4, 1)

  it("raises for bad constructor arguments", function()
    assert.has_error(function() soageo.walls({ 0, 0, 1 }) end, "bad argument #1 to 'walls' (coords length must be a multiple of 4)")
    for _, bad in ipairs({ { 0, 0, 1, nan }, { inf, 0, 1, 1 }, { 0, 0, "1", 1 }, { 0, 0, 1, 1e39 }, { 0, 0, 1, {} } }) do
      assert.has_error(function() soageo.walls(bad) end)
    end
    assert.has_error(function() soageo.walls(5) end)
    for _, args in ipairs({
      { 2, 2, 1, "000" }, { 2, 2, 1, "00002" }, { 2, 2, 1, "0x01" }, { 2, 2, 0, "0000" }, { 2, 2, -1, "0000" },
      { 2, 2, nan, "0000" }, { -1, 2, 1, "" }, { 2.5, 2, 1, "00000" }, { 2, 2, 1, 1111 }, { 2, 2, 1, "0000", nan },
      { 2, 2, 1, "0000", 0, inf }, { 2 ^ 25, 1, 1, "" }, { 2 ^ 20, 2 ^ 20, 1, "" },
    }) do
      assert.has_error(function() soageo.tiles(table.unpack(args, 1, 6)) end)
    end
  end)

  local w = soageo.walls({ 5, -5, 5, 5,  -3, 3, 20, 3,  2, 2, 2, 2 })
  local t = soageo.tiles(4, 3, 2, "010000100011", -2, -2)
  for name, obj in pairs({ walls = w, tiles = t }) do
    local calls = {
      { "blocked", { 0, 0, nan, 0 } }, { "blocked", { 0, 0, 1 } }, { "blocked", { "a", 0, 1, 1 } },
      { "cast", { 0, inf, 1, 1 } }, { "cast", { 0, 0, 1, 1e39 } },
      { "blocked_many", { { 0, 0, 1 } } }, { "blocked_many", { { 0, 0, 1, nan } } }, { "blocked_many", { 7 } },
      { "blocked_many", { { 0, 0, 1, 1 }, 5 } },
      { "visible", { 0, 0, l, { 1, 3 } } }, { "visible", { 0, 0, l, { 1, 2.5 } } }, { "visible", { nan, 0, l, { 1 } } },
      { "visible", { 0, 0, {}, { 1 } } }, { "visible", { 0, 0, l, { 1 }, 2 } }, { "visible", { 0, 0, l, { 1 }, -1 } },
      { "visible", { 0, 0, l, { 1 }, nil, 3 } }, { "visible", { 0, 0, l, "ids" } },
    }
    if name == "walls" then
      calls[#calls + 1] = { "get", { 0 } }
      calls[#calls + 1] = { "get", { 4 } }
      calls[#calls + 1] = { "get", { "x" } }
    else
      calls[#calls + 1] = { "set", { 4, 0, true } }
      calls[#calls + 1] = { "set", { 0, -1, true } }
      calls[#calls + 1] = { "set", { 0, 0, 1 } }
      calls[#calls + 1] = { "set", { 0.5, 0, true } }
    end
    for _, c in ipairs(calls) do
      it("leaves " .. name .. " unchanged: " .. c[1], function()
        local before = answers(obj)
        local ids = { 1, 2, 1 }
        assert.has_error(function() method(c[1])(obj, table.unpack(c[2], 1, 6)) end)
        assert.are.equal(before, answers(obj))
        assert.are.same({ 1, 2, 1 }, ids)
      end)
    end

    it("leaves ids unchanged when visible refuses an id late in the list (" .. name .. ")", function()
      local ids = { 1, 2, 1, 99 }
      assert.has_error(function() obj:visible(0, 0, l, ids, nil, ids) end)
      assert.are.same({ 1, 2, 1, 99 }, ids)
    end)

    it("raises for a wrong self everywhere (" .. name .. ")", function()
      for _, f in pairs(getmetatable(obj).__index) do
        if f ~= obj.close then assert.has_error(function() f({}) end) end
        assert.has_error(function() f(l) end)
      end
    end)
  end
end)

-- History: a rejected history, commit or past call leaves the kept ticks as they were (what
-- history() says, and each kept tick's answers).
describe("a rejected call on a layer's history", function()
  it("leaves the ticks it keeps, and what they answer, unchanged", function()
    local l = soageo.layer()
    for i = 1, 30 do l:set(i, i, -i, i % 3) end
    assert.has_error(function() l:commit() end)  -- history off
    assert.has_error(function() l:past(1) end)
    l:history(4)
    l:commit()
    l:move(1, 100, 100)
    l:commit()
    local function state()
      local _, oldest, newest = l:history()
      local out = { oldest, newest }
      for t = oldest, newest do out[#out + 1] = l:past(t):dump() end
      return out
    end
    local before = state()
    for _, bad in ipairs({
      function() l:history(65) end, function() l:history(-1) end, function() l:history(1.5) end,
      function() l:history("x") end, function() l:past(0) end, function() l:past(3) end,
      function() l:past(1, 0 / 0) end, function() l:past(1, 2) end, function() l:past(2, 0.5) end,
      function() l:past(1.5) end, function() l:past(1):move(1, 0, 0) end, function() l:past(1):set(99, 0, 0) end,
    }) do
      assert.has_error(bad)
      assert.are.same(before, state())
    end
  end)
end)
