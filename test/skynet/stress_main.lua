-- The stress: args.services services (8) on the config's 8 worker threads, each running
-- random operations on its own layer for args.seconds (10) and comparing every answer with the
-- plain-Lua reference (test/stress_world.lua); prints the checked operations per second.
local skynet = require "skynet"
local check = require "check"

-- CPU seconds this skynet process used (all its threads), from /proc/self/stat (utime and stime,
-- fields 14 and 15, in USER_HZ = 100 ticks per second); nil off Linux.
local function cpu_seconds()
  local f = io.open("/proc/self/stat")
  if not f then return nil end
  local stat = f:read("a")
  f:close()
  local fields = {}
  for v in stat:match("%) (.*)"):gmatch("%S+") do fields[#fields + 1] = v end
  return (tonumber(fields[12]) + tonumber(fields[13])) / 100
end

skynet.start(function()
  check.run("stress", function()
    local args = check.args()
    local services, seconds = tonumber(args.services), tonumber(args.seconds)
    local results, done, me = {}, 0, coroutine.running()
    local start, cpu_start = skynet.now(), cpu_seconds()
    for i = 1, services do
      local s = skynet.newservice("stress_worker")
      skynet.fork(function()
        results[i] = table.pack(pcall(skynet.call, s, "lua", 1000 + i, seconds))
        done = done + 1
        if done == services then skynet.wakeup(me) end
      end)
    end
    skynet.wait(me)
    local wall = (skynet.now() - start) / 100
    local cpu = cpu_start and cpu_seconds() - cpu_start
    local ops, wrong, kinds, min_secs = 0, 0, {}, math.huge
    for i = 1, services do
      local r = results[i]
      if check.ok(r[1], "stress service %d answered%s", i, r[1] and "" or (": " .. tostring(r[2]))) then
        local n, mismatches, first, k, secs, size = table.unpack(r, 2, r.n)
        ops, wrong, min_secs = ops + n, wrong + mismatches, math.min(min_secs, secs)
        for name, c in pairs(k) do kinds[name] = (kinds[name] or 0) + c end
        check.ok(mismatches == 0, "stress service %d: %d operations in %.1f s, %d answers differ from the reference%s (layer of %d)",
          i, n, secs, mismatches, first and (", first: " .. first) or "", size)
      end
    end
    local names = {}
    for name in pairs(kinds) do names[#names + 1] = name end
    table.sort(names)
    local list = {}
    for _, name in ipairs(names) do list[#list + 1] = name .. "=" .. kinds[name] end
    local stress = require "stress_world"
    local missing = {}
    for _, k in ipairs(stress.KINDS) do
      if not kinds[k.name] then missing[#missing + 1] = k.name end
      if not kinds[k.name .. "_batch"] then missing[#missing + 1] = k.name .. "_batch" end
    end
    for _, name in ipairs(stress.OTHER_KINDS) do if not kinds[name] then missing[#missing + 1] = name end end
    check.ok(#missing == 0, "every kind of operation ran (missing: %s): %s", table.concat(missing, " "), table.concat(list, " "))
    check.ok(min_secs >= seconds, "every service ran for at least %d s (shortest %.1f s)", seconds, min_secs)
    skynet.error(string.format("STRESS %d services on 8 worker threads for %.1f s: %d checked operations, %.0f operations per second"
      .. " (%.1f CPU seconds: %.0f per CPU second), %d wrong answers", services, wall, ops, ops / wall, cpu or 0, ops / (cpu or wall), wrong))
  end)
end)
