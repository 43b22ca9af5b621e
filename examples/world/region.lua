-- One region of a world split over a grid (examples/world/grid.lua): a layer holding the
-- entities it owns and, as ghosts, the entities of its neighbours that stand within `border`
-- of its rectangle. Plain Lua with no transport: a tick is four phases, each taking the
-- messages the previous phase produced elsewhere and returning the messages for the next
-- (examples/world/init.lua runs regions in one Lua state; examples/skynet/world/ runs each
-- in its own service, on one node or two).
--
--   move(tick, joins, leaves) -> migrations   { [region] = migration }
--   arrive(migrations)        -> strips       { [region] = snapshot string }
--   ghosts(strips)            -> hits         { [region] = { attacker, target, ... } }
--   update(hits)              -> enter, leave, n_enter, n_leave, hits, n_hits
--                                (apply_hits(hits) and views(), which may run in either order)
--
-- Owned entities carry the OWNED mask bit and ghosts the GHOST bit, beside their team bits:
-- strips are taken with the OWNED filter (a ghost is never mirrored again), skills hit
-- targets by team (owned and ghosts alike) that the caster sees past the walls (use_walls),
-- only owned entities cast or watch.
local soageo = require "soageo"
local rules_mod = require "world.rules"

local region = {}
local Region = {}
Region.__index = Region

local OWNED, GHOST = 1 << 30, 1 << 31
region.OWNED, region.GHOST = OWNED, GHOST
local TEAMS, ENEMY = rules_mod.TEAMS, rules_mod.ENEMY
local BIG = 3e38
-- Seconds, for the ghost-traffic figures; a skynet service sets a wall clock (os.clock counts
-- the CPU time of the whole process, every worker thread included).
region.clock = os.clock

local function f32(v) return (string.unpack("<f", string.pack("<f", v))) end

-- rules: world.rules; grid: world.grid; index: this region; border: strip width. `unchecked`
-- lets a spec build a region with too narrow a border, to see the proof fail.
function region.new(rules, grid, index, border, unchecked)
  assert(unchecked or border >= rules:min_border(), "border is narrower than the view + margin and the skill reach need")
  assert(border <= grid.cw and border <= grid.ch, "border must not exceed a region's size (strips come from neighbours only)")
  local r = setmetatable({
    rules = rules, grid = grid, index = index, border = border,
    layer = soageo.layer(), neighbours = grid:neighbours(index),
    view = {}, hp = {},             -- owned entities only
    carried = {},                   -- watcher -> { target = true }: seen before it migrated here, beyond its view now
    left = {}, gone = {}, arrived = {},  -- this tick: watchers that left the world, migrated out, migrated in
    casters = {}, n_casters = 0, tick_no = 0,
    out = {}, enter = {}, leave = {}, hits = {}, n_hits = 0,
    stats = { ghosts = 0, strip_bytes = 0, migrants = 0, remote_hits = 0, carried = 0, ghost_s = 0, walled = 0 },
  }, Region)
  r.x0, r.y0, r.x1, r.y1 = grid:rect(index)
  -- What surely stays owned after a move, whatever the float32 rounding of the position: the
  -- rectangle (an edge region's unbounded on that side) shrunk by more than a rounding can
  -- shift a coordinate of that size. Only entities outside it pay layer:get + region_of, which
  -- were a third of the move phase when every entity paid them (examples/world_sim.lua).
  local c, row = (index - 1) % grid.cols, (index - 1) // grid.cols
  local big = math.max(math.abs(r.x0), math.abs(r.x1), math.abs(r.y0), math.abs(r.y1))
  local slack = 1 + big * 2 ^ -20
  r.ix0 = c == 0 and -math.huge or r.x0 + slack
  r.iy0 = row == 0 and -math.huge or r.y0 + slack
  r.ix1 = c == grid.cols - 1 and math.huge or r.x1 - slack
  r.iy1 = row == grid.rows - 1 and math.huge or r.y1 - slack
  r.aoi = soageo.aoi(r.layer, { margin = rules.margin })
  local reach = f32(f32(rules.view) + f32(rules.margin))
  r.reach2 = f32(reach * reach)  -- what the aoi compares squared distances with to keep a target
  return r
end

-- The world's static walls, as World:use_walls (examples/world/single.lua): a cast hits only
-- what its caster sees. Decided here, on this region's layer, from the positions the layer
-- stores (owned and ghosts alike are the float32 values one layer holds), so the region keeps
-- exactly the hits one layer keeps. nil: no walls.
function Region:use_walls(walls) self.walls = walls end

function Region:owns(id) return self.view[id] ~= nil end

function Region:join(e)  -- { id, x, y, r, team, view }
  local id = e[1]
  self.layer:set(id, e[2], e[3], e[4], e[5] | OWNED)
  self.view[id], self.hp[id] = e[6], 1000
  if e[6] > 0 then self.aoi:watch(id, e[6]) end
end

-- Phase 1: leaves and joins of owned entities, every owned entity moves, casters are chosen,
-- and those now outside the rectangle leave for their new owner (the returned migrations).
-- The previous tick's ghosts are dropped first: the strips of this tick replace them.
function Region:move(t, joins, leaves)
  self.tick_no = t
  local layer, out, rules, grid, me = self.layer, self.out, self.rules, self.grid, self.index
  local c0 = region.clock()
  local _, ng = layer:in_box(-BIG, -BIG, BIG, BIG, out, GHOST)
  self.stats.ghosts = ng
  layer:remove_many(out)
  self.stats.ghost_s = region.clock() - c0  -- this tick's: dropping ghosts, strips, merges
  self.left, self.gone, self.arrived = {}, {}, {}
  for _, id in ipairs(leaves) do
    local view = self.view[id]
    if view then
      layer:remove(id)
      if view > 0 then self.aoi:unwatch(id); self.left[id] = true end
      self.view[id], self.hp[id] = nil, nil
    end
  end
  for _, e in ipairs(joins) do self:join(e) end
  local away, casters, nc = {}, self.casters, 0
  local ix0, iy0, ix1, iy1 = self.ix0, self.iy0, self.ix1, self.iy1
  for id, x, y in layer:each() do
    local nx, ny = rules:move(id, t, x, y)
    layer:move(id, nx, ny)
    -- Owned by where the layer put it (float32), as every later lookup (a hit on a ghost, the
    -- neighbours' strips) sees it: the rounding may cross a region border.
    local owner = me
    if not (nx >= ix0 and nx < ix1 and ny >= iy0 and ny < iy1) then owner = grid:region_of(layer:get(id)) end
    if owner == me then
      if rules:casts(id, t) then nc = nc + 1; casters[nc] = id end
    else  -- it casts from its new region
      local list = away[owner]
      if not list then list = {}; away[owner] = list end
      list[#list + 1] = id
    end
  end
  self.n_casters = nc
  local migrations, moved = {}, 0
  for owner, ids in pairs(away) do
    local m = { snapshot = layer:dump(ids), ids = ids, view = {}, hp = {}, seen = {} }
    for k, id in ipairs(ids) do
      local view = self.view[id]
      m.view[k], m.hp[k] = view, self.hp[id]
      if view > 0 then
        -- What it saw at the last update: the aoi's list plus what it still carries.
        local seen = self.aoi:visible(id)
        for t2 in pairs(self.carried[id] or {}) do seen[#seen + 1] = t2 end
        m.seen[k] = seen
        self.aoi:unwatch(id)
        self.gone[id] = true
      else
        m.seen[k] = false
      end
      self.carried[id], self.view[id], self.hp[id] = nil, nil, nil
    end
    layer:remove_many(ids)
    migrations[owner] = m
    moved = moved + #ids
  end
  self.stats.migrants = moved
  return migrations
end

-- Phase 2: migrants become owned here (a watcher keeps what it saw, see update); then the
-- strips for the neighbours: one in_box per neighbour over the owned entities, one partial dump.
function Region:arrive(migrations)
  local layer = self.layer
  for _, m in ipairs(migrations) do
    layer:merge(m.snapshot, OWNED, GHOST)
    for k, id in ipairs(m.ids) do
      local view = m.view[k]
      self.view[id], self.hp[id] = view, m.hp[k]
      if self.rules:casts(id, self.tick_no) then
        self.n_casters = self.n_casters + 1
        self.casters[self.n_casters] = id
      end
      if view > 0 then
        self.aoi:watch(id, view)
        self.arrived[id] = m.seen[k]
      end
    end
  end
  local strips, bytes, out, c0 = {}, 0, self.out, region.clock()
  for _, nb in ipairs(self.neighbours) do
    local x0, y0, x1, y1 = self.grid:expanded(nb, self.border)
    layer:in_box(x0, y0, x1, y1, out, OWNED)
    local s = layer:dump(out)
    strips[nb] = s
    bytes = bytes + #s
  end
  self.stats.strip_bytes = bytes
  self.stats.ghost_s = self.stats.ghost_s + (region.clock() - c0)
  return strips
end

-- Phase 3: the neighbours' strips become this tick's ghosts; owned casters cast. A hit on an
-- owned entity is applied here; a hit on a ghost goes to the region that owns it.
function Region:ghosts(strips)
  local layer, c0 = self.layer, region.clock()
  for _, s in ipairs(strips) do layer:merge(s, GHOST, OWNED) end
  self.stats.ghost_s = self.stats.ghost_s + (region.clock() - c0)
  local rules, out, t = self.rules, self.out, self.tick_no
  local reach, half, walls = rules.reach, rules.half_angle, self.walls
  local remote, hits, nh = {}, self.hits, 0
  for i = 1, self.n_casters do
    local id = self.casters[i]
    local dx, dy = rules:casts(id, t)
    local x, y, _, mask = layer:get(id)
    local _, n = layer:touch_sector(x, y, dx, dy, reach, half, out, ENEMY[mask & TEAMS])
    if walls and n > 0 then
      local _, m = walls:visible(x, y, layer, out, n, out)
      self.stats.walled, n = self.stats.walled + n - m, m
    end
    for k = 1, n do
      local target = out[k]
      local hp = self.hp[target]
      if hp then
        self.hp[target] = hp - 1
        hits[nh + 1], hits[nh + 2] = id, target
        nh = nh + 2
      else
        local owner = self.grid:region_of(layer:get(target))
        local list = remote[owner]
        if not list then list = {}; remote[owner] = list end
        list[#list + 1], list[#list + 2] = id, target
        self.stats.remote_hits = self.stats.remote_hits + 1
      end
    end
  end
  self.n_hits = nh
  return remote
end

-- Squared distance as the aoi computes it (float32, no FMA); nil when the target is gone.
function Region:d2(w, t)
  local layer = self.layer
  local xt, yt = layer:get(t)
  if not xt then return nil end
  local xw, yw = layer:get(w)
  local dx, dy = f32(xt - xw), f32(yt - yw)
  return f32(f32(dx * dx) + f32(dy * dy))
end

-- Phase 4: hits from other regions on entities owned here are applied; the aoi updates. The
-- two do not depend on each other (hits change hit points, which the aoi never reads), so a
-- region whose neighbours' hits are still on their way may update its views first
-- (examples/skynet/world/ does): update(hits) is apply_hits(hits) and views().
function Region:update(remote_hits)
  local nh = self:apply_hits(remote_hits)
  local enter, leave, ne, nl = self:views()
  return enter, leave, ne, nl, self.hits, nh
end

-- The hits this tick, those of the neighbours' casters on entities owned here included (the
-- list is self.hits); returns their count.
function Region:apply_hits(remote_hits)
  local hits, nh = self.hits, self.n_hits
  for _, list in ipairs(remote_hits) do
    for k = 1, #list, 2 do
      local target = list[k + 1]
      self.hp[target] = self.hp[target] - 1
      hits[nh + 1], hits[nh + 2] = list[k], target
      nh = nh + 2
    end
  end
  for i = nh + 1, #hits do hits[i] = nil end
  self.n_hits = nh
  return nh // 2
end

-- The aoi's update, as the events of the owned watchers. They are those of one layer except
-- around migrations, which this corrects:
-- - a watcher that migrated out was unwatched: its leaves are not real (it still sees them
--   from its new region);
-- - a watcher that migrated in arrives with what it saw: its events are the difference with
--   what it sees now; a target it saw that is now beyond its view but within view + margin
--   stays seen (hysteresis), carried here until it enters the view again (the aoi then
--   reports an enter, which is not real) or goes beyond view + margin or away (a real leave).
function Region:views()
  local enter, leave, ne, nl = self.aoi:update(self.enter, self.leave)
  self.enter, self.leave = enter, leave
  -- Filtered in place (a kept pair never moves forward), in the aoi's own tables: no new lists
  -- of thousands of pairs per tick.
  local E, L, e, l = enter, leave, 0, 0
  local carried, arrived = self.carried, self.arrived
  for k = 1, 2 * ne, 2 do
    local w, t = enter[k], enter[k + 1]
    if not arrived[w] then
      local c = carried[w]
      if c and c[t] then
        c[t] = nil
        self.stats.carried = self.stats.carried + 1
      else
        E[e + 1], E[e + 2] = w, t
        e = e + 2
      end
    end
  end
  for k = 1, 2 * nl, 2 do
    local w = leave[k]
    if not self.gone[w] then
      L[l + 1], L[l + 2] = w, leave[k + 1]
      l = l + 2
    end
  end
  for w in pairs(self.left) do  -- left the world: what it carried is gone too
    for t in pairs(carried[w] or {}) do L[l + 1], L[l + 2] = w, t; l = l + 2 end
    carried[w] = nil
  end
  local reach2 = self.reach2
  for w, c in pairs(carried) do
    if not arrived[w] then
      for t in pairs(c) do
        local d2 = self:d2(w, t)
        if not d2 or d2 >= reach2 then
          c[t] = nil
          self.stats.carried = self.stats.carried + 1
          L[l + 1], L[l + 2] = w, t
          l = l + 2
        end
      end
      if next(c) == nil then carried[w] = nil end
    end
  end
  local vis = {}
  for w, seen in pairs(arrived) do
    local now, n = self.aoi:visible(w, vis)
    local was = {}
    for _, t in ipairs(seen) do was[t] = true end
    for i = 1, n do
      local t = now[i]
      if was[t] then was[t] = nil else E[e + 1], E[e + 2] = w, t; e = e + 2 end
    end
    local c = {}
    for t in pairs(was) do  -- seen before, not in the aoi's view now
      local d2 = self:d2(w, t)
      if d2 and d2 < reach2 then
        c[t] = true
        self.stats.carried = self.stats.carried + 1
      else
        L[l + 1], L[l + 2] = w, t
        l = l + 2
      end
    end
    if next(c) ~= nil then carried[w] = c end
  end
  for i = e + 1, 2 * ne do E[i] = nil end  -- what filtering left behind (the aoi clears the rest)
  for i = l + 1, 2 * nl do L[i] = nil end
  return E, L, e // 2, l // 2
end

-- Owned entities: id -> { x, y, r, team, hp } (the proof compares them with one layer's).
function Region:owned(into)
  for id, x, y, r, mask in self.layer:each() do
    if mask & OWNED ~= 0 then into[id] = { x, y, r, mask & TEAMS, self.hp[id] } end
  end
  return into
end

region.Region = Region
return region
