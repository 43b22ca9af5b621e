-- Starts the map service (it shares the walls), two scene services and the bots that drive
-- them, then stops the process by itself.
local skynet = require "skynet"
require "skynet.manager"  -- skynet.abort lives there

skynet.start(function()
  local entities = tonumber(skynet.getenv("scene_entities")) or 5000
  local ticks = tonumber(skynet.getenv("scene_ticks")) or 100
  -- One copy of the walls for every scene of this process (soageo.share).
  local map = skynet.newservice("map")
  local version, walls = skynet.call(map, "lua", "publish", { size = 2000, seed = 3 })
  skynet.error(("map: %d walls shared as 'map.walls', version %d"):format(walls, version))
  local east = skynet.newservice("scene")
  local west = skynet.newservice("scene")
  skynet.call(east, "lua", "init", { entities = entities, seed = 7, shared_walls = "map.walls" })
  skynet.call(west, "lua", "init", { entities = 0, traps = 0, seed = 8, shared_walls = "map.walls" })
  local bots = skynet.newservice("bots")
  skynet.call(bots, "lua", "run", east, west, ticks)
  skynet.error("example done")
  -- abort drops the messages still queued for the logger: give it a moment to print the last
  -- lines first.
  skynet.sleep(20)
  skynet.abort()
end)
