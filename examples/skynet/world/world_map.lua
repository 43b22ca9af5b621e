-- The map service of the region world: one per node, since soageo.share is per process. Builds
-- the world's static walls from the rules' seed and size (examples/world/rules.lua) and shares
-- them under a name; the one-service world and every region service of this node attach that
-- name (a read-only view) instead of building their own copy. Every node builds from the same
-- options, so every node shares the same walls.
local soageo = require "soageo"
local world = require "world"

local command = {}

-- A fingerprint of the stored segments (FNV-1a over their ends in 1/64 units, which the rules'
-- 1/64 grid keeps exact), so that nodes can tell they share the same walls.
local function fingerprint(walls)
  local h = 0xcbf29ce484222325
  for i = 1, #walls do
    for _, v in ipairs({ walls:get(i) }) do h = (h ~ math.floor(v * 64)) * 0x100000001b3 end
  end
  return string.format("%016x", h)
end

-- Returns the version published, the number of walls and their fingerprint.
function command.publish(opts, name)
  local walls = soageo.walls(world.rules.new(opts):wall_coords())
  local version, count, mark = soageo.share(walls, name), #walls, fingerprint(walls)
  walls:close()  -- the shared copy lives on in the process; this one is not needed
  return version, count, mark
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
