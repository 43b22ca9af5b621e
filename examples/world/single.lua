-- The whole world as one layer: the reference the regions must reproduce, and the
-- "one service" side of the benchmark.
local soageo = require "soageo"
local rules_mod = require "world.rules"

local single = {}
local World = {}
World.__index = World

-- rules: a world.rules; capacity: expected entities
function single.new(rules, capacity)
  local w = setmetatable({
    rules = rules, layer = soageo.layer(capacity or 0),
    team = {}, view = {}, hp = {},
    out = {}, enters = {}, leaves = {}, hits = {}, casters = {},
    tick_no = 0, walled = 0,  -- walled: hits the walls removed, in all ticks
  }, World)
  w.aoi = soageo.aoi(w.layer, { margin = rules.margin })
  return w
end

-- The world's static walls (soageo.walls or a shared view of them): a cast then hits only the
-- targets whose centre its caster sees. nil (the default): no walls.
function World:use_walls(walls) self.walls = walls end

function World:join(e)  -- { id, x, y, r, team, view }
  local id = e[1]
  self.layer:set(id, e[2], e[3], e[4], e[5])
  self.team[id], self.view[id], self.hp[id] = e[5], e[6], 1000
  if e[6] > 0 then self.aoi:watch(id, e[6]) end
end

function World:leave(id)
  self.layer:remove(id)
  if self.view[id] > 0 then self.aoi:unwatch(id) end
  self.team[id], self.view[id], self.hp[id] = nil, nil, nil
end

-- One tick: leaves, joins, everyone moves, casts hit, the AOI updates. Returns the enter and
-- leave lists (flat watcher, target pairs), their counts, and the hits (flat attacker, target).
function World:tick(joins, leaves)
  local t = self.tick_no + 1
  self.tick_no = t
  for _, id in ipairs(leaves) do self:leave(id) end
  for _, e in ipairs(joins) do self:join(e) end
  local layer, rules, casters = self.layer, self.rules, self.casters
  local nc = 0
  for id, x, y in layer:each() do
    local nx, ny = rules:move(id, t, x, y)
    layer:move(id, nx, ny)
    if rules:casts(id, t) then nc = nc + 1; casters[nc] = id end
  end
  local hits, nh, out = self.hits, 0, self.out
  local reach, half, walls = rules.reach, rules.half_angle, self.walls
  for i = 1, nc do
    local id = casters[i]
    local dx, dy = rules:casts(id, t)
    local x, y = layer:get(id)
    local _, n = layer:touch_sector(x, y, dx, dy, reach, half, out, rules_mod.ENEMY[self.team[id]])
    if walls and n > 0 then
      local _, m = walls:visible(x, y, layer, out, n, out)
      self.walled, n = self.walled + n - m, m
    end
    for k = 1, n do
      local target = out[k]
      self.hp[target] = self.hp[target] - 1
      hits[nh + 1], hits[nh + 2] = id, target
      nh = nh + 2
    end
  end
  for i = nh + 1, #hits do hits[i] = nil end
  local enter, leave, ne, nl = self.aoi:update(self.enters, self.leaves)
  self.enters, self.leaves = enter, leave
  return enter, leave, ne, nl, hits, nh // 2
end

single.World = World
return single
