-- Starts two scene services and the bots that drive them, then stops by itself.
local skynet = require "skynet"

skynet.start(function()
  local entities = tonumber(skynet.getenv("scene_entities")) or 5000
  local ticks = tonumber(skynet.getenv("scene_ticks")) or 100
  local east = skynet.newservice("scene")
  local west = skynet.newservice("scene")
  skynet.call(east, "lua", "init", { entities = entities, seed = 7 })
  skynet.call(west, "lua", "init", { entities = 0, seed = 8 })
  local bots = skynet.newservice("bots")
  skynet.call(bots, "lua", "run", east, west, ticks)
  skynet.abort()
end)
