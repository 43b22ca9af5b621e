-- One region of the world as a skynet service: a thin wrapper around examples/world/region.lua
-- (the same code the plain-Lua proof runs). Every phase's messages are plain tables holding
-- strings (partial snapshots), so they cross skynet.pack and cluster links unchanged.
local skynet = require "skynet"
local world = require "world"
local region_mod = require "world.region"

-- A wall clock for the ghost-traffic figures: os.clock would count every worker thread.
region_mod.clock = function() return skynet.hpc() / 1e9 end

local r
local command = {}

function command.init(opts, cols, rows, index, border)
  local rules = world.rules.new(opts)
  r = region_mod.new(rules, world.grid.new(rules.size, cols, rows), index, border or rules:min_border())
  return index
end

function command.move(t, joins, leaves) return r:move(t, joins, leaves) end
function command.arrive(migrations) return r:arrive(migrations) end
function command.ghosts(strips) return r:ghosts(strips) end

function command.update(hits)
  local enter, leave, ne, nl, h, nh = r:update(hits)
  return enter, leave, ne, nl, h, nh, r.stats
end

function command.owned() return r:owned({}) end

require("skynet_commands").start(command)
