-- The whole world in one service (examples/world/single.lua): the reference of the proof and
-- the "one service" side of the benchmark. Its walls are a view of the node's shared walls
-- (world_map.lua), as the regions'.
local skynet = require "skynet"
local soageo = require "soageo"
local world = require "world"

local w, walls
local command = {}

function command.init(opts, capacity, walls_name)
  w = world.single.new(world.rules.new(opts), capacity)
  local err
  walls, err = soageo.attach(walls_name)
  w:use_walls(assert(walls, err))
  return true
end

-- The tick's results, then this service's CPU time so far in seconds (see world_region.lua)
-- and the hits the walls removed so far.
function command.tick(joins, leaves)
  local enter, leave, ne, nl, hits, nh = w:tick(joins, leaves)
  return enter, leave, ne, nl, hits, nh, skynet.stat("cpu") + skynet.stat("time"), w.walled
end

function command.owned()
  local all = {}
  for id, x, y, r, mask in w.layer:each() do all[id] = { x, y, r, mask, w.hp[id] } end
  return all
end

function command.close()
  walls:close()
  return true
end

require("skynet_commands").start(command)
