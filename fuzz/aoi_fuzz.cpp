// libFuzzer: random sequences of AOI, interest-management and contacts calls, decoded from the
// input by a small Lua driver and checked after every update against the plain-Lua references
// of the specs (test/pairs_reference.lua, test/interest_reference.lua), loaded from test/ (fuzz
// runs from the repository root). Ids come from a small pool with both ends of the integers,
// positions from a small grid (equal distances, co-located entities, targets on the radius)
// and a few past 1e19, where squares overflow float32; masks of a few bits. Bad arguments must raise and change nothing; closed objects must raise
// the manual's errors.
#include <lua.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int luaopen_soageo_core(lua_State* L);

namespace {

void fail(const char* what) {
    std::fprintf(stderr, "aoi_fuzz: %s\n", what);
    std::abort();
}

// run(bytes): the whole scenario of one input; raises on a wrong answer.
const char* const kDriver = R"lua(
local soageo = require "soageo"
local ref = require "pairs_reference"
local iref = require "interest_reference"
local util = require "spec_util"  -- replay, pair_set, sorted_pairs

local IDS = { math.mininteger, math.mininteger + 1, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7,
              math.maxinteger - 1, math.maxinteger, 9, 10 }
local COORDS = { 0, 1, 2, 3, 4, 5, 6, 8, -1, -3, 0.5, 7, 10, 12, 1e19, -2e19 }
local VIEWS = { 0, 1, 2, 3, 4, 5, 2.5, 8, 13, 100, 1e20 }
local RADII = { 0, 0, 0.5, 1, 2, 0.25, 3, 1e19 }
local MARGINS = { 0, 0, 0, 0.5, 1, 2, 3, 5 }
local MASKS = { 0, 1, 2, 3, 4, 5, 6, 0xffffffff }
local BANDS = { 0.5, 1, 2, 3, math.sqrt(2), 0.3, 1e-30, 1e30 }
local PERIODS = { 1, 2, 3, 8, 9, 32, 33, 40 }  -- around the period tables' sizes
local BAD_OPTIONS = {
  { max = 0 }, { max = 1.5 }, { budget = 0 }, { max_period = 0 }, { band = 0 }, { band = -1 },
  { band = math.huge }, { band = 0 / 0 }, { always = -1 }, { always = 1 << 32 }, { maximum = 2 },
  { 5 }, { max = -3, band = 1 }, { max = 2, budget = 2.5 },
}

local function fail(fmt, ...) error(string.format(fmt, ...), 0) end

-- expects obj:name(...) to raise an error whose text holds `message`; called as a method, so
-- that Lua names the function in the error as in a user's call
local callers = {}
local function raises(message, obj, name, ...)
  callers[name] = callers[name] or load("local o = ...; return o:" .. name .. "(select(2, ...))")
  local ok, err = pcall(callers[name], obj, ...)
  if ok then fail("no error, expected '%s'", message) end
  if not tostring(err):find(message, 1, true) then fail("error '%s', expected '%s'", tostring(err), message) end
end

local function same_sets(x, y, what)
  for a, bs in pairs(x) do
    for b in pairs(bs) do if not (y[a] and y[a][b]) then fail("%s: %d %d is extra", what, a, b) end end
  end
  for a, bs in pairs(y) do
    for b in pairs(bs) do if not (x[a] and x[a][b]) then fail("%s: %d %d is missing", what, a, b) end end
  end
end

-- out[1..n] must be exactly the keys of set, ascending, and nothing after them
local function same_list(out, n, set, what)
  if out[n + 1] ~= nil then fail("%s: out[n + 1] not cleared", what) end
  local count = 0
  for _ in pairs(set) do count = count + 1 end
  if count ~= n then fail("%s: %d ids, want %d", what, n, count) end
  for i = 1, n do
    if not set[out[i]] then fail("%s: %d is extra", what, out[i]) end
    if i > 1 and out[i - 1] >= out[i] then fail("%s: not ascending", what) end
  end
end

-- Everything the checks know of one aoi: what was asked of it and what it saw.
local function new_model(margin)
  return { margin = margin, views = {}, wmasks = {}, opts = {}, pins = {}, vis = {}, uncapped = {},
           capped = {}, state = {}, tick = 0, due = {} }
end

local function make_options(input)
  local f = input.byte()
  if f & 64 ~= 0 then return nil, true end
  local o = {}
  if f & 1 ~= 0 then o.max = 1 + input.byte() % 4 end
  if f & 2 ~= 0 then o.always = MASKS[1 + input.byte() % #MASKS] end
  if f & 4 ~= 0 then o.band = BANDS[1 + input.byte() % #BANDS] end
  if f & 8 ~= 0 then o.max_period = PERIODS[1 + input.byte() % #PERIODS] end
  if f & 16 ~= 0 then o.budget = 1 + input.byte() % 3 end
  if f & 32 ~= 0 then return BAD_OPTIONS[1 + input.byte() % #BAD_OPTIONS], false end
  return o, true
end

-- The ids to ask visible and watchers_of about: the pool and the layer's.
local function all_ids(w)
  local ids = {}
  for _, id in ipairs(IDS) do ids[id] = true end
  for id in w.layer:each() do ids[id] = true end
  return ids
end

-- obj:update(a, b) (or obj:update() when not use_tables): its two event lists and counts, each
-- sorted and cleared after its last pair; with each_ascends, a < b within every pair.
local function events(obj, use_tables, a, b, each_ascends)
  local x, y, nx, ny
  if use_tables then
    x, y, nx, ny = obj:update(a, b)
  else
    x, y, nx, ny = obj:update()
  end
  if not (util.sorted_pairs(x, nx, each_ascends) and util.sorted_pairs(y, ny, each_ascends)) then
    fail("events not sorted")
  end
  if x[2 * nx + 1] ~= nil or y[2 * ny + 1] ~= nil then fail("events not cleared after n") end
  return x, y, nx, ny
end

-- ask_watchers: whether to check watchers_of (its inverted lists follow the updates only while
-- it is called)
local function check_update(w, use_tables, ask_watchers)
  local m, aoi, layer = w.model, w.aoi, w.layer
  local enter, leave, ne, nl = events(aoi, use_tables, w.enter, w.leave, false)
  util.replay(m.vis, enter, ne, leave, nl)
  m.tick = m.tick + 1
  m.uncapped = ref.visible(layer, m.views, m.margin, m.uncapped, m.wmasks)
  m.capped = iref.capped(layer, m.uncapped, m.opts, m.pins, m.margin, m.capped)
  m.due = iref.schedule(layer, m.capped, m.opts, m.state, m.tick)
  same_sets(m.vis, m.capped, "events replayed against the reference's views")
  local seers = {}
  for id in pairs(all_ids(w)) do
    local view = m.capped[id] or {}
    local out, n = aoi:visible(id, w.out)
    same_list(out, n, view, "visible(" .. id .. ")")
    local opt = m.opts[id]
    if opt and opt.max then
      local extra = 0
      for t in pairs(view) do
        if (m.pins[id] and m.pins[id][t]) or (select(4, layer:get(t)) & (opt.always or 0)) ~= 0 then extra = extra + 1 end
      end
      if n > opt.max + extra then fail("capped view of %d too large", id) end
    end
    for t in pairs(view) do
      seers[t] = seers[t] or {}
      seers[t][id] = true
    end
  end
  for id in pairs(ask_watchers and all_ids(w) or {}) do
    local out, n = aoi:watchers_of(id, w.out)
    same_list(out, n, seers[id] or {}, "watchers_of(" .. id .. ")")
  end
  local watchers = 0
  for _ in pairs(m.views) do watchers = watchers + 1 end
  if aoi:watchers() ~= watchers then fail("watchers() is %d, want %d", aoi:watchers(), watchers) end
  local due, n = aoi:due(w.due_out)
  if not util.sorted_pairs(due, n) or due[2 * n + 1] ~= nil then fail("due not sorted or not cleared after n") end
  local got = util.pair_set(due, n)
  same_sets(got, m.due, "due")
  for a, bs in pairs(got) do
    for b in pairs(bs) do if not (m.vis[a] and m.vis[a][b]) then fail("due %d %d not visible", a, b) end end
  end
end

local function check_contacts(w, use_tables)
  local c = w.contacts
  local began, ended, nb, ne = events(c, use_tables, w.began, w.ended, true)
  util.replay(w.touch, began, nb, ended, ne)
  local want = ref.pairs(ref.entities(w.layer))
  same_sets(w.touch, util.pair_set(want, #want // 2), "contacts against the reference's pairs")
  local by_id = {}
  for i = 1, #want, 2 do
    local a, b = want[i], want[i + 1]
    by_id[a] = by_id[a] or {}
    by_id[b] = by_id[b] or {}
    by_id[a][b], by_id[b][a] = true, true
  end
  for id in pairs(all_ids(w)) do
    local out, n = c:touching(id, w.out)
    same_list(out, n, by_id[id] or {}, "touching(" .. id .. ")")
  end
end

-- A new layer, aoi (margin from the input) and contacts.
local function new_world(input)
  local layer = soageo.layer()
  local margin = MARGINS[1 + input.byte() % #MARGINS]
  return { layer = layer, aoi = soageo.aoi(layer, { margin = margin }), model = new_model(margin),
           enter = {}, leave = {}, out = {}, due_out = {}, began = {}, ended = {}, touch = {} }
end

local function close_world(w)
  if w.contacts then w.contacts:close() end
  w.aoi:close()
  w.layer:close()
end

local function watch(w, input)
  local m, id, view = w.model, IDS[1 + input.byte() % #IDS], VIEWS[1 + input.byte() % #VIEWS]
  local kind = input.byte()
  local mask = kind & 1 ~= 0 and MASKS[1 + input.byte() % #MASKS] or nil
  local opt, valid = nil, true
  if kind & 2 ~= 0 then opt, valid = make_options(input) end
  if kind & 4 ~= 0 and kind & 8 ~= 0 then  -- a bad view radius or id
    valid = false
    local bad = kind >> 4
    if bad % 3 == 0 then view = -1 elseif bad % 3 == 1 then view = 0 / 0 else id = 1.5 end
  end
  local ok, err = pcall(w.aoi.watch, w.aoi, id, view, mask, opt)
  if ok ~= valid then fail("watch(%s, %s) %s", tostring(id), tostring(view), ok and "accepted bad input" or "refused: " .. tostring(err)) end
  if not ok then return end
  m.views[id], m.wmasks[id] = view, mask or 0xffffffff
  m.opts[id] = opt and next(opt) ~= nil and opt or nil  -- {} is no option
end

local function unwatch(w, input)
  local m, id = w.model, IDS[1 + input.byte() % #IDS]
  local was = w.aoi:unwatch(id)
  if was ~= (m.views[id] ~= nil) then fail("unwatch(%d) returned %s", id, tostring(was)) end
  m.views[id], m.wmasks[id], m.opts[id], m.pins[id] = nil, nil, nil, nil
end

local function pin(w, input)
  local m, a, b = w.model, IDS[1 + input.byte() % #IDS], IDS[1 + input.byte() % #IDS]
  m.pins[a] = m.pins[a] or {}
  if input.byte() & 1 == 0 then
    w.aoi:pin(a, b)
    m.pins[a][b] = true
  else
    local was = w.aoi:unpin(a, b)
    if was ~= (m.pins[a][b] == true) then fail("unpin(%d, %d) returned %s", a, b, tostring(was)) end
    m.pins[a][b] = nil
  end
end

local function layer_op(w, op, input)
  local layer, id = w.layer, IDS[1 + input.byte() % #IDS]
  if op == 0 then
    local x, y = COORDS[1 + input.byte() % #COORDS], COORDS[1 + input.byte() % #COORDS]
    local k = input.byte()
    layer:set(id, x, y, RADII[1 + k % #RADII], MASKS[1 + (k >> 3) % #MASKS])
  elseif op == 1 then
    local x, y = COORDS[1 + input.byte() % #COORDS], COORDS[1 + input.byte() % #COORDS]
    local ok = pcall(layer.move, layer, id, x, y)
    if ok ~= layer:has(id) then fail("move(%d)", id) end
  elseif op == 2 then
    layer:remove(id)
  else  -- a crowd on the grid, so that updates find many movers or few
    local k, s = input.byte() % 48, input.byte()
    for j = 1, k do layer:set(100 + j, (j * 7 + s) % 13, (j * 5 + s * 3) % 11, RADII[1 + j % #RADII], 1 << (j % 3)) end
    if s % 5 == 0 then layer:clear() end
  end
end

-- The layer's list methods, whose changes the aoi and contacts must see as they see set's:
-- set_many, move_many (all or nothing: an unknown id raises and moves none), remove_many, and
-- merge of a snapshot with masks changed on the way.
local function bulk_op(w, input)
  local layer, kind, k = w.layer, input.byte(), 1 + input.byte() % 4
  local ids, xs, ys, rs, masks = {}, {}, {}, {}, {}
  for i = 1, k do
    ids[i] = IDS[1 + input.byte() % #IDS]
    xs[i], ys[i] = COORDS[1 + input.byte() % #COORDS], COORDS[1 + input.byte() % #COORDS]
    rs[i], masks[i] = RADII[1 + i % #RADII], MASKS[1 + (kind >> 2) % #MASKS]
  end
  if kind % 4 == 0 then
    layer:set_many(ids, xs, ys, rs, masks)
  elseif kind % 4 == 1 then
    local before = {}
    local all_there = true
    for i = 1, k do
      all_there = all_there and layer:has(ids[i])
      before[i] = { layer:get(ids[i]) }
    end
    local ok = pcall(layer.move_many, layer, ids, xs, ys)
    if ok ~= all_there then fail("move_many %s", ok and "moved an unknown id" or "refused known ids") end
    for i = 1, ok and 0 or k do
      local x, y = layer:get(ids[i])
      if x ~= before[i][1] or y ~= before[i][2] then fail("a refused move_many moved %d", ids[i]) end
    end
  elseif kind % 4 == 2 then
    layer:remove_many(ids)
  else
    local from = soageo.layer()
    for i = 1, k do from:set(ids[i], xs[i], ys[i], rs[i], masks[i]) end
    layer:merge(from:dump(), MASKS[1 + (kind >> 5) % #MASKS], MASKS[1 + (kind >> 3) % #MASKS])
    from:close()
  end
end

-- Closing: the closed object's methods raise its error; a closed layer's aoi and contacts raise
-- theirs. Then the scenario goes on with new objects.
local function close_op(w, input)
  local k = input.byte() % 3
  if k == 0 then
    w.aoi:close()
    w.aoi:close()
    raises("calling 'update' on bad self (aoi is closed)", w.aoi, "update")
    raises("calling 'visible' on bad self (aoi is closed)", w.aoi, "visible", 1)
    w.aoi = soageo.aoi(w.layer, { margin = w.model.margin })
    w.model = new_model(w.model.margin)
  elseif k == 1 and w.contacts then
    w.contacts:close()
    raises("calling 'update' on bad self (contacts is closed)", w.contacts, "update")
    w.contacts, w.touch = nil, {}
  else
    w.layer:close()
    raises("the aoi's layer is closed", w.aoi, "update")
    raises("the aoi's layer is closed", w.aoi, "watch", 1, 5)
    raises("the aoi's layer is closed", w.aoi, "due")
    if w.contacts then raises("the contacts' layer is closed", w.contacts, "touching", 1) end
    close_world(w)
    return new_world(input)
  end
  return w
end

function run(bytes)
  local pos = 0
  local input = {}
  function input.byte()
    if pos >= #bytes then return 0 end
    pos = pos + 1
    return bytes:byte(pos)
  end
  local w = new_world(input)
  while pos < #bytes do
    local op = input.byte() % 16
    if op <= 3 then
      layer_op(w, op, input)
    elseif op <= 5 then
      watch(w, input)
    elseif op == 6 then
      unwatch(w, input)
    elseif op == 7 then
      pin(w, input)
    elseif op <= 10 then
      check_update(w, op ~= 10, op ~= 9)
    elseif op == 11 then  -- due only reads: the same pairs again
      local due, n = w.aoi:due()
      same_sets(util.pair_set(due, n), w.model.tick > 0 and w.model.due or {}, "due read again")
    elseif op == 12 then
      w.contacts = w.contacts or soageo.contacts(w.layer)
      check_contacts(w, input.byte() & 1 == 0)
    elseif op == 13 then
      w = close_op(w, input)
    elseif op == 14 then
      bulk_op(w, input)
    else
      layer_op(w, 1, input)
    end
  end
  close_world(w)
end
)lua";

lua_State* driver() {
    lua_State* L = luaL_newstate();
    luaL_openlibs(L);
    luaL_requiref(L, "soageo.core", luaopen_soageo_core, 0);
    lua_pop(L, 1);
    if (luaL_dostring(L, "package.path = 'test/?.lua;lualib/?.lua;' .. package.path") != LUA_OK ||
        luaL_dostring(L, kDriver) != LUA_OK)
        fail(lua_tostring(L, -1));
    return L;
}

}  // namespace

// One Lua state for every input (loading the references is most of a small input's cost); a
// full collection after each run leaves nothing of it to the next.
extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static lua_State* L = driver();
    lua_getglobal(L, "run");
    lua_pushlstring(L, reinterpret_cast<const char*>(data), size);
    if (lua_pcall(L, 1, 0, 0) != LUA_OK) fail(lua_tostring(L, -1));
    lua_gc(L, LUA_GCCOLLECT, 0);
    return 0;
}
