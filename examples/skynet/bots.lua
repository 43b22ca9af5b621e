-- Drives a scene tick by tick and prints a line of its statistics every few ticks (entities,
-- casts, hits, deaths, AOI events, time), hands the east scene's layer to the west scene and
-- drives the west scene on.
local skynet = require "skynet"

local command = {}

local function drive(name, scene, ticks)
  local total = { ms = 0, casts = 0, hits = 0, enter = 0, leave = 0 }
  for t = 1, ticks do
    local s = skynet.call(scene, "lua", "tick")
    for k in pairs(total) do total[k] = total[k] + s[k] end
    if t <= 3 or t % 10 == 0 or t == ticks then
      skynet.error(string.format("%s tick %d: %d entities, %d casts, %d hits, %d deaths, %d enter, %d leave, %.2f ms",
        name, s.tick, s.entities, s.casts, s.hits, s.deaths, s.enter, s.leave, s.ms))
    end
  end
  skynet.error(string.format("%s: %d ticks, %d casts, %d hits, %d enter, %d leave, %.2f ms per tick on average",
    name, ticks, total.casts, total.hits, total.enter, total.leave, total.ms / ticks))
end

function command.run(east, west, ticks)
  drive("east", east, ticks)
  local snapshot, hp, heading = skynet.call(east, "lua", "handoff")
  local adopted, west_snapshot = skynet.call(west, "lua", "adopt", snapshot, hp, heading)
  -- A snapshot holds the ids, the float32 columns and their order: equal strings, equal layers.
  skynet.error(string.format("handoff: %d bytes of snapshot, west scene now holds %d entities, layer equal to east's: %s",
    #snapshot, adopted, snapshot == west_snapshot and "yes" or "NO"))
  drive("west", west, 10)
end

require("skynet_commands").start(command)
