-- The whole world in one service (examples/world/single.lua): the reference of the proof and
-- the "one service" side of the benchmark.
local world = require "world"

local w
local command = {}

function command.init(opts, capacity)
  w = world.single.new(world.rules.new(opts), capacity)
  return true
end

function command.tick(joins, leaves) return w:tick(joins, leaves) end

function command.owned()
  local all = {}
  for id, x, y, r, mask in w.layer:each() do all[id] = { x, y, r, mask, w.hp[id] } end
  return all
end

require("skynet_commands").start(command)
