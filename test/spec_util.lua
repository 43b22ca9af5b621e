-- Helpers shared by the specs.
local soageo = require "soageo"

local util = {}

-- out[1..n], sorted: results come in storage order.
function util.sorted(out, n)
  local t = {}
  for i = 1, n do t[i] = out[i] end
  table.sort(t)
  return t
end

-- A layer holding points { x, y [, r [, mask]] } with ids 1, 2, ...
function util.layer_of(points)
  local l = soageo.layer()
  for i, p in ipairs(points) do l:set(i, p[1], p[2], p[3] or 0, p[4]) end
  return l
end

-- The layer's entities in slot order (each() walks the slots): { {id, x, y, r, mask}, ... }.
function util.rows(layer)
  local t = {}
  for id, x, y, r, mask in layer:each() do t[#t + 1] = { id, x, y, r, mask } end
  return t
end

-- The layer's entities by id: t[id] = { x, y, r, mask }.
function util.by_id(layer)
  local t = {}
  for id, x, y, r, mask in layer:each() do t[id] = { x, y, r, mask } end
  return t
end

-- A function calling l:name(...) as a method, so that Lua numbers the arguments (and names the
-- function) in errors as a user's method call would.
function util.method(name)
  return assert(load("local l = ...; return l:" .. name .. "(select(2, ...))"))
end

-- Inside a describe: its specs run with SIMD target `arch` in use (restored afterwards). Specs
-- loop over soageo.archs() with it, so every target must answer as the scalar reference does.
-- busted's setup and teardown live in each spec file's environment, so the spec passes them.
function util.use_target(arch, setup, teardown)
  local previous
  setup(function() previous = soageo.use_arch(arch) end)
  teardown(function() soageo.use_arch(previous) end)
end

-- describe(title(arch), body(arch)) once per SIMD target this CPU runs, with that target in
-- use inside it (busted's describe, setup and teardown passed in: mini_busted has its own).
function util.each_target(describe, setup, teardown, title, body)
  for _, arch in ipairs(soageo.archs()) do
    describe(title(arch), function()
      util.use_target(arch, setup, teardown)
      body(arch)
    end)
  end
end

-- Asserts (with the spec's `assert`) that walls or tiles `obj` answer blocked and cast on the
-- query (ax, ay, bx, by) as the exact reference's cast did: rt (nil: nothing hit, else an exact
-- value) and rk, what it hit first.
function util.same_cast(assert, obj, rt, rk, ax, ay, bx, by)
  assert.are.equal(rt ~= nil, obj:blocked(ax, ay, bx, by))
  local t, k = obj:cast(ax, ay, bx, by)
  if rt then
    assert.are.equal(rk, k)
    assert.is_true(math.abs(t - require("walls_reference").value(rt)) <= 1e-9)
  else
    assert.is_nil(t)
  end
end

-- Asserts (with the spec's `assert`) that every method of an aoi or contacts `obj` in calls
-- (name -> arguments) raises `message` once its layer is closed, that tostring still names it
-- ("soageo.<kind>: ..."), and that after obj:close() obj:<probe>(1) raises the closed-object
-- error.
function util.refuses_without_layer(assert, obj, kind, calls, message, probe)
  for name, args in pairs(calls) do
    assert.has_error(function() obj[name](obj, table.unpack(args)) end, message, name)
  end
  assert.matches("^soageo." .. kind .. ": ", tostring(obj))
  obj:close()
  assert.has_error(function() util.method(probe)(obj, 1) end,
    "calling '" .. probe .. "' on bad self (" .. kind .. " is closed)")
end

-- Asserts (with the spec's `assert`) that a query's (out, n) are the flat pair list `want`
-- ({a1, b1, a2, b2, ...}), more than `more_than` pairs of it (0 unless given).
function util.same_pairs(assert, want, out, n, more_than)
  assert.are.equal(#want // 2, n)
  assert.is_true(n > (more_than or 0))
  assert.are.same(want, out)
end

-- Pair sets, set[a][b] = true: what the AOI's and the contacts' events are replayed onto.
-- The pair set of a flat list {a1, b1, a2, b2, ...} of n pairs.
function util.pair_set(list, n)
  local set = {}
  for i = 1, n do
    local a = list[2 * i - 1]
    set[a] = set[a] or {}
    set[a][list[2 * i]] = true
  end
  return set
end

function util.same_pair_sets(x, y)
  for a, bs in pairs(x) do for b in pairs(bs) do if not (y[a] and y[a][b]) then return false end end end
  for a, bs in pairs(y) do for b in pairs(bs) do if not (x[a] and x[a][b]) then return false end end end
  return true
end

-- Applies an update's events (flat lists of pairs) to `set`: the n_gone pairs of `gone` (leave,
-- ended) first, then the n_new of `new` (enter, began); fails on an impossible event, a pair
-- that goes without being there or comes while it is.
function util.replay(set, new, n_new, gone, n_gone)
  for i = 1, n_gone do
    local a, b = gone[2 * i - 1], gone[2 * i]
    assert(set[a] and set[a][b], "a pair went that was not there: " .. a .. " " .. b)
    set[a][b] = nil
  end
  for i = 1, n_new do
    local a, b = new[2 * i - 1], new[2 * i]
    set[a] = set[a] or {}
    assert(not set[a][b], "a pair came that was there already: " .. a .. " " .. b)
    set[a][b] = true
  end
end

-- Whether the n pairs of a flat list ascend (by first, then second element); with `each_ascends`,
-- also a < b within every pair.
function util.sorted_pairs(list, n, each_ascends)
  if each_ascends then
    for i = 1, n do if not (list[2 * i - 1] < list[2 * i]) then return false end end
  end
  for i = 2, n do
    local a1, b1, a2, b2 = list[2 * i - 3], list[2 * i - 2], list[2 * i - 1], list[2 * i]
    if not (a1 < a2 or (a1 == a2 and b1 < b2)) then return false end
  end
  return true
end

-- Asserts (with the spec's `assert`) that obj:<method>(id, out) gives lists[id] (sorted here),
-- and its length, for every id in 1..last. Returns `out`, reused from call to call.
function util.check_lists(assert, obj, method, lists, last, out)
  for id = 1, last do
    local want = lists[id] or {}
    table.sort(want)
    local n
    out, n = obj[method](obj, id, out)
    assert.are.equal(#want, n)
    assert.are.same(want, out)
  end
  return out
end

-- One tick of a moving world (the AOI's and the contacts' random specs): every entity steps by
-- up to w.step on each axis, w.k random ids go (some may not exist), w.k new ones appear in
-- [0, w.span]^2, and one random id is set anew (it comes back, or jumps). w.radius(jump), when
-- given, draws the radius of a new or a jumping entity. Returns the next unused id.
function util.churn(l, g, next_id, w)
  for id, x, y in l:each() do l:move(id, x + g:uniform(-w.step, w.step), y + g:uniform(-w.step, w.step)) end
  for _ = 1, w.k do l:remove(g:int(1, next_id)) end
  for _ = 1, w.k do
    local x, y = g:uniform(0, w.span), g:uniform(0, w.span)
    l:set(next_id, x, y, w.radius and w.radius(false))
    next_id = next_id + 1
  end
  local id = g:int(1, next_id - 1)
  local x, y = g:uniform(0, w.span), g:uniform(0, w.span)
  l:set(id, x, y, w.radius and w.radius(true))
  return next_id
end

-- A collector that runs a whole cycle at every allocation; returns what puts it back.
local function eager()
  local restore
  if _VERSION == "Lua 5.4" then
    -- A pause of 0 starts a cycle at the next allocation; a step of 2^40 bytes' worth of work
    -- runs it to its end, finalizers included.
    local pause, mul = collectgarbage("setpause", 0), collectgarbage("setstepmul", 1000)
    local mode = collectgarbage("incremental", 0, 0, 40)
    restore = function()
      collectgarbage("setpause", pause)
      collectgarbage("setstepmul", mul)
      collectgarbage("incremental", 0, 0, 13)
      collectgarbage(mode)
    end
  else
    local mode = collectgarbage("incremental")
    -- 5.5: a step multiplier of 0 makes every step a full collection
    local pause, mul = collectgarbage("param", "pause", 0), collectgarbage("param", "stepmul", 0)
    restore = function()
      collectgarbage("param", "pause", pause)
      collectgarbage("param", "stepmul", mul)
      collectgarbage(mode)
    end
  end
  collectgarbage()  -- ends the cycle: the parameters count from now
  return restore
end

local function arm(on_gc, ran)
  setmetatable({}, { __gc = function() ran[1] = true on_gc() end })
end

-- pcall(call) with on_gc run as a finalizer by the first allocation inside call (so call makes
-- no table, closure or string before the method it calls): the collector set to run a whole
-- cycle, finalizers included, at every allocation, and one dropped object armed just before.
-- Returns what pcall returns; raises when the finalizer did not run inside the call.
function util.during(call, on_gc)
  local ran, restore = {}, eager()
  arm(on_gc, ran)
  local r = table.pack(pcall(call))
  local inside = ran[1]
  restore()
  collectgarbage()
  assert(inside, "the finalizer did not run inside the call")
  return table.unpack(r, 1, r.n)
end

-- Raises again what f raised when a finalizer ran it during call(), else what call raised
-- (the manual's error table, test/errors_spec.lua).
function util.from_finalizer(call, f)
  local err
  local ok, e = util.during(call, function()
    local fine, why = pcall(f)
    if not fine then err = why end
  end)
  if err then error(err, 0) end
  if not ok then error(e, 0) end
end

-- The whole text of a file.
function util.read(path)
  local f = assert(io.open(path, "r"))
  local s = f:read("a")
  f:close()
  return s
end

-- Everything observable in a layer as one string: its size and each entity (id, x, y, r, mask,
-- floats exact), in slot order, or sorted when `any_order`.
function util.fingerprint(layer, any_order)
  local rows = {}
  for id, x, y, r, mask in layer:each() do
    rows[#rows + 1] = string.format("%d:%a:%a:%a:%d", id, x, y, r, mask)
  end
  if any_order then table.sort(rows) end
  return #layer .. "|" .. table.concat(rows, ";")
end

-- Queries of every kind, each as {method, args...} (util.ask runs one): `rounds` of them
-- around random points of a world of side `world`, some with a mask in [1, masks], then pairs.
function util.mixed_queries(r, world, rounds, masks)
  local qs = {}
  for _ = 1, rounds do
    local x, y = r:uniform(-20, world + 20), r:uniform(-20, world + 20)
    local rad, w, h = r:uniform(0, 60), r:uniform(0, 80), r:uniform(0, 80)
    local dx, dy = r:uniform(-1, 1), r:uniform(-1, 1)
    local mask = r:int(0, 2) == 0 and r:int(1, masks) or nil
    local x2, y2 = x + r:uniform(-150, 150), y + r:uniform(-150, 150)
    qs[#qs + 1] = { "in_circle", x, y, rad, nil, mask }
    qs[#qs + 1] = { "touch_circle", x, y, rad, nil, mask }
    qs[#qs + 1] = { "in_box", x, y, x + w, y + h, nil, mask }
    qs[#qs + 1] = { "touch_box", x, y, x + w, y + h, nil, mask }
    qs[#qs + 1] = { "in_sector", x, y, dx, dy, rad, r:uniform(0.1, 3.1), nil, mask }
    qs[#qs + 1] = { "touch_sector", x, y, dx, dy, rad, r:uniform(0.1, 3.1), nil, mask }
    qs[#qs + 1] = { "touch_capsule", x, y, x2, y2, r:uniform(0, 10), nil, mask }
    qs[#qs + 1] = { "in_triangle", x, y, x2, y, x, y2, nil, mask }
    qs[#qs + 1] = { "touch_ring", x, y, rad / 2, rad, nil, mask }
    local lx, ly, hx, hy = math.min(x, x2), math.min(y, y2), math.max(x, x2), math.max(y, y2)
    qs[#qs + 1] = { "in_polygon", { lx, ly, hx, ly, hx + 5, hy, lx, hy }, nil, mask }
    qs[#qs + 1] = { "cast_segment", x, y, x2, y2, nil, nil, mask }
    qs[#qs + 1] = { "cast_segment_first", x, y, x2, y2, mask }
    qs[#qs + 1] = { "nearest", x, y, r:int(0, 12), r:int(0, 1) == 0 and rad or nil, nil, mask }
    qs[#qs + 1] = { "touch_circle_batch", { x, y, rad, x2, y2, rad / 3 }, nil, mask }
  end
  qs[#qs + 1] = { "pairs" }
  return qs
end

-- Everything query q = {method, args...} of util.mixed_queries returns, packed.
function util.ask(obj, q)
  return table.pack(obj[q[1]](obj, table.unpack(q, 2, 9)))
end

-- Everything `view` answers equals what `ref` answers: #, each, dump, has and get of `ids`,
-- and every query of `qs` in each index mode of `modes` (the view is left in "auto").
function util.same_answers(assert, view, ref, qs, ids, modes, what)
  assert.are.equal(#ref, #view, what .. ": #")
  assert.are.same(util.rows(ref), util.rows(view), what .. ": each")
  assert.are.equal(ref:dump(), view:dump(), what .. ": dump")
  for _, id in ipairs(ids) do
    assert.are.equal(ref:has(id), view:has(id), what .. ": has " .. id)
    assert.are.same({ ref:get(id) }, { view:get(id) }, what .. ": get " .. id)
  end
  for _, mode in ipairs(modes) do
    view:index_mode(mode)
    for _, q in ipairs(qs) do
      assert.are.same(util.ask(ref, q), util.ask(view, q), what .. ": " .. q[1] .. " (" .. mode .. ")")
    end
  end
  view:index_mode("auto")
end

return util
