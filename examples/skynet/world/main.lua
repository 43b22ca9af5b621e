-- The coordinator of the region world on skynet (examples/world/ is the logic; this service
-- only starts services and carries messages). Modes, from the config:
--   world_mode = "proof": the seeded scene runs in one service (world_single) and in cols x rows
--     region services (world_region); after every tick the union of the regions' AOI events and
--     hits must equal the single service's, and every 5 ticks their owned entities must equal
--     its entities. With world_nodes = 2 the second half of the regions live on another skynet
--     node (config.node_b), reached through skynet's cluster on 127.0.0.1.
--   world_mode = "bench": the same, on world_entities entities, timing each tick of the single
--     service and of the regions side by side (alternating), and the ghost traffic.
-- Each phase is sent to every region at once (they run in parallel on the worker threads),
-- and the next phase starts when all have answered; messages between regions travel through
-- this service. Prints "CHECK ok ..." / "CHECK FAIL ..." lines and "WORLD ..." figures.
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

local function check(ok, what)
  print(string.format("CHECK %s world %s: %s", ok and "ok" or "FAIL", mode .. (nodes == 2 and " (2 nodes)" or ""), what))
  return ok
end

-- Runs f(i) for every region concurrently; returns results[i] = { f(i)... }. Raises the first
-- error after all have finished.
local function each(n, f)
  local results, pending, co, err = {}, n, coroutine.running(), nil
  for i = 1, n do
    skynet.fork(function()
      local r = table.pack(pcall(f, i))
      if not r[1] then err = err or r[2] end
      results[i] = { table.unpack(r, 2, r.n) }
      pending = pending - 1
      if pending == 0 then skynet.wakeup(co) end
    end)
  end
  skynet.wait(co)
  if err then error(err) end
  return results
end

local function rules_opts()
  if mode == "bench" then return world.bench_rules(entities, cols, rows) end  -- make world's scene
  return { seed = 16, size = 1024, view = 50, margin = 5, reach = 40, speed = 2, jump = 300, cast = 3000 }, 12
end

local same_pairs, median = world.same_pairs, world.median

local function run()
  local opts, churn = rules_opts()
  local rules = world.rules.new(opts)
  local grid = world.grid.new(rules.size, cols, rows)
  local n = grid.count
  local cluster, remote_from
  if nodes == 2 then
    cluster = require "skynet.cluster"
    cluster.reload({ nodea = "127.0.0.1:" .. env("world_port_a", 2761), nodeb = "127.0.0.1:" .. env("world_port_b", 2762) })
    remote_from = n // 2 + 1
    local up = false
    for _ = 1, 100 do  -- node b may still be starting
      up = pcall(cluster.call, "nodeb", "@control", "ping")
      if up then break end
      skynet.sleep(10)
    end
    if not check(up, "node b answers through cluster") then return end
    local rtt = {}
    for k = 1, 21 do
      local c0 = skynet.hpc()
      cluster.call("nodeb", "@control", "ping")
      rtt[k] = (skynet.hpc() - c0) / 1e6
    end
    table.sort(rtt)
    print(string.format("WORLD cluster round trip to node b (an empty call): median %.2f ms", rtt[11]))
  end
  -- call[i](cmd, ...): region i, here or on node b.
  local call = {}
  for i = 1, n do
    if remote_from and i >= remote_from then
      cluster.call("nodeb", "@control", "spawn", i)
      local name = "@region" .. i
      call[i] = function(...) return cluster.call("nodeb", name, ...) end
    else
      local addr = skynet.newservice("world_region")
      call[i] = function(...) return skynet.call(addr, "lua", ...) end
    end
  end
  each(n, function(i) return call[i]("init", opts, cols, rows, i) end)
  local single = skynet.newservice("world_single")
  skynet.call(single, "lua", "init", opts, entities)
  print(string.format("WORLD %s: %d entities in %dx%d, %dx%d region services%s, border %g, %d ticks",
    mode, entities, rules.size, rules.size, cols, rows,
    nodes == 2 and string.format(" (%d on this node, %d on node b through cluster)", remote_from - 1, n - remote_from + 1) or " on one node",
    rules:min_border(), ticks))
  local script_one, script_many = rules:script(entities, churn), rules:script(entities, churn)
  local equal_ticks, first_bad, owned_checks, owned_bad = 0, nil, 0, 0
  local t_one, t_many, bytes, ghost_ms, events, migrants, remote_hits = {}, {}, {}, {}, 0, 0, 0
  -- Wall time (hpc) is what ticks per second are; os.clock is the CPU time of the whole process
  -- (every worker thread), which on a loaded machine says what the work cost.
  local cpu_one, cpu_many = {}, {}
  local clock = os.clock
  local hpc = skynet.hpc
  for t = 0, ticks do
    local j1, l1 = script_one(t)
    local j2, l2 = script_many(t)
    local c0, p0 = hpc(), clock()
    local e1, v1, ne1, nl1, h1, nh1 = skynet.call(single, "lua", "tick", j1, l1)
    local c1, p1 = hpc(), clock()
    local by = world.route_joins(grid, j2)
    -- Script tick t is the worlds' tick t + 1 (world_single counts its own ticks from 1).
    local out = each(n, function(i) return call[i]("move", t + 1, by[i], l2) end)
    local outbox = {}
    for i = 1, n do outbox[i] = out[i][1] end
    local inbox = world.deliver(n, outbox)
    out = each(n, function(i) return call[i]("arrive", inbox[i]) end)
    for i = 1, n do outbox[i] = out[i][1] end
    inbox = world.deliver(n, outbox)
    out = each(n, function(i) return call[i]("ghosts", inbox[i]) end)
    for i = 1, n do outbox[i] = out[i][1] end
    inbox = world.deliver(n, outbox)
    out = each(n, function(i) return call[i]("update", inbox[i]) end)
    local c2, p2 = hpc(), clock()
    local E, L, H, ne, nl, nh, b, gs = {}, {}, {}, 0, 0, 0, 0, 0
    for i = 1, n do
      local e, l, a, bb, h, c, stats = table.unpack(out[i], 1, 7)
      table.move(e, 1, 2 * a, 2 * ne + 1, E)
      table.move(l, 1, 2 * bb, 2 * nl + 1, L)
      table.move(h, 1, 2 * c, 2 * nh + 1, H)
      ne, nl, nh = ne + a, nl + bb, nh + c
      b, gs = b + stats.strip_bytes, gs + stats.ghost_s
      migrants = migrants + stats.migrants
      if t == ticks then remote_hits = remote_hits + stats.remote_hits end
    end
    if same_pairs(e1, ne1, E, ne) and same_pairs(v1, nl1, L, nl) and same_pairs(h1, nh1, H, nh) then
      equal_ticks = equal_ticks + 1
    elseif not first_bad then
      first_bad = t
      print(string.format("WORLD tick %d differs: single %d enter %d leave %d hits; regions %d enter %d leave %d hits",
        t, ne1, nl1, nh1, ne, nl, nh))
    end
    if mode == "proof" and (t % 5 == 0 or t == ticks) then
      owned_checks = owned_checks + 1
      local a = skynet.call(single, "lua", "owned")
      local parts = each(n, function(i) return call[i]("owned") end)
      local b2 = {}
      for i = 1, n do for id, v in pairs(parts[i][1]) do b2[id] = v end end
      local ok = true
      for id, v in pairs(a) do
        local w = b2[id]
        if not (w and w[1] == v[1] and w[2] == v[2] and w[3] == v[3] and w[4] == v[4] and w[5] == v[5]) then ok = false end
        b2[id] = nil
      end
      if next(b2) ~= nil or not ok then owned_bad = owned_bad + 1 end
    end
    if t >= 2 then  -- ticks 0 (everyone joins) and 1 are warm-up
      t_one[#t_one + 1], t_many[#t_many + 1] = (c1 - c0) / 1e6, (c2 - c1) / 1e6
      cpu_one[#cpu_one + 1], cpu_many[#cpu_many + 1] = (p1 - p0) * 1000, (p2 - p1) * 1000
      bytes[#bytes + 1], ghost_ms[#ghost_ms + 1] = b, gs * 1000
      events = events + ne1 + nl1
    end
  end
  check(equal_ticks == ticks + 1, string.format("union of the regions' AOI events and hits equals the single service's at %d of %d ticks%s",
    equal_ticks, ticks + 1, first_bad and (" (first difference at tick " .. first_bad .. ")") or ""))
  if mode == "proof" then
    check(owned_bad == 0 and owned_checks > 0, string.format("owned entities (position, radius, team, hit points) equal the single service's at %d of %d checks",
      owned_checks - owned_bad, owned_checks))
    check(migrants > 100 and remote_hits > 20, string.format("the scene migrated entities (%d) and hit ghosts (%d hits applied by their owner)", migrants, remote_hits))
  end
  local m1, m2 = median(t_one), median(t_many)
  local u1, u2 = median(cpu_one), median(cpu_many)
  print(string.format("WORLD one service: median tick %.1f ms wall -> %.1f ticks/s; %.1f ms CPU", m1, 1000 / m1, u1))
  print(string.format("WORLD %d region services: median tick %.1f ms wall -> %.1f ticks/s (%.2fx the one service's ticks/s); %.1f ms CPU in all (%.2fx)",
    n, m2, 1000 / m2, m1 / m2, u2, u2 / u1))
  print(string.format("WORLD ghost traffic per tick (medians): %d bytes of strip snapshots, %.2f ms in all regions dropping + taking + merging them; %d AOI events over %d timed ticks",
    median(bytes), median(ghost_ms), events, #t_one))
  if cluster then cluster.send("nodeb", "@control", "stop") end
end

skynet.start(function()
  local ok, err = pcall(run)
  if not ok then check(false, "ran without error: " .. tostring(err)) end
  print("WORLD DONE")
  skynet.sleep(20)  -- let node b receive its stop
  skynet.abort()
end)
