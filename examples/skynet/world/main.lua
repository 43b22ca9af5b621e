-- The coordinator of the region world on skynet (examples/world/ is the logic; this service
-- starts the services, starts each tick and collects what the proof compares). Modes, from the
-- config:
--   world_mode = "proof": the seeded scene runs in one service (world_single) and in cols x rows
--     region services (world_region); after every tick the union of the regions' AOI events and
--     hits must equal the single service's, and every 5 ticks their owned entities must equal
--     its entities. With world_nodes = 2 the second half of the regions live on another skynet
--     node (config.node_b), reached through skynet's cluster on 127.0.0.1.
--   world_mode = "bench": the same, on world_entities entities, timing each tick of the single
--     service and of the regions side by side (alternating), and the ghost traffic.
-- On one node two sets of region services play the scene: one whose regions send their
-- migrations, strips and hits straight to each other (the design kept), and one where every
-- phase goes through this service (each phase sent to every region at once, the next phase
-- when all have answered), to measure against. Over two nodes only the first runs, with one
-- relay per node (world_relay.lua) batching what crosses the link. The world's static walls
-- come from a map service per node (world_map.lua, shared under WALLS; both nodes build them
-- from the same seed): the single service and every region attach them, and close their views
-- at the end. Prints "CHECK ok ..." / "CHECK FAIL ..." lines and "WORLD ..." figures.
local skynet = require "skynet"
require "skynet.manager"  -- skynet.abort
local world = require "world"

local function env(name, default)
  local v = skynet.getenv(name)
  if v == nil or v == "" then return default end
  return tonumber(v) or v
end

local mode = env("world_mode", "proof")
local nodes = env("world_nodes", 1)
local entities = env("world_entities", 3000)
local ticks = env("world_ticks", 60)
local cols, rows = env("world_cols", 2), env("world_rows", 2)
local same_pairs, median = world.same_pairs, world.median
local hpc, clock = skynet.hpc, os.clock
local cluster
local WALLS = "world.walls"  -- the name each node's map service shares the walls under

local function check(ok, what)
  print(string.format("CHECK %s world %s: %s", ok and "ok" or "FAIL", mode .. (nodes == 2 and " (2 nodes)" or ""), what))
  return ok
end

-- This service's CPU time so far, in seconds (see world_region.lua).
local function cpu() return skynet.stat("cpu") + skynet.stat("time") end

local function loadavg()
  local f = io.open("/proc/loadavg")
  if not f then return "unknown" end
  local s = f:read("l")
  f:close()
  return s:match("^(%S+ %S+ %S+)") or s
end

-- Runs f(i) for every i of the list concurrently; returns results[i] = { f(i)... }. Raises the
-- first error after all have finished, or when they have not within WATCHDOG: a region that
-- failed in the middle of a tick leaves its neighbours waiting for its messages, and the run
-- should end with that error rather than at run.sh's time limit.
local WATCHDOG = 60 * 100  -- centiseconds
local function each(list, f)
  local results, pending, co, err = {}, #list, coroutine.running(), nil
  if pending == 0 then return results end
  for _, i in ipairs(list) do
    skynet.fork(function()
      local r = table.pack(pcall(f, i))
      if not r[1] then err = err or r[2] end
      results[i] = { table.unpack(r, 2, r.n) }
      pending = pending - 1
      if pending == 0 then skynet.wakeup(co) end
    end)
  end
  skynet.timeout(WATCHDOG, function()
    if pending > 0 then err = err or "no answer within 60 s"; skynet.wakeup(co) end
  end)
  skynet.wait(co)
  if err then error(err) end
  return results
end

-- What node b's relay sends this service (cluster.send to "@coord"): a tick's results, echoes.
local mail, mail_waiter = {}, {}
local function post_mail(key, value)
  mail[key] = value
  local co = mail_waiter[key]
  if co then mail_waiter[key] = nil; skynet.wakeup(co) end
end
local function take_mail(key)
  if mail[key] == nil then
    local co = coroutine.running()
    mail_waiter[key] = co
    skynet.timeout(WATCHDOG, function()
      if mail_waiter[key] == co then mail_waiter[key] = nil; skynet.wakeup(co) end
    end)
    skynet.wait(co)
  end
  local v = mail[key]
  if v == nil then error("no " .. key .. " from node b within 60 s") end
  mail[key] = nil
  return v
end
local inbound = {}
function inbound.results(t, out) post_mail("results" .. t, out) end
function inbound.echo(payload) post_mail("echo", payload) end

local function rules_opts()
  if mode == "bench" then return world.bench_rules(entities, cols, rows) end  -- make world's scene
  return { seed = 16, size = 1024, view = 50, margin = 5, reach = 40, speed = 2, jump = 300, cast = 3000 }, 12
end

-- Round trips to node b (medians), printed with the figures: the link as the ticks use it.
local function link_figures()
  local function timed(k, f)
    local t = {}
    for i = 1, k do
      local c0 = hpc()
      f()
      t[i] = (hpc() - c0) / 1e6
    end
    return median(t)
  end
  local empty = timed(21, function() cluster.call("nodeb", "@control", "ping") end)
  local sends, calls = {}, {}
  for k, size in ipairs({ 4096, 60000 }) do
    local payload = string.rep("x", size)
    sends[k] = timed(21, function() cluster.send("nodeb", "@relay", "echo", payload); assert(take_mail("echo") == payload) end)
    calls[k] = timed(21, function() assert(cluster.call("nodeb", "@relay", "bounce", payload) == payload) end)
  end
  print(string.format("WORLD cluster link to node b (medians of 21): an empty cluster.call %.2f ms; 4 KB / 60 KB there and back as two cluster.sends (as the ticks' phases cross) %.2f / %.2f ms, as a cluster.call's request and reply %.2f / %.2f ms",
    empty, sends[1], sends[2], calls[1], calls[2]))
  return sends
end

-- A set of n region services. direct: wired to each other (tick); otherwise driven phase by
-- phase. Over two nodes regions remote_from..n live on node b.
local function new_set(opts, n, direct, remote_from)
  local set = { n = n, direct = direct, remote_from = remote_from, addr = {}, call = {}, here = {}, there = {}, last = {} }
  for i = 1, n do
    if remote_from and i >= remote_from then
      cluster.call("nodeb", "@control", "spawn", i)
      local name = "@region" .. i
      set.call[i] = function(...) return cluster.call("nodeb", name, ...) end
      set.there[#set.there + 1] = i
    else
      local addr = skynet.newservice("world_region")
      set.addr[i] = addr
      set.call[i] = function(...) return skynet.call(addr, "lua", ...) end
      set.here[#set.here + 1] = i
    end
  end
  set.all = {}  -- the regions' numbers, for each()
  for i = 1, n do set.all[i] = i end
  local all = set.all
  each(all, function(i) return set.call[i]("init", opts, cols, rows, i, nil, WALLS) end)
  if direct then
    local relay
    if remote_from then
      relay = skynet.newservice("world_relay")
      skynet.call(relay, "lua", "init", "nodeb", set.addr)
      set.relay = relay
    end
    local addresses = {}
    for i = 1, n do addresses[i] = set.addr[i] or false end
    each(set.here, function(i) return set.call[i]("wire", addresses, relay) end)
    if remote_from then cluster.call("nodeb", "@control", "wire", n) end
  end
  return set
end

-- One tick of the direct design: each region runs its whole tick, talking to its neighbours.
local function tick_direct(set, t, by, leaves)
  if set.remote_from then
    local theirs = {}
    for _, i in ipairs(set.there) do theirs[i] = by[i] end
    cluster.send("nodeb", "@relay", "tick", t, theirs, leaves)
  end
  local out = each(set.here, function(i) return skynet.call(set.addr[i], "lua", "tick", t, by[i], leaves) end)
  if set.remote_from then
    for i, r in pairs(take_mail("results" .. t)) do
      if not r[1] then error(r[2]) end
      out[i] = { table.unpack(r, 2, r.n) }
    end
  end
  return out
end

-- One tick of the coordinator's design: four rounds, every message through this service.
local function tick_coordinated(set, t, by, leaves)
  local n, call, all = set.n, set.call, set.all
  local out = each(all, function(i) return call[i]("move", t, by[i], leaves) end)
  for _, step in ipairs({ "arrive", "ghosts", "update" }) do
    local outbox = {}
    for i = 1, n do outbox[i] = out[i][1] end
    local inbox = world.deliver(n, outbox)
    out = each(all, function(i) return call[i](step, inbox[i]) end)
  end
  return out
end

-- Figures of one side (the single service or a set of regions), one entry per timed tick.
local function new_tally(name)
  return { name = name, wall = {}, proc = {}, cpu = {}, crit = {}, phase = { {}, {}, {}, {}, {} },
           bytes = {}, ghost_ms = {}, equal = 0, first_bad = nil, owned_checks = 0, owned_bad = 0,
           migrants = 0, remote_hits = 0, walled = 0, coord = {} }
end

-- The union of a set's results, and what the tick cost (per region: phases and CPU in all).
local function gather(set, out, tally, t, timed, coord_cpu)
  local E, L, H, ne, nl, nh, bytes, gs, total = {}, {}, {}, 0, 0, 0, 0, 0, 0
  local worst = { 0, 0, 0, 0 }
  for i = 1, set.n do
    local e, l, a, b, h, c, stats, cost = table.unpack(out[i], 1, 8)
    table.move(e, 1, 2 * a, 2 * ne + 1, E)
    table.move(l, 1, 2 * b, 2 * nl + 1, L)
    table.move(h, 1, 2 * c, 2 * nh + 1, H)
    ne, nl, nh = ne + a, nl + b, nh + c
    bytes, gs = bytes + stats.strip_bytes, gs + stats.ghost_s
    tally.migrants = tally.migrants + stats.migrants
    if t == ticks then
      tally.remote_hits, tally.walled = tally.remote_hits + stats.remote_hits, tally.walled + stats.walled
    end
    for p = 1, 4 do worst[p] = math.max(worst[p], cost[p]) end
    total = total + cost.total - (set.last[i] or cost.total)
    set.last[i] = cost.total
  end
  if timed then
    local crit = coord_cpu
    for p = 1, 4 do
      crit = crit + worst[p]
      tally.phase[p][#tally.phase[p] + 1] = worst[p] * 1000
    end
    tally.phase[5][#tally.phase[5] + 1] = coord_cpu * 1000
    tally.crit[#tally.crit + 1] = crit * 1000
    tally.cpu[#tally.cpu + 1] = total * 1000
    tally.bytes[#tally.bytes + 1], tally.ghost_ms[#tally.ghost_ms + 1] = bytes, gs * 1000
  end
  return E, L, ne, nl, H, nh
end

local function owned_equal(a, b)
  for id, v in pairs(a) do
    local w = b[id]
    if not (w and w[1] == v[1] and w[2] == v[2] and w[3] == v[3] and w[4] == v[4] and w[5] == v[5]) then return false end
    b[id] = nil
  end
  return next(b) == nil
end

-- Ticks a set, checks it against the single service's results of the same tick.
local function play(set, tally, t, by, leaves, ref, owned)
  local timed = t >= 2  -- ticks 0 (everyone joins) and 1 are warm-up
  local c0, p0, u0 = hpc(), clock(), cpu()
  local out = (set.direct and tick_direct or tick_coordinated)(set, t + 1, by, leaves)
  local c1, p1, u1 = hpc(), clock(), cpu()
  local E, L, ne, nl, H, nh = gather(set, out, tally, t, timed, u1 - u0)
  if set.direct and t == ticks then
    local parts = {}
    for i = 1, set.n do
      local at = out[i][8].at
      parts[i] = string.format("R%d move %.1f-%.1f, migrations in %.1f, done %.1f", i,
        (at[1] - c0) / 1e6, (at[2] - c0) / 1e6, (at[3] - c0) / 1e6, (at[4] - c0) / 1e6)
    end
    print(string.format("WORLD timeline of the last tick, %s (ms from its start; it took %.1f): %s",
      tally.name, (c1 - c0) / 1e6, table.concat(parts, "; ")))
  end
  if timed then
    tally.wall[#tally.wall + 1], tally.proc[#tally.proc + 1] = (c1 - c0) / 1e6, (p1 - p0) * 1000
  end
  if same_pairs(ref[1], ref[3], E, ne) and same_pairs(ref[2], ref[4], L, nl) and same_pairs(ref[5], ref[6], H, nh) then
    tally.equal = tally.equal + 1
  elseif not tally.first_bad then
    tally.first_bad = t
    print(string.format("WORLD %s, tick %d differs: single %d enter %d leave %d hits; regions %d enter %d leave %d hits",
      tally.name, t, ref[3], ref[4], ref[6], ne, nl, nh))
  end
  if owned then
    tally.owned_checks = tally.owned_checks + 1
    local parts = each(set.all, function(i) return set.call[i]("owned") end)
    local b = {}
    for i = 1, set.n do for id, v in pairs(parts[i][1]) do b[id] = v end end
    if not owned_equal(owned, b) then tally.owned_bad = tally.owned_bad + 1 end
  end
end

local function verdict(ok) return ok and "met" or "NOT met" end

-- The figures of a set of regions against the one service's; returns its medians.
local function report(one, tally, n)
  check(tally.equal == ticks + 1, string.format("%s: union of the regions' AOI events and hits equals the single service's at %d of %d ticks%s",
    tally.name, tally.equal, ticks + 1, tally.first_bad and (" (first difference at tick " .. tally.first_bad .. ")") or ""))
  if mode == "proof" then
    check(tally.owned_bad == 0 and tally.owned_checks > 0, string.format("%s: owned entities (position, radius, team, hit points) equal the single service's at %d of %d checks",
      tally.name, tally.owned_checks - tally.owned_bad, tally.owned_checks))
    check(tally.migrants > 100 and tally.remote_hits > 20, string.format("%s: the scene migrated entities (%d) and hit ghosts (%d hits applied by their owner)",
      tally.name, tally.migrants, tally.remote_hits))
  end
  check(tally.walled == one.walled and one.walled > 0, string.format("%s: the walls removed %d hits in the regions, %d in the single service",
    tally.name, tally.walled, one.walled))
  local m = { one = median(one.wall), one_cpu = median(one.cpu), wall = median(tally.wall), cpu = median(tally.cpu),
              proc = median(tally.proc), crit = median(tally.crit) }
  local ph = {}
  for p = 1, 5 do ph[p] = median(tally.phase[p]) end
  local label = string.format("WORLD %d regions, %s:", n, tally.name)
  print(string.format("%s median tick %.1f ms wall -> %.1f ticks/s (%.2fx the one service's)", label, m.wall, 1000 / m.wall, m.one / m.wall))
  print(string.format("%s CPU %.1f ms in all region services (%.2fx the one service's), coordinator %.1f ms (%.1f ms for the one service); %s %.1f ms of CPU over %.1f ms of wall time (%.2f cores busy)",
    label, m.cpu, m.cpu / m.one_cpu, ph[5], median(one.coord), nodes == 2 and "node a's process" or "the process", m.proc, m.wall, m.proc / m.wall))
  -- Against the one service's CPU per tick: on an idle machine its wall time, and unlike the
  -- wall time not stretched by other processes on a loaded one.
  print(string.format("%s critical path %.1f ms of CPU (%.2fx the one service's tick of %.1f ms CPU): slowest region per phase %.1f (move) + %.1f (arrive) + %.1f (ghosts) + %.1f (update), coordinator %.1f",
    label, m.crit, m.crit / m.one_cpu, m.one_cpu, ph[1], ph[2], ph[3], ph[4], ph[5]))
  return m
end

-- Over two nodes: how long the phases' batches took to cross, each way (medians, ms).
local function crossings(set)
  local ab = skynet.call(set.relay, "lua", "crossings")  -- arrived here: sent by node b
  local ba = cluster.call("nodeb", "@relay", "crossings")
  local function worst(t) local m = 0; for _, v in ipairs(t) do m = math.max(m, v) end; return m end
  local m1, m2 = median(ab), median(ba)
  print(string.format("WORLD a phase's batch crossing the link in the ticks (%d each way): node a -> b median %.2f ms (slowest %.2f), node b -> a median %.2f ms (slowest %.2f); there and back %.2f ms",
    #ba, m2, worst(ba), m1, worst(ab), m1 + m2))
  return m1 + m2
end

-- The issue's targets for the design kept, with this run's figures.
local function targets(m, link, round)
  if nodes == 2 then
    print(string.format("WORLD target: a phase's crossing there and back <= 2 ms: %.2f ms in the ticks (medians each way); echoes of 4 KB %.2f ms, 60 KB %.2f ms (%s)",
      round, link[1], link[2], verdict(round <= 2)))
    print(string.format("WORLD target: the proof scene's tick over two nodes <= 20 ms of wall time: %.1f ms (%s)", m.wall, verdict(m.wall <= 20)))
  elseif mode == "bench" then
    print(string.format("WORLD target: the regions' CPU in all <= 1.10x the one service's: %.2fx (%s)", m.cpu / m.one_cpu, verdict(m.cpu / m.one_cpu <= 1.10)))
    print(string.format("WORLD target: critical path <= 0.6x the one service's tick: %.2fx (%s)", m.crit / m.one_cpu, verdict(m.crit / m.one_cpu <= 0.6)))
    print(string.format("WORLD target: ticks per second >= 1.5x the one service's: %.2fx (%s)", m.one / m.wall, verdict(m.one / m.wall >= 1.5)))
  end
end

local function run()
  local opts, churn = rules_opts()
  local rules = world.rules.new(opts)
  local grid = world.grid.new(rules.size, cols, rows)
  local n = grid.count
  print(string.format("WORLD load average at start: %s", loadavg()))
  local remote_from
  if nodes == 2 then
    cluster = require "skynet.cluster"
    cluster.reload({ nodea = "127.0.0.1:" .. env("world_port_a", 2761), nodeb = "127.0.0.1:" .. env("world_port_b", 2762) })
    cluster.register("coord", skynet.self())
    cluster.open("nodea")
    remote_from = n // 2 + 1
    local up = false
    for _ = 1, 100 do  -- node b may still be starting
      up = pcall(cluster.call, "nodeb", "@control", "ping")
      if up then break end
      skynet.sleep(10)
    end
    if not check(up, "node b answers through cluster") then return end
  end
  -- The walls, shared by this node's map service (and node b's, from the same options).
  local map = skynet.newservice("world_map")
  local _, n_walls, fp = skynet.call(map, "lua", "publish", opts, WALLS)
  if nodes == 2 then
    local _, b_walls, b_fp = cluster.call("nodeb", "@control", "map", opts, WALLS)
    check(b_walls == n_walls and b_fp == fp, string.format("both nodes' map services share the same %d walls, fingerprint %s (node b: %d, %s)",
      n_walls, fp, b_walls, b_fp))
  end
  local sets = { new_set(opts, n, true, remote_from) }
  local tallies = { new_tally("direct messages between regions") }
  if nodes == 1 then
    sets[2], tallies[2] = new_set(opts, n, false), new_tally("every phase through the coordinator")
  end
  local link = nodes == 2 and link_figures()
  local single = skynet.newservice("world_single")
  skynet.call(single, "lua", "init", opts, entities, WALLS)
  print(string.format("WORLD %s: %d entities in %dx%d, %dx%d region services%s, border %g, %d ticks, %d shared walls, thread = %s",
    mode, entities, rules.size, rules.size, cols, rows,
    nodes == 2 and string.format(" (%d on this node, %d on node b through cluster)", remote_from - 1, n - remote_from + 1) or " on one node",
    rules:min_border(), ticks, n_walls, skynet.getenv("thread")))
  local scripts = {}
  for k = 0, #sets do scripts[k] = rules:script(entities, churn) end
  local one, last_cpu, events = new_tally("one service"), nil, 0
  for t = 0, ticks do
    local j, l = scripts[0](t)
    local c0, p0, u0 = hpc(), clock(), cpu()
    local ref = table.pack(skynet.call(single, "lua", "tick", j, l))
    local c1, p1, u1 = hpc(), clock(), cpu()
    local used = last_cpu and ref[7] - last_cpu
    last_cpu, one.walled = ref[7], ref[8]
    if t >= 2 then
      one.wall[#one.wall + 1], one.proc[#one.proc + 1], one.cpu[#one.cpu + 1] = (c1 - c0) / 1e6, (p1 - p0) * 1000, used * 1000
      one.coord[#one.coord + 1] = (u1 - u0) * 1000
      events = events + ref[3] + ref[4]
    end
    local owned = mode == "proof" and (t % 5 == 0 or t == ticks) and skynet.call(single, "lua", "owned")
    for k, set in ipairs(sets) do
      local j2, l2 = scripts[k](t)
      play(set, tallies[k], t, world.route_joins(grid, j2), l2, ref, owned)
    end
  end
  local m1 = median(one.wall)
  print(string.format("WORLD one service: median tick %.1f ms wall -> %.1f ticks/s; %.1f ms CPU (process %.1f ms)",
    m1, 1000 / m1, median(one.cpu), median(one.proc)))
  local kept = report(one, tallies[1], n)
  for k = 2, #sets do report(one, tallies[k], n) end
  print(string.format("WORLD ghost traffic per tick (medians): %d bytes of strip snapshots, %.2f ms in all regions dropping + taking + merging them; %d AOI events over %d timed ticks",
    median(tallies[1].bytes), median(tallies[1].ghost_ms), events, #one.wall))
  targets(kept, link, nodes == 2 and crossings(sets[1]))
  -- Every service lets its view of the walls go: none is left open on either node.
  for _, set in ipairs(sets) do
    each(set.all, function(i) return set.call[i]("close") end)
  end
  skynet.call(single, "lua", "close")
  local open_a = skynet.call(map, "lua", "holders", WALLS)
  local open_b = nodes == 2 and cluster.call("nodeb", "@control", "holders") or 0
  check(open_a == 0 and open_b == 0, string.format("every view of the shared walls closed at the end (open: %s on node a, %s on node b)", open_a, open_b))
  skynet.call(map, "lua", "unshare", WALLS)
  print(string.format("WORLD load average at end: %s", loadavg()))
  if cluster then cluster.send("nodeb", "@control", "stop") end
end

skynet.start(function()
  skynet.dispatch("lua", function(_, _, cmd, ...)
    local f = assert(inbound[cmd], cmd)
    f(...)
  end)
  skynet.fork(function()
    local ok, err = pcall(run)
    if not ok then check(false, "ran without error: " .. tostring(err)) end
    print("WORLD DONE")
    skynet.sleep(20)  -- let node b receive its stop
    skynet.abort()
  end)
end)
