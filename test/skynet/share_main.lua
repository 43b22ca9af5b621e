-- soageo.share in one skynet process: a publisher service builds a layer of args.n entities
-- and args.walls walls, shares both and exits (its Lua state closes) before any other service
-- requires soageo; args.attachers services on the config's 8 threads attach and check their
-- answers against the publisher's; the process grows by less than 15% of the layer's size per
-- attacher; a second version reaches a new attacher while the first holders keep theirs.
local skynet = require "skynet"
local check = require "check"

-- This process's resident memory in bytes (VmRSS), nil off Linux.
local function rss()
  local f = io.open("/proc/self/status")
  if not f then return nil end
  local kb = f:read("a"):match("VmRSS:%s*(%d+)")
  f:close()
  return kb and tonumber(kb) * 1024
end

-- Calls `cmd` on every service at once; returns their results in order.
local function all(services, cmd, ...)
  local results, done, me = {}, 0, coroutine.running()
  local args = table.pack(...)
  for i, s in ipairs(services) do
    skynet.fork(function()
      results[i] = table.pack(pcall(skynet.call, s, "lua", cmd, table.unpack(args, 1, args.n)))
      done = done + 1
      if done == #services then skynet.wakeup(me) end
    end)
  end
  skynet.wait(me)
  return results
end

skynet.start(function()
  check.run("share", function()
    local args = check.args()
    local n, w, k = tonumber(args.n), tonumber(args.walls), tonumber(args.attachers)
    local publisher = skynet.newservice("share_service")
    local pub = skynet.call(publisher, "lua", "publish", n, w, 1)
    check.ok(pub.layer_version == 1 and pub.walls_version == 1, "a publisher shared %d entities (%.1f MB) and %d walls (%.1f MB) as version 1",
      n, pub.bytes / 1e6, w, pub.walls_bytes / 1e6)
    skynet.send(publisher, "lua", "exit")
    skynet.sleep(50)  -- its Lua state closed, and with it its handle on the module
    local before = rss()
    local attachers = {}
    for i = 1, k do attachers[i] = skynet.newservice("share_service") end
    local results = all(attachers, "attach", pub.answers, pub.side)
    local grown = rss() - before
    local wrong, worst_attach = 0, 0
    for i, r in ipairs(results) do
      local fine = r[1] and r[2].version == 1 and r[2].walls_version == 1 and r[2].wrong == 0
      check.ok(fine, "attacher %d (it required soageo after the publisher exited) got version 1 and the publisher's %d answers%s",
        i, #pub.answers, r[1] and (r[2].first and (": first differing " .. r[2].first) or "") or (": " .. tostring(r[2])))
      if r[1] then
        wrong = wrong + r[2].wrong
        worst_attach = math.max(worst_attach, r[2].attach_ns or 0)
      end
    end
    check.ok(grown / k < 0.15 * pub.bytes, "the process grew by %.2f MB per attacher, less than 15%% of the layer's %.1f MB (%d attachers; attach of both names took at most %.1f us)",
      grown / k / 1e6, pub.bytes / 1e6, k, worst_attach / 1e3)
    -- Version 2, from another publisher; the first holders keep version 1.
    local second = skynet.newservice("share_service")
    local pub2 = skynet.call(second, "lua", "publish", 20000, 2000, 2)
    skynet.send(second, "lua", "exit")
    check.ok(pub2.layer_version == 2 and pub2.walls_version == 2, "a second publisher shared version 2")
    local again = all(attachers, "recheck", pub.answers, pub.side)
    local kept = true
    for _, r in ipairs(again) do
      kept = kept and r[1] and r[2].version == 1 and r[2].newest == 2 and r[2].wrong == 0
    end
    check.ok(kept, "the %d attachers still hold version 1 and answer as before while version 2 is the newest", k)
    local late = skynet.newservice("share_service")
    local r2 = skynet.call(late, "lua", "attach", pub2.answers, pub2.side)
    check.ok(r2.version == 2 and r2.wrong == 0, "a new attacher got version 2 and its publisher's answers%s",
      r2.first and (": first differing " .. r2.first) or "")
    local held = skynet.call(late, "lua", "shared")["share.layer"]
    check.ok(held.version == 2 and held.holders == 1, "soageo.shared() lists version 2 with 1 holder (%d)", held.holders)
    all(attachers, "close")
    skynet.call(late, "lua", "close")
    held = skynet.call(late, "lua", "shared")["share.layer"]
    check.ok(held.holders == 0, "every view closed: no holder left (%d)", held.holders)
  end)
end)
