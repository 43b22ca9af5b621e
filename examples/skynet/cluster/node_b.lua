-- Node B: an empty scene (examples/skynet/scene.lua) registered for the cluster as "scene";
-- it adopts the region node A hands over and plays on. Stops when A says so, or after a
-- minute on its own.
local skynet = require "skynet"
local cluster = require "skynet.cluster"
require "skynet.manager"  -- skynet.abort

local function stop(why)
  skynet.error("node_b stops: " .. why)
  skynet.sleep(20)  -- abort drops the logger's queue: let it print first
  skynet.abort()
end

skynet.start(function()
  cluster.reload({ node_a = skynet.getenv("node_a"), node_b = skynet.getenv("node_b") })
  local scene = skynet.newservice("scene")
  skynet.call(scene, "lua", "init", { entities = 0, traps = 0, seed = 8, size = 7000 })
  cluster.register("scene", scene)
  cluster.register("node", skynet.self())
  skynet.dispatch("lua", function(_, _, cmd)
    if cmd == "stop" then skynet.fork(stop, "node_a is done") end
  end)
  cluster.open("node_b")
  skynet.error("node_b listens on " .. skynet.getenv("node_b"))
  skynet.timeout(6000, function() stop("nobody came within 60 s") end)
end)
