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
-- skynet.pack or a cluster link) and this scene empties.
function command.handoff()
  local snapshot = world.layer:dump()
  local factions = {}
  for id, f in pairs(world.faction) do factions[id] = f end
  for id in pairs(factions) do world:kill(id) end
  return snapshot, factions
end

function command.adopt(snapshot, factions)
  local incoming = soageo.load(snapshot)
  for id, x, y in incoming:each() do
    if factions[id] then world:spawn(factions[id], x, y) end  -- traps stay with their region
  end
  return #world.layer
end

skynet.start(function()
  skynet.dispatch("lua", function(_, _, cmd, ...)
    local f = assert(command[cmd], cmd)
    skynet.ret(skynet.pack(f(...)))
  end)
end)
