-- A random world checked against a plain-Lua model. Every change goes to a soageo layer and to
-- a table of the float32 values the layer must hold; every answer (each query and its batch
-- form, nearest, casts, pairs, contact events, the AOI, snapshots) is compared with the references of
-- test/*_reference.lua computed from that table, never from the layer under test.
-- test/skynet/stress_worker.lua runs it in many skynet services at once; test/stress_world_spec.lua
-- runs it on plain Lua and shows that a wrong answer is caught.
--
--   local w = require("stress_world").new(seed)
--   for _ = 1, 1000 do w:step() end
--   w.ops, w.mismatches, w.first   -- operations done, wrong answers, the first one described
--   w.kinds                        -- operation kind -> times run
local soageo = require "soageo"
local rng = require "rng"
local f32 = require("float32").f32
local sector_ref = require "sector_reference"
local shape_ref = require "shapes_reference"
local pairs_ref = require "pairs_reference"

local pi, cos, sin, floor, sort, unpack = math.pi, math.cos, math.sin, math.floor, table.sort, table.unpack

-- Every coordinate is a multiple of 2^-10 below 2^8: exact in float32, and what the exact
-- triangle and polygon references need.
local UNIT = 2 ^ -10
local SIZE = 256
local MAX_ID = 500
local MARGIN = 2
local WATCHERS = 64   -- watcher ids are 1..WATCHERS
local MASKS = { 1, 2, 4, 3, 5, 6, 7 }

local M = {}
local World = {}
World.__index = World

local function grid(g, lo, hi) return g:int(floor(lo / UNIT), floor(hi / UNIT)) * UNIT end

function World:coord() return grid(self.g, 0, SIZE) end
function World:radius() return grid(self.g, 0, 3) end
function World:mask() return MASKS[self.g:int(1, #MASKS)] end
function World:query_mask()
  if self.g:int(1, 3) == 1 then return nil end
  return MASKS[self.g:int(1, #MASKS)]
end
function World:direction()
  local g = self.g
  local dx, dy = g:uniform(-1, 1), g:uniform(-1, 1)
  if dx == 0 and dy == 0 then dx = 1 end
  return dx, dy
end

-- A model: id -> { x, y, r, mask } as float32 values, and a list of its ids for random picks.
local function new_model() return { e = {}, list = {}, at = {}, n = 0 } end

local function model_set(m, id, x, y, r, mask)
  if not m.e[id] then
    m.n = m.n + 1
    m.list[m.n], m.at[id] = id, m.n
  end
  m.e[id] = { f32(x), f32(y), f32(r), mask }
end

local function model_remove(m, id)
  if not m.e[id] then return false end
  local i, last = m.at[id], m.list[m.n]
  m.list[i], m.at[last] = last, i
  m.list[m.n], m.at[id], m.e[id] = nil, nil, nil
  m.n = m.n - 1
  return true
end

-- What pairs_reference.visible reads, from the model instead of the layer under test.
local function model_view(m)
  return {
    each = function()
      local i = 0
      return function()
        i = i + 1
        local id = m.list[i]
        if id then local e = m.e[id]; return id, e[1], e[2], e[3], e[4] end
      end
    end,
    has = function(_, id) return m.e[id] ~= nil end,
    get = function(_, id) local e = m.e[id]; if e then return e[1], e[2], e[3], e[4] end end,
  }
end

local function entities(m)
  local t = {}
  for i = 1, m.n do local id = m.list[i]; local e = m.e[id]; t[i] = { id, e[1], e[2], e[3], e[4] } end
  return t
end

function World:fail(what)
  self.mismatches = self.mismatches + 1
  if not self.first then self.first = what end
end

local function same_list(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do if a[i] ~= b[i] then return false end end
  return true
end

local function first_of(out, n)
  local t = {}
  for i = 1, n do t[i] = out[i] end
  return t
end

local function sorted(out, n)
  local t = first_of(out, n)
  sort(t)
  return t
end

function World:check(ok, what, ...)
  if not ok then self:fail(string.format(what, ...)) end
  return ok
end

-- The ids of the model whose entity passes pred(x, y, r) and the query mask, ascending.
function World:expect(pred, qmask)
  local t = {}
  for id, e in pairs(self.model.e) do
    if (not qmask or e[4] & qmask ~= 0) and pred(e[1], e[2], e[3]) then t[#t + 1] = id end
  end
  sort(t)
  return t
end

-- A convex polygon on the grid, or now and then one that is not (the reference then says why
-- and soageo must refuse it).
function World:polygon()
  local g = self.g
  local cx, cy, rad = self:coord(), self:coord(), g:uniform(2, 40)
  local k = g:int(3, 8)
  local angles = {}
  for i = 1, k do angles[i] = g:uniform(0, 2 * pi) end
  sort(angles)
  if g:int(1, 8) == 1 then angles[1], angles[2] = angles[2], angles[1] end  -- maybe not convex
  local coords = {}
  for i = 1, k do
    coords[2 * i - 1] = floor((cx + rad * cos(angles[i])) / UNIT) * UNIT
    coords[2 * i] = floor((cy + rad * sin(angles[i])) / UNIT) * UNIT
  end
  return coords
end

-- The query kinds: how many numbers a shape takes (or "polygon"), a random shape, and the
-- reference predicate for it. in_* test the entity's centre, touch_* its disk.
local KINDS = {}
local function kind(name, n, gen, pred) KINDS[#KINDS + 1] = { name = name, n = n, gen = gen, pred = pred } end

local function sector_args(w)
  local g = w.g
  local dx, dy = w:direction()
  local half = ({ pi, pi / 2, g:uniform(0.05, pi) })[g:int(1, 3)]
  return { w:coord(), w:coord(), dx, dy, g:uniform(0, 60), half }
end
-- The in_ and touch_ kinds of a shape the reference prepares once: make(args) (nil: a shape
-- soageo must refuse), then point(q, x, y) and disk(q, x, y, r) its tests.
local function prepared_kinds(name, n, gen, make, point, disk)
  kind("in_" .. name, n, gen, function(a)
    local q = make(a)
    return q and function(x, y) return point(q, x, y) end
  end)
  kind("touch_" .. name, n, gen, function(a)
    local q = make(a)
    return q and function(x, y, r) return disk(q, x, y, r) end
  end)
end
prepared_kinds("sector", 6, sector_args, function(a) return sector_ref.sector(unpack(a)) end, sector_ref.point_in,
  sector_ref.disk_touches)
local function circle_args(w) return { w:coord(), w:coord(), w.g:uniform(0, 40) } end
kind("in_circle", 3, circle_args, function(a)
  return function(x, y) return shape_ref.in_circle(a[1], a[2], a[3], x, y) end
end)
kind("touch_circle", 3, circle_args, function(a)
  return function(x, y, r) return shape_ref.touch_circle(a[1], a[2], a[3], x, y, r) end
end)
local function box_args(w)
  local x0, y0 = w:coord(), w:coord()
  return { x0, y0, x0 + w.g:uniform(0, 60), y0 + w.g:uniform(0, 60) }
end
kind("in_box", 4, box_args, function(a)
  return function(x, y) return shape_ref.in_box(a[1], a[2], a[3], a[4], x, y) end
end)
kind("touch_box", 4, box_args, function(a)
  return function(x, y, r) return shape_ref.touch_box(a[1], a[2], a[3], a[4], x, y, r) end
end)
kind("touch_capsule", 5, function(w) return { w:coord(), w:coord(), w:coord(), w:coord(), w.g:uniform(0, 10) } end, function(a)
  return function(x, y, r) return shape_ref.touch_capsule(a[1], a[2], a[3], a[4], a[5], x, y, r) end
end)
local function triangle_args(w)
  local x, y = w:coord(), w:coord()
  local function near(v) return v + grid(w.g, -40, 40) end
  return { x, y, near(x), near(y), near(x), near(y) }
end
kind("in_triangle", 6, triangle_args, function(a)
  return function(x, y) return shape_ref.in_triangle(a[1], a[2], a[3], a[4], a[5], a[6], x, y) end
end)
kind("touch_triangle", 6, triangle_args, function(a)
  return function(x, y, r) return shape_ref.touch_triangle(a[1], a[2], a[3], a[4], a[5], a[6], x, y, r) end
end)
local function rect_args(w)
  local dx, dy = w:direction()
  return { w:coord(), w:coord(), dx, dy, w.g:uniform(0, 60), w.g:uniform(0, 10) }
end
prepared_kinds("rect", 6, rect_args, function(a) return shape_ref.rect(unpack(a)) end, shape_ref.in_rect,
  shape_ref.touch_rect)
local function ring_args(w)
  local inner = w.g:uniform(0, 20)
  return { w:coord(), w:coord(), inner, inner + w.g:uniform(0, 30) }
end
kind("in_ring", 4, ring_args, function(a)
  return function(x, y) return shape_ref.in_ring(a[1], a[2], a[3], a[4], x, y) end
end)
kind("touch_ring", 4, ring_args, function(a)
  return function(x, y, r) return shape_ref.touch_ring(a[1], a[2], a[3], a[4], x, y, r) end
end)
prepared_kinds("polygon", "polygon", World.polygon, function(c) return shape_ref.polygon(c, UNIT) end,
  shape_ref.in_polygon, shape_ref.touch_polygon)

function World:count(name) self.kinds[name] = (self.kinds[name] or 0) + 1 end

-- One query of a random kind, then the same kind as a batch of 1 to 4 shapes.
function World:query()
  local g, layer = self.g, self.layer
  local k = KINDS[g:int(1, #KINDS)]
  local args, qmask = k.gen(self), self:query_mask()
  local pred = k.pred(args)
  self:count(k.name)
  local ok, out, n
  if k.n == "polygon" then
    ok, out, n = pcall(layer[k.name], layer, args, self.out, qmask)
  else  -- out and mask follow the shape's numbers
    local a = { unpack(args, 1, k.n) }
    a[k.n + 1], a[k.n + 2] = self.out, qmask
    ok, out, n = pcall(layer[k.name], layer, unpack(a, 1, k.n + 2))
  end
  if not pred then
    self:check(not ok, "%s accepted a polygon the reference refuses", k.name)
  elseif self:check(ok, "%s raised %s", k.name, tostring(out)) then
    self:check(same_list(sorted(out, n), self:expect(pred, qmask)), "%s answered differently from the reference", k.name)
  end
  -- The batch form: shapes one after the other in one call, (shape, id) pairs shape by shape.
  local shapes, preds, params = g:int(1, 4), {}, {}
  for s = 1, shapes do
    local a = s == 1 and args or k.gen(self)
    preds[s] = k.pred(a)
    if k.n == "polygon" then params[s] = a else for i = 1, k.n do params[#params + 1] = a[i] end end
  end
  self:count(k.name .. "_batch")
  local valid = true
  for s = 1, shapes do valid = valid and preds[s] ~= nil end
  local okb, pairs_out, np = pcall(layer[k.name .. "_batch"], layer, params, self.pairs_out, qmask)
  if not valid then
    self:check(not okb, "%s_batch accepted a polygon the reference refuses", k.name)
    return
  end
  if not self:check(okb, "%s_batch raised %s", k.name, tostring(pairs_out)) then return end
  local per, last = {}, 1
  for i = 1, np do
    local s, id = pairs_out[2 * i - 1], pairs_out[2 * i]
    if not self:check(s >= last and s <= shapes, "%s_batch out of shape order", k.name) then return end
    last = s
    per[s] = per[s] or {}
    per[s][#per[s] + 1] = id
  end
  for s = 1, shapes do
    local got = per[s] or {}
    sort(got)
    self:check(same_list(got, self:expect(preds[s], qmask)), "%s_batch shape %d differs from the reference", k.name, s)
  end
end

-- Segment casts: every box crossed with its entry t, ordered by t then id; and the first one.
function World:cast()
  local layer = self.layer
  local x0, y0, x1, y1, qmask = self:coord(), self:coord(), self:coord(), self:coord(), self:query_mask()
  local hits = {}
  for id, e in pairs(self.model.e) do
    if not qmask or e[4] & qmask ~= 0 then
      local t = shape_ref.cast(x0, y0, x1, y1, e[1], e[2], e[3])
      if t then hits[#hits + 1] = { t, id } end
    end
  end
  sort(hits, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
  self:count("cast_segment")
  local ids, ts, n = layer:cast_segment(x0, y0, x1, y1, self.out, self.out_t, qmask)
  local ok = n == #hits
  for i = 1, ok and n or 0 do ok = ok and ids[i] == hits[i][2] and ts[i] == hits[i][1] end
  self:check(ok, "cast_segment answered differently from the reference")
  self:count("cast_segment_first")
  local id, t = layer:cast_segment_first(x0, y0, x1, y1, qmask)
  if hits[1] then
    self:check(id == hits[1][2] and t == hits[1][1], "cast_segment_first answered differently from the reference")
  else
    self:check(id == nil, "cast_segment_first hit where the reference misses")
  end
end

-- The k nearest centres: in_circle's float32 distance, ties by id, max_dist strict.
function World:nearest()
  local g = self.g
  local x, y, k, qmask = self:coord(), self:coord(), g:int(0, 12), self:query_mask()
  local max = g:int(1, 2) == 1 and g:uniform(1, 50) or nil
  local cx, cy = f32(x), f32(y)
  local lim = max and f32(f32(max) * f32(max))
  local all = {}
  for id, e in pairs(self.model.e) do
    local dx, dy = f32(e[1] - cx), f32(e[2] - cy)
    local d2 = f32(f32(dx * dx) + f32(dy * dy))
    if (not qmask or e[4] & qmask ~= 0) and (not lim or d2 < lim) then all[#all + 1] = { d2, id } end
  end
  sort(all, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
  local want = {}
  for i = 1, math.min(k, #all) do want[i] = all[i][2] end
  self:count("nearest")
  local out, n = self.layer:nearest(x, y, k, max, self.out, qmask)
  self:check(same_list(first_of(out, n), want), "nearest answered differently from the reference")
end

function World:pairs_check()
  self:count("pairs")
  local want = pairs_ref.pairs_sweep(entities(self.model))
  local out, n = self.layer:pairs(self.pairs_out)
  self:check(n * 2 == #want and same_list(first_of(out, 2 * n), want), "pairs answered differently from the reference")
  self:count("pair_count")
  self:check(self.layer:pair_count() == #want // 2, "pair_count differs from the reference")
  self:count("pairs_between")
  local between = pairs_ref.pairs_between_sweep(entities(self.model), entities(self.other))
  local bout, bn = soageo.pairs_between(self.layer, self.other_layer, self.pairs_out)
  self:check(bn * 2 == #between and same_list(first_of(bout, 2 * bn), between), "pairs_between answered differently from the reference")
end

-- A few watchers come, go or change their view and filter, then an update: its events replayed
-- onto the previous visible sets must give the reference's sets, and visible/watchers_of agree.
function World:aoi_step()
  local g, aoi = self.g, self.aoi
  local touched = {}
  for _ = 1, g:int(0, 6) do
    local id = g:int(1, WATCHERS)  -- a few dozen watchers: the reference costs watchers x entities
    if not touched[id] then
      touched[id] = true
      if self.views[id] and g:int(1, 3) == 1 then
        self:check(aoi:unwatch(id) == true, "unwatch of a watcher returned false")
        self.views[id], self.wmasks[id] = nil, nil
      else
        local view, wmask = grid(g, 1, 25), g:int(1, 4) == 1 and self:mask() or nil
        aoi:watch(id, view, wmask)
        self.views[id], self.wmasks[id] = view, wmask or 0xffffffff
      end
    end
  end
  self:count("aoi_update")
  local enter, leave, ne, nl = aoi:update(self.enter, self.leave)
  self.enter, self.leave = enter, leave
  local vis = self.vis
  for i = 1, nl do
    local w, t = leave[2 * i - 1], leave[2 * i]
    if not self:check(vis[w] and vis[w][t], "aoi left (%d, %d) that was not visible", w, t) then return end
    vis[w][t] = nil
  end
  for i = 1, ne do
    local w, t = enter[2 * i - 1], enter[2 * i]
    vis[w] = vis[w] or {}
    if not self:check(not vis[w][t], "aoi entered (%d, %d) twice", w, t) then return end
    vis[w][t] = true
  end
  self.truth = pairs_ref.visible(model_view(self.model), self.views, MARGIN, self.truth, self.wmasks)
  local seers = {}
  for w, set in pairs(self.truth) do
    for t in pairs(set) do
      if not self:check(vis[w] and vis[w][t], "aoi misses (%d, %d)", w, t) then return end
      seers[t] = seers[t] or {}
      seers[t][#seers[t] + 1] = w
    end
  end
  for w, set in pairs(vis) do
    for t in pairs(set) do
      if not self:check(self.truth[w] and self.truth[w][t], "aoi sees (%d, %d) wrongly", w, t) then return end
    end
  end
  self:count("aoi_visible")
  for w in pairs(self.views) do
    local want = {}
    for t in pairs(self.truth[w] or {}) do want[#want + 1] = t end
    sort(want)
    local out, n = aoi:visible(w, self.out)
    if not self:check(same_list(first_of(out, n), want), "aoi:visible(%d) differs", w) then return end
  end
  self:count("aoi_watchers_of")
  for _ = 1, 4 do
    local t = g:int(1, MAX_ID)
    local want = seers[t] or {}
    sort(want)
    local out, n = aoi:watchers_of(t, self.out)
    self:check(same_list(first_of(out, n), want), "aoi:watchers_of(%d) differs", t)
  end
end

-- Contact events: the pairs that began and ended since the last update are the difference of
-- two reference pair lists; touching(id) the ids paired with id now.
function World:contacts_step()
  self:count("contacts_update")
  local now = pairs_ref.pairs_sweep(entities(self.model))
  local cur, began, ended = {}, {}, {}
  for i = 1, #now, 2 do cur[now[i] .. " " .. now[i + 1]] = true end
  for i = 1, #now, 2 do
    if not self.cset[now[i] .. " " .. now[i + 1]] then began[#began + 1], began[#began + 2] = now[i], now[i + 1] end
  end
  local before = self.cflat
  for i = 1, #before, 2 do
    if not cur[before[i] .. " " .. before[i + 1]] then ended[#ended + 1], ended[#ended + 2] = before[i], before[i + 1] end
  end
  local b, e, nb, ne = self.contacts:update(self.began, self.ended)
  self.began, self.ended = b, e
  self:check(same_list(first_of(b, 2 * nb), began), "contacts:update began differs from the reference")
  self:check(same_list(first_of(e, 2 * ne), ended), "contacts:update ended differs from the reference")
  self.cflat, self.cset = now, cur
  self:count("contacts_touching")
  for _ = 1, 4 do
    local id = self.g:int(1, MAX_ID)
    local want = {}
    for i = 1, #now, 2 do
      if now[i] == id then want[#want + 1] = now[i + 1] elseif now[i + 1] == id then want[#want + 1] = now[i] end
    end
    sort(want)
    local out, n = self.contacts:touching(id, self.out)
    self:check(same_list(first_of(out, n), want), "contacts:touching(%d) differs from the reference", id)
  end
end

function World:new_aoi()
  if self.contacts then self.contacts:close() end
  self.contacts = soageo.contacts(self.layer)
  self.cflat, self.cset = {}, {}
  if self.aoi then self.aoi:close() end
  self.aoi = soageo.aoi(self.layer, { margin = MARGIN })
  for id, view in pairs(self.views) do
    local m = self.wmasks[id]
    self.aoi:watch(id, view, m ~= 0xffffffff and m or nil)
  end
  self.vis, self.truth = {}, {}
end

-- The layer against the model: same count, same entities and values, each() in the layer's
-- order, get and has of ids present or not.
function World:content()
  self:count("content")
  local m, layer, seen = self.model, self.layer, 0
  if not self:check(#layer == m.n, "layer holds %d entities, the model %d", #layer, m.n) then return end
  for id, x, y, r, mask in layer:each() do
    local e = m.e[id]
    seen = seen + 1
    if not self:check(e and e[1] == x and e[2] == y and e[3] == r and e[4] == mask, "entity %d differs from the model", id) then return end
  end
  self:check(seen == m.n, "each() gave %d entities, the model holds %d", seen, m.n)
  for _ = 1, 8 do
    local id = self.g:int(1, MAX_ID)
    local e, x, y, r, mask = m.e[id], layer:get(id)
    self:check(layer:has(id) == (e ~= nil) and (not e or (x == e[1] and y == e[2] and r == e[3] and mask == e[4])),
      "get/has of %d differ from the model", id)
  end
end

local function sequence(layer)
  local t = {}
  for id, x, y, r, m in layer:each() do t[#t + 1] = string.pack("<jfffI4", id, x, y, r, m) end
  return table.concat(t)
end

-- dump/load: the loaded layer holds the same entities in the same order; now and then it
-- replaces the layer (as a handed-off region would), with a new aoi over it.
function World:snapshot()
  self:count("dump_load")
  local s = self.layer:dump()
  local copy = soageo.load(s)
  self:check(sequence(copy) == sequence(self.layer) and copy:dump() == s, "load(dump()) differs from the layer")
  if self.g:int(1, 3) == 1 then
    self:count("dump_load_swap")
    self.layer:close()
    self.layer = copy
    self:new_aoi()
  else
    copy:close()
  end
end

-- A partial snapshot of some ids merged into the other layer with mask bits set and cleared.
function World:partial()
  local g, m, o = self.g, self.model, self.other
  if m.n == 0 then return end
  self:count("dump_ids_merge")
  local ids, used = {}, {}
  for _ = 1, g:int(1, math.min(20, m.n)) do
    local id = m.list[g:int(1, m.n)]
    if not used[id] then used[id] = true; ids[#ids + 1] = id end
  end
  local s = self.layer:dump(ids)
  local part = soageo.load(s)
  local order = {}
  for id in part:each() do order[#order + 1] = id end
  part:close()
  self:check(same_list(order, ids), "dump(ids) does not hold the ids in list order")
  local set, clear = self:mask(), g:int(0, 7)
  local new = 0
  for _, id in ipairs(ids) do
    local e = m.e[id]
    if not o.e[id] then new = new + 1 end
    model_set(o, id, e[1], e[2], e[3], (e[4] & ~clear) | set)
  end
  self:check(self.other_layer:merge(s, set, clear) == new, "merge did not count the new ids")
  self:count("remove_many")
  local gone, count = {}, 0
  for _ = 1, g:int(0, 6) do
    local id = g:int(1, MAX_ID)
    gone[#gone + 1] = id
  end
  local removed = {}
  for _, id in ipairs(gone) do
    if not removed[id] and model_remove(o, id) then count = count + 1 end
    removed[id] = true
  end
  self:check(self.other_layer:remove_many(gone) == count, "remove_many did not count the removed ids")
  local ok = #self.other_layer == o.n
  for id, x, y, r, mask in self.other_layer:each() do
    local e = o.e[id]
    ok = ok and e ~= nil and e[1] == x and e[2] == y and e[3] == r and e[4] == mask
  end
  self:check(ok, "the merged layer differs from its model")
end

function World:mutate()
  local g, layer, m = self.g, self.layer, self.model
  local op = g:int(1, 10)
  if op <= 4 then
    self:count("set")
    local id, x, y, r, mask = g:int(1, MAX_ID), self:coord(), self:coord(), self:radius(), self:mask()
    layer:set(id, x, y, r, mask)
    model_set(m, id, x, y, r, mask)
  elseif op <= 7 then
    if m.n == 0 then return end
    self:count("move")
    local id = m.list[g:int(1, m.n)]
    local e = m.e[id]
    local x = math.min(SIZE, math.max(0, e[1] + grid(g, -4, 4)))
    local y = math.min(SIZE, math.max(0, e[2] + grid(g, -4, 4)))
    layer:move(id, x, y)
    model_set(m, id, x, y, e[3], e[4])
  elseif op <= 8 then
    self:count("remove")
    local id = g:int(1, MAX_ID)
    local was = m.e[id] ~= nil
    self:check(layer:remove(id) == was, "remove(%d) did not say whether it was there", id)
    model_remove(m, id)
  else
    self:count("set_many")
    local ids, xs, ys, rs, masks = {}, {}, {}, {}, {}
    for i = 1, g:int(1, 24) do
      ids[i], xs[i], ys[i], rs[i], masks[i] = g:int(1, MAX_ID), self:coord(), self:coord(), self:radius(), self:mask()
    end
    layer:set_many(ids, xs, ys, rs, masks)
    for i = 1, #ids do model_set(m, ids[i], xs[i], ys[i], rs[i], masks[i]) end
  end
end

-- One operation, picked at random; returns the number of wrong answers so far.
function World:step()
  local pick = self.g:int(1, 1000)
  local ok, err = pcall(function()
    if pick <= 450 then self:mutate()
    elseif pick <= 750 then self:query()
    elseif pick <= 800 then self:cast()
    elseif pick <= 850 then self:nearest()
    elseif pick <= 865 then self:pairs_check()
    elseif pick <= 880 then self:contacts_step()
    elseif pick <= 920 then self:aoi_step()
    elseif pick <= 945 then self:snapshot()
    elseif pick <= 970 then self:partial()
    elseif pick <= 999 then self:content()
    else
      self:count("clear")
      self.layer:clear()
      self.model = new_model()
    end
  end)
  self.ops = self.ops + 1
  if not ok then self:fail("unexpected error: " .. tostring(err)) end
  return self.mismatches
end

function M.new(seed)
  local w = setmetatable({
    g = rng.new(seed), layer = soageo.layer(), model = new_model(),
    other_layer = soageo.layer(), other = new_model(),
    views = {}, wmasks = {}, vis = {}, truth = {},
    out = {}, out_t = {}, pairs_out = {}, enter = {}, leave = {},
    ops = 0, mismatches = 0, kinds = {},
  }, World)
  for _ = 1, 300 do
    local id, x, y, r, mask = w.g:int(1, MAX_ID), w:coord(), w:coord(), w:radius(), w:mask()
    w.layer:set(id, x, y, r, mask)
    model_set(w.model, id, x, y, r, mask)
  end
  for _ = 1, 60 do
    local id, x, y, r, mask = w.g:int(1, MAX_ID), w:coord(), w:coord(), w:radius(), w:mask()
    w.other_layer:set(id, x, y, r, mask)
    model_set(w.other, id, x, y, r, mask)
  end
  w:new_aoi()
  return w
end

M.KINDS = KINDS
M.OTHER_KINDS = { "set", "move", "remove", "set_many", "clear", "cast_segment", "cast_segment_first", "nearest",
  "pairs", "pair_count", "pairs_between", "aoi_update", "aoi_visible", "aoi_watchers_of", "dump_load",
  "dump_load_swap", "dump_ids_merge", "remove_many", "content", "contacts_update", "contacts_touching" }
return M
