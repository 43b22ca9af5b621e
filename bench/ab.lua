-- A/B of two builds of the module on one workload (bench/ab_work.lua): runs the workload with
-- build A, then B, then A... `rounds` times each, alternating so that drift in the machine's
-- load falls on both, and prints per call the median over rounds of each and the ratio B/A.
-- Usage (from the repository root): lua5.4 bench/ab.lua DIR_A DIR_B [rounds]
-- where each DIR holds a soageo/core.so: `make` in a checkout of each revision (e.g. a
-- `git worktree add --detach ../old <rev>`), then copy its soageo/core.so into DIR/soageo/.
local dir_a, dir_b, rounds = arg[1], arg[2], tonumber(arg[3] or "3")
assert(dir_a and dir_b, "usage: lua5.4 bench/ab.lua DIR_A DIR_B [rounds]")
local lua = os.getenv("LUA") or "lua5.4"

local times, order = { {}, {} }, {}
for _ = 1, rounds do
  for side, dir in ipairs { dir_a, dir_b } do
    local cmd = string.format("LUA_CPATH='%s/?.so' %s bench/ab_work.lua", dir, lua)
    local p = assert(io.popen(cmd))
    for line in p:lines() do
      local name, t = line:match("^(%S+) (%S+)$")
      if name then
        if not times[side][name] then
          times[side][name] = {}
          if side == 1 then order[#order + 1] = name end
        end
        table.insert(times[side][name], tonumber(t))
      end
    end
    assert(p:close(), "the workload failed with " .. dir)
  end
end

local function median(t)
  table.sort(t)
  return t[(#t + 1) // 2]
end
print(string.format("%-28s %12s %12s %7s   (median of %d alternating runs each)", "call", "A us", "B us", "B/A", rounds))
for _, name in ipairs(order) do
  local a, b = median(times[1][name]), median(times[2][name] or { 0 / 0 })
  print(string.format("%-28s %12.2f %12.2f %7.3f", name, a * 1e6, b * 1e6, b / a))
end
