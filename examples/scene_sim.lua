-- A scene simulation on plain Lua 5.4: lua5.4 examples/scene_sim.lua [entities [ticks]]
-- Prints per-tick statistics and writes examples/out/scene.svg (a snapshot of the last tick).
package.path = "lualib/?.lua;examples/?.lua;examples/?/init.lua;" .. package.path
package.cpath = "./?.so;" .. package.cpath

local scene = require "scene"
local svg = require "scene.svg"

local entities = tonumber(arg[1]) or 5000
local ticks = tonumber(arg[2]) or 100

-- Players see their 8 nearest monsters and every player, near ones sent every tick, the others
-- every 2 or 3 ticks.
local interest = { max = 8, always = scene.PLAYER, band = 20, max_period = 3 }
local world = scene.new({ entities = entities, seed = 7, interest = interest })
print(string.format("scene: %d entities in %dx%d, view %d + margin %d, %d ticks, SIMD target %s",
  entities, world.size, world.size, world.view, world.margin, ticks, require("soageo").arch()))
print(string.format("players watch with max %d, always players, band %d, max_period %d; sent: due pairs " ..
  "(uncapped: every visible pair), %d bytes each", interest.max, interest.band, interest.max_period, scene.ENTITY_BYTES))
print(" tick  entities  casts   hits  deaths  enter  leave  traps  heard   sent uncapped      ms   (every 10th tick shown)")
local total = { casts = 0, hits = 0, enter = 0, leave = 0, strikes = 0, notices = 0, ms = 0, sent = 0, uncapped = 0 }
-- A "tick N/M" counter rewritten in place with \r only when stderr is a terminal: in a log
-- the \r would glue every tick onto one line.
local progress = os.execute("[ -t 2 ]") == true
for t = 1, ticks do
  local s = world:tick()
  for k in pairs(total) do total[k] = total[k] + s[k] end
  if progress then io.stderr:write(string.format("\rtick %d/%d", t, ticks)) end
  if t <= 3 or t % 10 == 0 or t == ticks then
    if progress then io.stderr:write("\r") end
    print(string.format("%5d %9d %6d %6d %7d %6d %6d %6d %6d %6d %8d %7.2f", s.tick, s.entities, s.casts, s.hits,
      s.deaths, s.enter, s.leave, s.strikes, s.notices, s.sent, s.uncapped, s.ms))
  end
end
if progress then io.stderr:write("\r") end
print(string.format("total: %d casts, %d hits (%d notices to watchers of the casters), %d trap strikes, %d enter, %d leave; %.2f ms per tick on average",
  total.casts, total.hits, total.notices, total.strikes, total.enter, total.leave, total.ms / ticks))
print(string.format("sent per tick: %.0f pairs, %.1f KB with caps and due; %.0f pairs, %.1f KB uncapped (%.2fx)",
  total.sent / ticks, total.sent / ticks * scene.ENTITY_BYTES / 1024, total.uncapped / ticks,
  total.uncapped / ticks * scene.ENTITY_BYTES / 1024, total.uncapped / math.max(1, total.sent)))
os.execute("mkdir -p examples/out")
local watcher
for id in world.layer:each() do
  if world.faction[id] == scene.PLAYER then watcher = id break end
end
svg.write(world, "examples/out/scene.svg", watcher)
print("wrote examples/out/scene.svg")
