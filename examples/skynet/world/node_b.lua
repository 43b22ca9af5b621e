-- The second skynet node of the region world: starts region services when the coordinator on
-- node a asks (control.spawn), names them for cluster ("region<i>"), wires them to each other
-- and to this node's relay (world_relay.lua, named "relay"), runs this node's map service
-- (world_map.lua: sharing is per process, so each node shares its own walls, built from the same
-- options), and stops when told.
local skynet = require "skynet"
require "skynet.manager"  -- skynet.abort
local cluster = require "skynet.cluster"

local command = {}
local regions = {}  -- regions[i]: the address of region i on this node
local map, walls_name  -- this node's map service (world_map.lua) and the name it shares under

function command.ping() return true end

-- This node's own map service: sharing is per process, so node b builds and shares the walls
-- from the same options as node a's. Returns the version and the number of walls.
function command.map(opts, name)
  map, walls_name = skynet.newservice("world_map"), name
  return skynet.call(map, "lua", "publish", opts, name)
end

function command.holders() return skynet.call(map, "lua", "holders", walls_name) end

function command.spawn(i)
  local addr = skynet.newservice("world_region")
  cluster.register("region" .. i, addr)
  regions[i] = addr
  return true
end

-- n regions in all: the ones here send to each other directly, to the others through the relay.
function command.wire(n)
  local relay = skynet.newservice("world_relay")
  skynet.call(relay, "lua", "init", "nodea", regions)
  local addresses = {}
  for j = 1, n do addresses[j] = regions[j] or false end
  for _, addr in pairs(regions) do skynet.call(addr, "lua", "wire", addresses, relay) end
  return true
end

function command.stop()
  if map then skynet.call(map, "lua", "unshare", walls_name) end
  skynet.timeout(10, function()
    print("WORLD node b stopped")
    skynet.abort()
  end)
end

skynet.start(function()
  skynet.dispatch("lua", function(session, _, cmd, ...)
    local f = assert(command[cmd], cmd)
    if session == 0 then f(...) else skynet.ret(skynet.pack(f(...))) end
  end)
  cluster.reload({ nodea = "127.0.0.1:" .. skynet.getenv("world_port_a"), nodeb = "127.0.0.1:" .. skynet.getenv("world_port_b") })
  cluster.register("control", skynet.self())
  cluster.open("nodeb")
  print("WORLD node b listening")
end)
