-- The scene service: a thin wrapper around examples/scene (all logic lives there, so the
-- plain-Lua simulation exercises it without skynet).
local skynet = require "skynet"
local scene = require "scene"
local soageo = require "soageo"

local world
local command = {}

function command.init(opts)
  world = scene.new(opts)
  return #world.layer
end

function command.tick()
  return world:tick()
end

-- A region changes owner: the layer leaves as a string (full userdata cannot cross
-- skynet.pack or a cluster link) with the per-entity state the layer does not hold, and this
-- scene empties (its traps go with the region).
function command.handoff()
  local snapshot = world.layer:dump()
  local hp, heading, ids = {}, {}, {}
  for id in world.layer:each() do
    ids[#ids + 1] = id
    hp[id], heading[id] = world.hp[id], world.heading[id]
  end
  for _, id in ipairs(ids) do
    world:kill(id)
    world.traps[id] = nil
  end
  return snapshot, hp, heading
end

-- Takes over the entities of a snapshot with their ids, positions, radii and masks (the mask
-- is the faction, or TRAP), and answers with a snapshot of this scene's layer: the caller
-- compares it with what it sent. A scene that adopts a region starts empty (traps = 0).
function command.adopt(snapshot, hp, heading)
  local incoming = soageo.load(snapshot)
  for id, x, y, r, mask in incoming:each() do
    world.layer:set(id, x, y, r, mask)
    if mask == scene.TRAP then
      world.traps[id] = true
    else
      world.hp[id], world.faction[id], world.heading[id] = hp[id], mask, heading[id]
      if mask == scene.PLAYER then world.aoi:watch(id, world.view) end
      if id >= world.next_id then world.next_id = id + 1 end
    end
  end
  incoming:close()
  return #world.layer, world.layer:dump()
end

skynet.start(function()
  skynet.dispatch("lua", function(_, _, cmd, ...)
    local f = assert(command[cmd], cmd)
    skynet.ret(skynet.pack(f(...)))
  end)
end)
