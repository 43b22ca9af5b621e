-- soageo.share, attach, version, unshare, shared: a view answers every query exactly as the
-- object it was shared from (compared query by query, ids in the same order, through the index
-- and through the scan, on every SIMD target), versions count per name and are never reused,
-- every mutating method raises, and close, __close and __gc release a view. The registry is the
-- process's: every name here starts with "share_spec." so that no other spec meets it.
local soageo = require "soageo"
local rng = require "rng"
local util = require "spec_util"

local WORLD = 400

-- A layer of n entities with a few large radii, and removes so that slots are not in id order.
local function random_layer(r, n)
  local l = soageo.layer()
  for id = 1, n do
    local rad = r:int(0, 30) == 0 and r:uniform(0, 40) or r:uniform(0, 3)
    l:set(id, r:uniform(0, WORLD), r:uniform(0, WORLD), rad, r:int(1, 7))
  end
  for id = 3, n, 11 do l:remove(id) end
  return l
end

-- Everything `view` answers equals what `layer` answers.
local function assert_same(view, layer, r, what)
  local qs = util.mixed_queries(r, WORLD, 4, 7)
  qs[#qs + 1] = { "pair_count" }
  local ids = {}
  for id = 1, 300, 7 do ids[#ids + 1] = id end
  util.same_answers(assert, view, layer, qs, ids, { "auto", "index", "scan" }, what)
  local other = random_layer(rng.new(5), 120)
  assert.are.same({ soageo.pairs_between(layer, other) }, { soageo.pairs_between(view, other) }, what .. ": pairs_between")
  assert.are.same({ soageo.pairs_between(other, layer) }, { soageo.pairs_between(other, view) }, what .. ": pairs_between")
end

util.each_target(describe, setup, teardown, function(arch) return "when a shared layer is queried (" .. arch .. ")" end, function(arch)

  it("returns the answers of the layer it was shared from, through the index and the scan", function()
    local r = rng.new(41)
    local layer = random_layer(r, 300)
    local name = "share_spec.layer." .. arch
    soageo.share(layer, name)
    local view = assert(soageo.attach(name))
    assert_same(view, layer, r, arch)
    -- The index was built at share time: no view query ever builds one.
    local st = view:stats()
    assert.are.equal(0, st.builds)
    assert.are.equal(0, st.refreshes)
    assert.is_true(st.indexed > 0)
    view:close()
  end)

  it("returns the same answers when the layer's own index is copied, built afresh or refreshed loose", function()
    local r = rng.new(43)
    local layer = random_layer(r, 300)
    layer:reindex()
    soageo.share(layer, "share_spec.fresh." .. arch)
    -- A few small moves, an add and a remove: the index catches up without a build (loose).
    for id = 1, 300, 13 do
      local x, y = layer:get(id)
      if x then layer:move(id, x + 0.5, y - 0.5) end
    end
    layer:set(5000, 10, 10, 1, 1)
    layer:remove(4)
    layer:index_mode("index")
    layer:touch_box(0, 0, 50, 50)
    layer:index_mode("auto")
    assert.is_true(layer:stats().refreshes > 0)
    soageo.share(layer, "share_spec.loose." .. arch)
    local fresh, loose = soageo.attach("share_spec.fresh." .. arch), soageo.attach("share_spec.loose." .. arch)
    assert_same(loose, layer, r, arch .. " loose")
    assert_same(fresh, soageo.load(fresh:dump()), r, arch .. " copied")
    assert.are.equal(0, loose:stats().builds)
    fresh:index_mode("index")
    loose:index_mode("index")
    assert.are_not.same({ fresh:touch_box(0, 0, 400, 400) }, { loose:touch_box(0, 0, 400, 400) })
    fresh:close()
    loose:close()
  end)
end)

describe("when a layer is shared", function()
  it("returns a view that keeps its version while the layer changes and newer versions are published", function()
    local r = rng.new(7)
    local layer = random_layer(r, 200)
    local before = layer:dump()
    assert.are.equal(1, soageo.share(layer, "share_spec.versions"))
    local v1 = soageo.attach("share_spec.versions")
    layer:move(1, 5, 5)
    layer:remove(2)
    layer:set(1000, 1, 1, 1, 1)
    assert.are.equal(before, v1:dump())
    assert.are.equal(1, soageo.version("share_spec.versions"))
    assert.are.equal(2, soageo.share(layer, "share_spec.versions"))
    assert.are.equal(2, soageo.version("share_spec.versions"))
    local v2 = soageo.attach("share_spec.versions")
    assert.are.equal(1, v1:version())
    assert.are.equal(2, v2:version())
    assert.are.equal(before, v1:dump())
    assert.are.equal(layer:dump(), v2:dump())
    assert_same(v2, layer, r, "version 2")
    -- unshare: nothing to attach; holders keep theirs; the count goes on.
    assert.is_true(soageo.unshare("share_spec.versions"))
    assert.is_false(soageo.unshare("share_spec.versions"))
    assert.is_nil(soageo.version("share_spec.versions"))
    local none, why = soageo.attach("share_spec.versions")
    assert.is_nil(none)
    assert.are.equal("nothing is shared as 'share_spec.versions'", why)
    assert.are.equal(layer:dump(), v2:dump())
    assert.are.equal(3, soageo.share(layer, "share_spec.versions"))
    v1:close()
    v2:close()
  end)

  it("returns an empty layer's view", function()
    soageo.share(soageo.layer(), "share_spec.empty")
    local v = soageo.attach("share_spec.empty")
    assert.are.equal(0, #v)
    assert.are.same({ {}, 0 }, { v:touch_box(-1e6, -1e6, 1e6, 1e6) })
    assert.are.same({ {}, 0 }, { v:nearest(0, 0, 3) })
    v:close()
  end)

  it("raises on every method that would change a view, and on aoi and contacts over it", function()
    local layer = util.layer_of({ { 1, 1 }, { 2, 2 } })
    soageo.share(layer, "share_spec.ro")
    local v = soageo.attach("share_spec.ro")
    local calls = {
      set = { 3, 0, 0 }, move = { 1, 0, 0 }, remove = { 1 }, clear = {}, set_many = { { 3 }, { 0 }, { 0 } },
      move_many = { { 1 }, { 0 }, { 0 } }, remove_many = { { 1 } }, merge = { layer:dump() }, reindex = {},
      history = { 4 }, commit = {}, past = { 1 },
    }
    for name, args in pairs(calls) do
      assert.has_error(function() util.method(name)(v, table.unpack(args)) end,
        "calling '" .. name .. "' on bad self (layer is read-only: shared as 'share_spec.ro')")
    end
    -- The layer's own functions called on a view (a view carries the layer's tag, so that
    -- every query takes it as one) raise too, and the copy every service reads stays as it was.
    local own = getmetatable(layer).__index
    for name, args in pairs(calls) do
      local ok, err = pcall(own[name], v, table.unpack(args))
      assert.is_false(ok, name)
      assert.truthy(tostring(err):find("(layer is read-only: shared as 'share_spec.ro')", 1, true), name .. ": " .. tostring(err))
    end
    assert.are.equal(layer:dump(), soageo.attach("share_spec.ro"):dump())
    assert.has_error(function() soageo.aoi(v) end,
      "bad argument #1 to 'aoi' (layer is read-only: shared as 'share_spec.ro')")
    assert.has_error(function() soageo.contacts(v) end,
      "bad argument #1 to 'contacts' (layer is read-only: shared as 'share_spec.ro')")
    assert.are.equal(2, #v)
    -- A view reads: it can be the other layer of a layer's own change.
    local copy = soageo.layer()
    copy:merge(v:dump())
    assert.are.equal(layer:dump(), copy:dump())
    v:close()
  end)

  it("raises on a view shared again, on bad names and on objects that cannot be shared", function()
    local layer = util.layer_of({ { 1, 1 } })
    soageo.share(layer, "share_spec.args")
    local v = soageo.attach("share_spec.args")
    assert.has_error(function() soageo.share(v, "share_spec.args2") end,
      "bad argument #1 to 'share' (a shared view cannot be shared again)")
    assert.has_error(function() soageo.share({}, "share_spec.x") end,
      "bad argument #1 to 'share' (layer, walls or tiles expected, got table)")
    assert.has_error(function() soageo.share(layer, 12) end, "bad argument #2 to 'share' (string expected, got number)")
    assert.has_error(function() soageo.share(layer, "") end, "bad argument #2 to 'share' (name must hold 1 to 255 bytes)")
    assert.has_error(function() soageo.share(layer, ("n"):rep(256)) end,
      "bad argument #2 to 'share' (name must hold 1 to 255 bytes)")
    assert.has_error(function() soageo.attach(nil) end, "bad argument #1 to 'attach' (string expected, got nil)")
    assert.has_error(function() soageo.version({}) end, "bad argument #1 to 'version' (string expected, got table)")
    assert.has_error(function() soageo.unshare(1) end, "bad argument #1 to 'unshare' (string expected, got number)")
    -- A view's own methods called on the object it came from.
    assert.has_error(function() v.version(layer) end)
    assert.has_error(function() v.set(layer, 1, 0, 0) end)
    local w, t = soageo.walls({ 0, 0, 1, 1 }), soageo.tiles(1, 1, 1, "0")
    soageo.share(w, "share_spec.args_walls")
    soageo.share(t, "share_spec.args_tiles")
    local wv, tv = soageo.attach("share_spec.args_walls"), soageo.attach("share_spec.args_tiles")
    assert.has_error(function() wv.version(w) end)
    assert.has_error(function() tv.version(t) end)
    assert.has_error(function() tv.set(t, 0, 0, true) end)
    assert.is_true(wv:blocked(0, 1, 1, 0))
    layer:close()
    assert.has_error(function() soageo.share(layer, "share_spec.args") end, "bad argument #1 to 'share' (layer is closed)")
    -- A name keeps its kind, even after unshare.
    soageo.unshare("share_spec.args")
    assert.has_error(function() soageo.share(soageo.walls({}), "share_spec.args") end,
      "bad argument #2 to 'share' ('share_spec.args' is shared as layer, not walls)")
    v:close()
  end)

  it("releases a view on close, on __close and on collection, and lists names with their holders", function()
    local layer = util.layer_of({ { 1, 1 }, { 2, 2 }, { 3, 3 } })
    local version = soageo.share(layer, "share_spec.holders")
    local function entry()
      for _, e in ipairs(soageo.shared()) do
        if e.name == "share_spec.holders" then return e end
      end
    end
    local e = entry()
    assert.are.equal("layer", e.kind)
    assert.are.equal(version, e.version)
    assert.is_true(e.bytes > 3 * 24)
    assert.are.equal(0, e.holders)
    local a, b = soageo.attach("share_spec.holders"), soageo.attach("share_spec.holders")
    assert.are.equal(2, entry().holders)
    a:close()
    a:close()  -- idempotent
    assert.are.equal(1, entry().holders)
    assert.has_error(function() return a:touch_box(0, 0, 9, 9) end, "calling 'touch_box' on bad self (layer is closed)")
    assert.has_error(function() return #a end, "bad argument #1 to 'len' (layer is closed)")
    do
      local c <close> = soageo.attach("share_spec.holders")
      assert.are.equal(2, entry().holders)
    end
    assert.are.equal(1, entry().holders)
    b = nil
    collectgarbage()
    collectgarbage()
    assert.are.equal(0, entry().holders)
    soageo.unshare("share_spec.holders")
    assert.is_nil(entry())
  end)
end)

describe("when a finalizer closes a view during a call on it", function()
  it("returns the call's answers and releases the version when the call ends", function()
    local layer = random_layer(rng.new(11), 300)
    soageo.share(layer, "share_spec.finalizer")
    local v = soageo.attach("share_spec.finalizer")
    local function holders()
      for _, e in ipairs(soageo.shared()) do if e.name == "share_spec.finalizer" then return e.holders end end
    end
    v:touch_box(0, 0, 1, 1)  -- its hit buffers made: the call's first allocation is its result table
    local want, wn = layer:touch_box(0, 0, 200, 200)
    local got, gn
    local ok = util.during(function()
      local o, n = v:touch_box(0, 0, 200, 200)
      got, gn = o, n
    end, function() v:close() end)
    assert.is_true(ok)
    assert.are.same(want, got)
    assert.are.equal(wn, gn)
    assert.has_error(function() return #v end, "bad argument #1 to 'len' (layer is closed)")
    assert.are.equal(0, holders())
    -- Closed by the first allocation of its first query (its hit buffers): the query raises.
    local w = soageo.attach("share_spec.finalizer")
    local fine, err = util.during(function() return w:touch_box(0, 0, 200, 200) end, function() w:close() end)
    assert.is_false(fine)
    assert.matches("layer is closed", err)
    assert.are.equal(0, holders())
  end)
end)

describe("when walls and tiles are shared", function()
  it("returns the walls' answers from a walls view, with a layer view as visible's layer", function()
    local r = rng.new(3)
    local coords = {}
    for _ = 1, 60 do
      local x, y = r:uniform(0, WORLD), r:uniform(0, WORLD)
      coords[#coords + 1], coords[#coords + 2] = x, y
      coords[#coords + 1], coords[#coords + 2] = x + r:uniform(-40, 40), y + r:uniform(-40, 40)
    end
    local walls = soageo.walls(coords)
    assert.are.equal(1, soageo.share(walls, "share_spec.walls"))
    local layer = random_layer(r, 150)
    soageo.share(layer, "share_spec.walls_layer")
    local wv, lv = soageo.attach("share_spec.walls"), soageo.attach("share_spec.walls_layer")
    assert.are.equal(#walls, #wv)
    assert.are.same({ walls:get(7) }, { wv:get(7) })
    local many = {}
    for _ = 1, 200 do
      local q = { r:uniform(0, WORLD), r:uniform(0, WORLD), r:uniform(0, WORLD), r:uniform(0, WORLD) }
      assert.are.equal(walls:blocked(table.unpack(q)), wv:blocked(table.unpack(q)))
      assert.are.same({ walls:cast(table.unpack(q)) }, { wv:cast(table.unpack(q)) })
      for i = 1, 4 do many[#many + 1] = q[i] end
    end
    assert.are.same({ walls:blocked_many(many) }, { wv:blocked_many(many) })
    local ids = {}
    for id in layer:each() do ids[#ids + 1] = id end
    local want = { walls:visible(200, 200, layer, ids) }
    assert.are.same(want, { wv:visible(200, 200, lv, ids) })
    assert.are.same(want, { walls:visible(200, 200, lv, ids) })
    assert.is_true(want[2] > 0 and want[2] < #ids)
    assert.has_error(function() soageo.share(wv, "share_spec.walls2") end,
      "bad argument #1 to 'share' (a shared view cannot be shared again)")
    assert.has_error(function() soageo.share(layer, "share_spec.walls") end,
      "bad argument #2 to 'share' ('share_spec.walls' is shared as walls, not layer)")
    assert.are.equal(1, wv:version())
    wv:close()
    assert.has_error(function() return wv:blocked(0, 0, 1, 1) end, "calling 'blocked' on bad self (walls is closed)")
    lv:close()
  end)

  it("returns a tiles view frozen at share time, whose set raises", function()
    local r = rng.new(9)
    local cells = {}
    for k = 1, 32 * 24 do cells[k] = r:int(0, 4) == 0 and "1" or "0" end
    local tiles = soageo.tiles(32, 24, 2.5, table.concat(cells), -10, -5)
    soageo.share(tiles, "share_spec.tiles")
    local tv = soageo.attach("share_spec.tiles")
    local qs = {}
    for _ = 1, 200 do qs[#qs + 1] = { r:uniform(-20, 90), r:uniform(-20, 70), r:uniform(-20, 90), r:uniform(-20, 70) } end
    local function answers(t)
      local out = {}
      for _, q in ipairs(qs) do out[#out + 1] = { t:blocked(table.unpack(q)), t:cast(table.unpack(q)) } end
      return out
    end
    local want = answers(tiles)
    assert.are.same(want, answers(tv))
    for c = 0, 31 do tiles:set(c, 10, true) end  -- the original stays private and mutable
    assert.are_not.same(want, answers(tiles))
    assert.are.same(want, answers(tv))
    assert.has_error(function() tv:set(0, 0, true) end, "calling 'set' on bad self (tiles is read-only: shared as 'share_spec.tiles')")
    local set = getmetatable(tiles).__index.set  -- the class's own set, called on the view
    local ok, err = pcall(set, tv, 0, 0, true)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("(tiles is read-only: shared as 'share_spec.tiles')", 1, true), tostring(err))
    assert.are.same(want, answers(soageo.attach("share_spec.tiles")))
    assert.are.equal("tiles", (function()
      for _, e in ipairs(soageo.shared()) do if e.name == "share_spec.tiles" then return e.kind end end
    end)())
    tv:close()
  end)
end)
