-- One region of the world as a skynet service: a thin wrapper around examples/world/region.lua
-- (the same code the plain-Lua proof runs). Every phase's messages are plain tables holding
-- strings (partial snapshots), so they cross skynet.pack and cluster links unchanged.
--
-- Two ways to run a tick:
--   tick(t, joins, leaves): the whole tick here; the region sends its migrations, strips and
--     hits straight to the regions that take them (peers on this node, or this node's relay for
--     the regions on another node) and waits for theirs. No barrier between phases: a region
--     goes on as soon as its own inputs are in, and updates its views while its neighbours'
--     hits are on their way.
--   move / arrive / ghosts / update: one phase per call, a coordinator delivering the messages
--     in between (kept to measure against: make world prints both).
-- Both return, with the results, what each phase cost this service in CPU time.
--
-- The walls come from this node's map service (world_map.lua): init attaches the name it
-- shared them under, and close lets the view go.
local skynet = require "skynet"
local soageo = require "soageo"
local world = require "world"
local region_mod = require "world.region"

-- A wall clock for the ghost-traffic figures: os.clock would count every worker thread.
region_mod.clock = function() return skynet.hpc() / 1e9 end

-- This service's CPU time so far, in seconds: skynet counts the thread CPU time of each message
-- it handled (config `profile`, on by default) and "time" is the current message's so far.
-- Both are there on skynet v1.8.0 and HEAD.
local stat = skynet.stat
local function cpu() return stat("cpu") + stat("time") end

local r, me, n
local walls               -- the view of the node's shared walls
local peer = {}           -- peer[j]: the address of region j when it runs on this node
local relay               -- this node's relay (world_relay.lua) when some regions run elsewhere
local targets = {}        -- targets[phase]: the regions this one writes to in that phase
local expect = {}         -- expect[phase]: how many messages it receives in that phase
local inbox = {}          -- inbox[t * 4 + phase] = { n = received, [from] = message or false }
local waiting, waiter     -- the inbox key the tick waits for, and its coroutine
local cost = {}           -- CPU seconds of the phases of the current tick (1..4)

local command = {}

function command.init(opts, cols, rows, index, border, walls_name)
  local rules = world.rules.new(opts)
  local grid = world.grid.new(rules.size, cols, rows)
  r = region_mod.new(rules, grid, index, border or rules:min_border())
  local err
  walls, err = soageo.attach(walls_name)
  r:use_walls(assert(walls, err))
  me, n = index, grid.count
  -- Migrations go to any region (a teleport crosses the world); strips and hits only to
  -- neighbours (a ghost stands within `border` of its owner's rectangle).
  local all = {}
  for j = 1, n do if j ~= me then all[#all + 1] = j end end
  targets = { all, r.neighbours, r.neighbours }
  expect = { #all, #r.neighbours, #r.neighbours }
  return index
end

-- addresses[j]: region j's address when on this node, false otherwise; relay_addr: this node's
-- relay (nil on one node).
function command.wire(addresses, relay_addr)
  for j = 1, n do peer[j] = addresses[j] or nil end
  relay = relay_addr
  return true
end

local function receive(t, phase, from, msg)
  local key = t * 4 + phase
  local box = inbox[key]
  if not box then box = { n = 0 }; inbox[key] = box end
  assert(box[from] == nil, "a region sent twice in one phase")
  box[from], box.n = msg, box.n + 1
  if waiting == key and box.n == expect[phase] then skynet.wakeup(waiter) end
end

function command.peer(t, phase, from, msg) receive(t, phase, from, msg) end

-- What this node's relay brings from the regions of another node: { [from] = message }.
function command.peers(t, phase, msgs)
  for from, msg in pairs(msgs) do receive(t, phase, from, msg) end
end

-- Sends one message (false when empty) to every region expecting one in this phase.
local function post(t, phase, out)
  local far = relay and {}
  for _, j in ipairs(targets[phase]) do
    local msg = out[j] or false
    out[j] = nil
    local a = peer[j]
    if a then skynet.send(a, "lua", "peer", t, phase, me, msg) else far[j] = msg end
  end
  assert(next(out) == nil, "a message for a region that does not expect one")
  -- Every phase, even with nothing for the other node: the relay counts its regions' posts.
  if relay then skynet.send(relay, "lua", "post", t, phase, me, far) end
end

-- The messages of this phase, in the order of their senders (as examples/world/init.lua).
local function await(t, phase)
  local key = t * 4 + phase
  local box = inbox[key]
  if (box and box.n or 0) < expect[phase] then
    waiting, waiter = key, coroutine.running()
    skynet.wait(waiter)
    waiting, waiter = nil, nil
    box = inbox[key]
  end
  inbox[key] = nil
  local list = {}
  for from = 1, n do
    local msg = box and box[from]
    if msg then list[#list + 1] = msg end
  end
  return list
end

-- cost.total: this service's CPU time so far (the coordinator takes differences between ticks,
-- which count what the phases do not: unpacking the peers' messages, packing the replies).
local function results(hits)
  local c = cpu()
  local enter, leave, ne, nl, h, nh = r:update(hits)
  cost[4] = cpu() - c
  cost.total = cpu()
  return enter, leave, ne, nl, h, nh, r.stats, cost
end

function command.tick(t, joins, leaves)
  -- When things happened (skynet.hpc, the system's monotonic clock): the coordinator prints the
  -- last tick's timeline, which shows how the worker threads took the regions.
  local at = { skynet.hpc() }
  cost.at = at
  local c = cpu()
  post(t, 1, r:move(t, joins, leaves))
  cost[1] = cpu() - c
  at[2] = skynet.hpc()
  local got = await(t, 1)
  at[3] = skynet.hpc()
  c = cpu()
  post(t, 2, r:arrive(got))
  cost[2] = cpu() - c
  got = await(t, 2)
  c = cpu()
  post(t, 3, r:ghosts(got))
  cost[3] = cpu() - c
  -- The views do not need the neighbours' hits: updated while those are on their way.
  c = cpu()
  local enter, leave, ne, nl = r:views()
  local views = cpu() - c
  got = await(t, 3)
  c = cpu()
  local nh = r:apply_hits(got)
  cost[4] = views + cpu() - c
  cost.total = cpu()
  at[4] = skynet.hpc()
  return enter, leave, ne, nl, r.hits, nh, r.stats, cost
end

-- One phase per call (the coordinator's design).
local function phase(k, f, ...)
  local c = cpu()
  local out = f(r, ...)
  cost[k] = cpu() - c
  return out
end
function command.move(t, joins, leaves) return phase(1, r.move, t, joins, leaves) end
function command.arrive(migrations) return phase(2, r.arrive, migrations) end
function command.ghosts(strips) return phase(3, r.ghosts, strips) end

function command.update(hits) return results(hits) end

function command.owned() return r:owned({}) end

function command.close()
  walls:close()
  return true
end

require("skynet_commands").start(command)
