-- The map service: builds the walls every scene of this process uses, once, and shares them
-- under "map.walls" (soageo.share is per process: one map service per node). Scenes attach a
-- read-only view instead of building their own copy; sharing again publishes a new version,
-- which scenes attaching afterwards get while the others keep theirs.
local soageo = require "soageo"
local scene = require "scene"

local command = {}

-- opts: size (side of the world), walls (how many segments, 20-80 long), seed. Returns the
-- version published and the number of walls.
function command.publish(opts)
  local rnd, size, coords = scene.rng(opts.seed or 3), opts.size or 2000, {}
  for _ = 1, opts.walls or size // 20 do
    local x, y, len, a = rnd(0, size), rnd(0, size), rnd(20, 80), rnd(0, 2 * math.pi)
    coords[#coords + 1], coords[#coords + 2] = x, y
    coords[#coords + 1], coords[#coords + 2] = x + len * math.cos(a), y + len * math.sin(a)
  end
  local walls = soageo.walls(coords)
  local version = soageo.share(walls, "map.walls")
  walls:close()  -- the shared copy lives on in the process; this service's own is not needed
  return version, #coords // 4
end

require("skynet_commands").start(command)
