-- Starts two scene services and the bots that drive them, then stops the process by itself.
local skynet = require "skynet"
require "skynet.manager"  -- skynet.abort lives there

skynet.start(function()
  local entities = tonumber(skynet.getenv("scene_entities")) or 5000
  local ticks = tonumber(skynet.getenv("scene_ticks")) or 100
  local east = skynet.newservice("scene")
  local west = skynet.newservice("scene")
  skynet.call(east, "lua", "init", { entities = entities, seed = 7 })
  skynet.call(west, "lua", "init", { entities = 0, traps = 0, seed = 8 })
  local bots = skynet.newservice("bots")
  skynet.call(bots, "lua", "run", east, west, ticks)
  skynet.error("example done")
  -- abort drops the messages still queued for the logger: give it a moment to print the last
  -- lines first.
  skynet.sleep(20)
  skynet.abort()
end)
