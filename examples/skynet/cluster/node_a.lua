-- Node A: a scene of ENTITIES entities plays a few ticks, then its region moves to node B
-- through skynet's cluster: the layer as one dump() string (60,000 entities: about 1.4 MB,
-- far beyond the 32 KB a cluster message is split into), B loads it and plays on. A checks
-- that B's layer equals its own (B answers with its dump()), that the same queries answer the
-- same on both nodes, and that B's ticks run; then stops B and itself.
local skynet = require "skynet"
local cluster = require "skynet.cluster"
require "skynet.manager"  -- skynet.abort

local function check(ok, fmt, ...)
  skynet.error((ok and "CHECK ok " or "CHECK FAIL ") .. string.format(fmt, ...))
  return ok
end

local function run()
  local entities = tonumber(skynet.getenv("entities"))
  cluster.reload({ node_a = skynet.getenv("node_a"), node_b = skynet.getenv("node_b") })
  local east = skynet.newservice("scene")
  local held = skynet.call(east, "lua", "init", { entities = entities, seed = 7, size = 7000 })
  for _ = 1, 3 do skynet.call(east, "lua", "tick") end
  -- B starts at the same time: wait until its port answers (up to 30 s).
  local up, tries = false, 0
  repeat
    tries = tries + 1
    up = pcall(cluster.call, "node_b", "@scene", "answers", 1, 1)
    if not up then skynet.sleep(50) end
  until up or tries >= 60
  if not check(up, "node_b answers through the cluster (after %d tries)", tries) then return end
  local answers_a = skynet.call(east, "lua", "answers", 99, 200)
  local snapshot, hp, heading = skynet.call(east, "lua", "handoff")
  local clock = skynet.now()
  local adopted, b_snapshot = cluster.call("node_b", "@scene", "adopt", snapshot, hp, heading)
  local ms = (skynet.now() - clock) * 10
  check(#snapshot > 32 * 1024 and adopted == held,
    "node_a handed %d entities to node_b as a %d-byte dump() through cluster.call (%d ms there and back)", adopted, #snapshot, ms)
  check(b_snapshot == snapshot, "node_b's layer equals node_a's (its dump(), %d bytes, is the same string)", #b_snapshot)
  local answers_b = cluster.call("node_b", "@scene", "answers", 99, 200)
  local same, first = 0, nil
  for q = 1, #answers_a do
    if answers_a[q] == answers_b[q] then same = same + 1 elseif not first then first = q end
  end
  local hits = 0
  for q = 1, #answers_a do if answers_a[q] ~= "" then hits = hits + 1 end end
  check(same == #answers_a and #answers_b == #answers_a,
    "the same %d queries answer the same on both nodes (%d of them found something)%s", #answers_a, hits,
    first and (", first difference at query " .. first) or "")
  local casts, ticks = 0, 0
  for _ = 1, 5 do
    local s = cluster.call("node_b", "@scene", "tick")
    ticks, casts = ticks + 1, casts + s.casts
    skynet.error(string.format("node_b tick %d: %d entities, %d casts, %d hits, %d enter, %d leave, %.1f ms",
      s.tick, s.entities, s.casts, s.hits, s.enter, s.leave, s.ms))
  end
  check(ticks == 5 and casts > 0, "node_b plays on: %d ticks with %d casts", ticks, casts)
  cluster.send("node_b", "@node", "stop")
end

skynet.start(function()
  local ok, err = xpcall(run, debug.traceback)
  check(ok, "node_a ran to its end%s", ok and "" or (": " .. tostring(err)))
  skynet.error("CASE DONE cluster")
  skynet.sleep(20)  -- abort drops the logger's queue: let it print first
  skynet.abort()
end)
