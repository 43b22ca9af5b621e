-- The map service of the region world: one per node, since soageo.share is per process. Builds
-- the world's static walls from the rules' seed and size (examples/world/rules.lua) and shares
-- them under a name; the one-service world and every region service of this node attach that
-- name (a read-only view) instead of building their own copy. Every node builds from the same
-- options, so every node shares the same walls.
local soageo = require "soageo"
local world = require "world"

local command = {}

-- Returns the version published and the number of walls.
function command.publish(opts, name)
  local walls = soageo.walls(world.rules.new(opts):wall_coords())
  local version, count = soageo.share(walls, name), #walls
  walls:close()  -- the shared copy lives on in the process; this one is not needed
  return version, count
end

-- How many views of `name` are open in this process (0 once every service closed its own).
function command.holders(name)
  for _, s in ipairs(soageo.shared()) do
    if s.name == name then return s.holders end
  end
  return nil
end

function command.unshare(name) return soageo.unshare(name) end

require("skynet_commands").start(command)
