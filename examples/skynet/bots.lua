-- Drives a scene tick by tick and prints the same statistics as examples/scene_sim.lua.
local skynet = require "skynet"

local command = {}

function command.run(east, west, ticks)
  local total_ms = 0
  for t = 1, ticks do
    local s = skynet.call(east, "lua", "tick")
    total_ms = total_ms + s.ms
    if t <= 3 or t % 10 == 0 or t == ticks then
      skynet.error(string.format("tick %d: %d entities, %d casts, %d hits, %d deaths, %d enter, %d leave, %.2f ms",
        s.tick, s.entities, s.casts, s.hits, s.deaths, s.enter, s.leave, s.ms))
    end
  end
  skynet.error(string.format("%.2f ms per tick on average", total_ms / ticks))
  local snapshot, factions = skynet.call(east, "lua", "handoff")
  local adopted = skynet.call(west, "lua", "adopt", snapshot, factions)
  skynet.error(string.format("handoff: %d bytes of snapshot, west scene now holds %d entities", #snapshot, adopted))
end

skynet.start(function()
  skynet.dispatch("lua", function(_, _, cmd, ...)
    local f = assert(command[cmd], cmd)
    skynet.ret(skynet.pack(f(...)))
  end)
end)
