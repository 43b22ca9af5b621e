-- The relay of one node when the regions run on two skynet nodes: every phase, each region of
-- this node posts here what it has for the regions of the other node (an empty table too), and
-- once all of them have posted the relay sends it all in one cluster.send; the other node's
-- relay hands each region its part. Messages cross the link one way, always as cluster.send:
-- skynet's cluster sender sets nodelay on its socket, but a cluster.call's reply comes back
-- through the listening node's gate, whose sockets have no nodelay, and a small reply written
-- while the previous one waits for its acknowledgement waits for the peer's delayed ACK.
-- On node b it also starts the ticks of its regions and sends their results to the coordinator.
local skynet = require "skynet"
local cluster = require "skynet.cluster"

local other            -- the other node's cluster name
local here = {}        -- here[i]: the address of region i, on this node
local count = 0
local posts = {}       -- posts[t * 4 + phase] = { n = posts so far, batch = { [to] = { [from] = msg } } }
-- How long each batch took from the other relay's send to here, in ms: skynet.hpc is the
-- system's monotonic clock, the same in both processes.
local crossings = {}

local command = {}

-- other_node: the other node's name in the cluster config; addresses: { [i] = address }
function command.init(other_node, addresses)
  other, here, count = other_node, addresses, 0
  for _ in pairs(addresses) do count = count + 1 end
  cluster.register("relay", skynet.self())
  return true
end

function command.post(t, phase, from, far)
  local key = t * 4 + phase
  local p = posts[key]
  if not p then p = { n = 0, batch = {} }; posts[key] = p end
  for to, msg in pairs(far) do
    local b = p.batch[to]
    if not b then b = {}; p.batch[to] = b end
    b[from] = msg
  end
  p.n = p.n + 1
  if p.n == count then
    posts[key] = nil
    if next(p.batch) then cluster.send(other, "@relay", "deliver", t, phase, p.batch, skynet.hpc()) end
  end
end

function command.deliver(t, phase, batch, sent)
  crossings[#crossings + 1] = (skynet.hpc() - sent) / 1e6
  for to, msgs in pairs(batch) do skynet.send(assert(here[to], "no such region here"), "lua", "peers", t, phase, msgs) end
end

-- The coordinator's tick for the regions of this node; their results go back in one message.
function command.tick(t, joins, leaves)
  local out, pending, co = {}, count, coroutine.running()
  for i, addr in pairs(here) do
    skynet.fork(function()
      out[i] = table.pack(pcall(skynet.call, addr, "lua", "tick", t, joins[i] or {}, leaves))
      pending = pending - 1
      if pending == 0 then skynet.wakeup(co) end
    end)
  end
  skynet.wait(co)
  cluster.send(other, "@coord", "results", t, out)
end

function command.crossings() return crossings end

-- The link's round trip as the ticks use it (cluster.send both ways), and as cluster.call does.
function command.echo(payload) cluster.send(other, "@coord", "echo", payload) end
function command.bounce(payload) return payload end

require("skynet_commands").start(command)
