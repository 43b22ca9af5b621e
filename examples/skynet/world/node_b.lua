-- The second skynet node of the region world: starts region services when the coordinator on
-- node a asks (control.spawn), names them for cluster ("region<i>"), wires them to each other
-- and to this node's relay (world_relay.lua, named "relay"), and stops when told.
local skynet = require "skynet"
require "skynet.manager"  -- skynet.abort
local cluster = require "skynet.cluster"

local command = {}
local regions = {}  -- regions[i]: the address of region i on this node

function command.ping() return true end

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
