-- The whole world in one service (examples/world/single.lua): the reference of the proof and
-- the "one service" side of the benchmark.
local skynet = require "skynet"
local world = require "world"

local w
local command = {}

function command.init(opts, capacity)
  w = world.single.new(world.rules.new(opts), capacity)
  return true
end

-- The tick's results, then this service's CPU time so far in seconds (see world_region.lua).
function command.tick(joins, leaves)
  local enter, leave, ne, nl, hits, nh = w:tick(joins, leaves)
  return enter, leave, ne, nl, hits, nh, skynet.stat("cpu") + skynet.stat("time")
end

function command.owned()
  local all = {}
  for id, x, y, r, mask in w.layer:each() do all[id] = { x, y, r, mask, w.hp[id] } end
  return all
end

require("skynet_commands").start(command)
