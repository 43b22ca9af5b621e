-- A world split into regions, all in this Lua state: the coordinator that examples/skynet/world/
-- replaces with services. Each tick runs the four phases of examples/world/region.lua over
-- every region and hands each phase's messages to their addressees, in region order (the
-- order of arrival cannot change a result: merges touch disjoint ids, hits commute).
local grid_mod = require "world.grid"
local region = require "world.region"

local world = {}
local Regions = {}
Regions.__index = Regions

world.grid = grid_mod
world.rules = require "world.rules"
world.single = require "world.single"
world.region = region

-- rules: world.rules; cols x rows regions; border (default rules:min_border())
function world.regions(rules, cols, rows, border, unchecked)
  local grid = grid_mod.new(rules.size, cols, rows)
  local w = setmetatable({ grid = grid, rules = rules, border = border or rules:min_border(), list = {} }, Regions)
  for i = 1, grid.count do w.list[i] = region.new(rules, grid, i, w.border, unchecked) end
  w.tick_no = 0
  return w
end

-- Messages addressed { [to] = msg } by each sender -> an inbox per region, senders in order.
local function deliver(n, outboxes)
  local inbox = {}
  for i = 1, n do inbox[i] = {} end
  for from = 1, n do
    for to = 1, n do
      local m = outboxes[from][to]
      if m then inbox[to][#inbox[to] + 1] = m end
    end
  end
  return inbox
end
world.deliver = deliver

-- Joins go to the region owning their position; leaves to everyone (only the owner acts).
function world.route_joins(grid, joins)
  local by = {}
  for i = 1, grid.count do by[i] = {} end
  for _, e in ipairs(joins) do
    local list = by[grid:region_of(e[2], e[3])]
    list[#list + 1] = e
  end
  return by
end

-- The same walls for every region (Region:use_walls): one object serves them all.
function Regions:use_walls(walls)
  for _, r in ipairs(self.list) do r:use_walls(walls) end
end

-- Hits the walls removed in all ticks, over every region.
function Regions:walled()
  local n = 0
  for _, r in ipairs(self.list) do n = n + r.stats.walled end
  return n
end

-- One tick; returns the union of the regions' events and hits, flat as one layer gives them,
-- and the ghost traffic of this tick (bytes of strip snapshots).
function Regions:tick(joins, leaves)
  local t = self.tick_no + 1
  self.tick_no = t
  local list, n = self.list, #self.list
  local by = world.route_joins(self.grid, joins)
  local out = {}
  for i = 1, n do out[i] = list[i]:move(t, by[i], leaves) end
  local inbox = deliver(n, out)
  for i = 1, n do out[i] = list[i]:arrive(inbox[i]) end
  inbox = deliver(n, out)
  for i = 1, n do out[i] = list[i]:ghosts(inbox[i]) end
  inbox = deliver(n, out)
  local E, L, H, ne, nl, nh, bytes = {}, {}, {}, 0, 0, 0, 0
  for i = 1, n do
    local e, l, a, b, h, c = list[i]:update(inbox[i])
    table.move(e, 1, 2 * a, 2 * ne + 1, E)
    table.move(l, 1, 2 * b, 2 * nl + 1, L)
    table.move(h, 1, 2 * c, 2 * nh + 1, H)
    ne, nl, nh = ne + a, nl + b, nh + c
    bytes = bytes + list[i].stats.strip_bytes
  end
  return E, L, ne, nl, H, nh, bytes
end

-- Every owned entity of every region: id -> { x, y, r, team, hp }.
function Regions:owned()
  local all = {}
  for _, r in ipairs(self.list) do r:owned(all) end
  return all
end

-- Flat pairs (a1, b1, a2, b2, ...) as a sorted list of "a:b" keys, for comparisons.
function world.pair_keys(flat, n)
  local keys = {}
  for i = 1, n do keys[i] = string.format("%d:%d", flat[2 * i - 1], flat[2 * i]) end
  table.sort(keys)
  return keys
end

-- Whether two flat pair lists hold the same pairs, in whatever order.
function world.same_pairs(a, na, b, nb)
  if na ~= nb then return false end
  local ka, kb = world.pair_keys(a, na), world.pair_keys(b, nb)
  for i = 1, na do if ka[i] ~= kb[i] then return false end end
  return true
end

-- The median of a list of numbers (the upper middle one of an even count).
function world.median(t)
  local s = { table.unpack(t) }
  table.sort(s)
  return s[(#s + 1) // 2]
end

-- The scene of make world's benchmark (examples/world_sim.lua, and examples/skynet/world/ in
-- bench mode): the proof's density (3,000 in 1024x1024) on a side divisible by the grid. Returns
-- the options of world.rules.new and the churn of its script (joins and leaves per tick).
function world.bench_rules(entities, cols, rows)
  local unit = 64 * cols * rows
  local size = math.ceil(math.sqrt(entities * 350) / unit) * unit
  return { seed = 2024, size = size, view = 50, margin = 5, reach = 40, speed = 2, jump = 16, cast = 400 }, 20
end

world.Regions = Regions
return world
