-- A world larger than one service, on plain Lua (one Lua state):
--   lua5.4 examples/world_sim.lua [entities [ticks [cols [rows]]]]
-- The same seeded scene runs on one layer and on cols x rows regions (examples/world/), tick by
-- tick side by side; prints the median tick of each, the ghost traffic (strip snapshot bytes
-- and the time spent dropping, taking and merging ghosts), checks that both give the same
-- events and hits at every tick, and writes examples/out/world.svg. One walls object (the
-- rules' seeded walls) serves both: a cast hits only what its caster sees.
package.path = "lualib/?.lua;examples/?.lua;examples/?/init.lua;" .. package.path
package.cpath = "./?.so;" .. package.cpath

local world = require "world"
local svg = require "world.svg"

local entities = tonumber(arg[1]) or 100000
local ticks = tonumber(arg[2]) or 20
local cols, rows = tonumber(arg[3]) or 2, tonumber(arg[4]) or 2
local function whole(v, min) return math.type(v) == "integer" and v >= min end
if not (whole(entities, 1) and whole(ticks, 1) and whole(cols, 1) and whole(rows, 1)) then
  io.stderr:write("usage: lua5.4 examples/world_sim.lua [entities >= 1 [ticks >= 1 [cols >= 1 [rows >= 1]]]]\n")
  os.exit(2)
end
local opts, churn = world.bench_rules(entities, cols, rows)
local size = opts.size
local rules = world.rules.new(opts)
local script_one, script_many = rules:script(entities, churn), rules:script(entities, churn)
local one = world.single.new(rules, entities)
local many = world.regions(rules, cols, rows)
local walls <close> = require("soageo").walls(rules:wall_coords())
one:use_walls(walls)
many:use_walls(walls)
local same, median = world.same_pairs, world.median

local function loadavg()
  local f = io.open("/proc/loadavg")
  local s = f and f:read("l")
  if f then f:close() end
  return s and s:match("^(%S+ %S+ %S+)") or "unknown"
end
print("world: load average at start: " .. loadavg())
print(string.format("world: %d entities in %dx%d, %dx%d regions, border %g (view %d + margin %d; skill reach %d), SIMD target %s, %s",
  entities, size, size, cols, rows, rules:min_border(), rules.view, rules.margin, rules.reach, require("soageo").arch(), _VERSION))
local clock = os.clock
local t_one, t_many, bytes, ghost_ms, ghosts, migrants, events = {}, {}, {}, {}, {}, {}, 0
local equal = true
for t = 0, ticks + 1 do  -- ticks 0 (everyone joins) and 1 are warm-up, untimed
  local j1, l1 = script_one(t)
  local j2, l2 = script_many(t)
  local c0 = clock()
  local e1, v1, ne1, nl1, h1, nh1 = one:tick(j1, l1)
  local c1 = clock()
  local e2, v2, ne2, nl2, h2, nh2, b = many:tick(j2, l2)
  local c2 = clock()
  equal = equal and same(e1, ne1, e2, ne2) and same(v1, nl1, v2, nl2) and same(h1, nh1, h2, nh2)
  if t >= 2 then
    t_one[#t_one + 1], t_many[#t_many + 1], bytes[#bytes + 1] = (c1 - c0) * 1000, (c2 - c1) * 1000, b
    local gs, ng, nm = 0, 0, 0
    for _, r in ipairs(many.list) do gs, ng, nm = gs + r.stats.ghost_s, ng + r.stats.ghosts, nm + r.stats.migrants end
    ghost_ms[#ghost_ms + 1], ghosts[#ghosts + 1], migrants[#migrants + 1] = gs * 1000, ng, nm
    events = events + ne1 + nl1
  end
  io.stderr:write(string.format("\rtick %d/%d", t, ticks + 1))
end
io.stderr:write("\r")
local m1, m2 = median(t_one), median(t_many)
print(string.format("one layer:     median tick %.1f ms -> %.1f ticks/s", m1, 1000 / m1))
print(string.format("%d regions in one Lua state (one after another): median tick %.1f ms -> %.1f ticks/s (%.2fx the one layer's time)",
  cols * rows, m2, 1000 / m2, m2 / m1))
print(string.format("ghost traffic per tick (medians): %d ghosts, %d bytes of strip snapshots, %.2f ms dropping + taking + merging them (%.1f%% of the regions' tick); %d migrations",
  median(ghosts), median(bytes), median(ghost_ms), 100 * median(ghost_ms) / m2, median(migrants)))
print(string.format("walls: %d segments removed %d hits (the regions: %d)", #walls, one.walled, many:walled()))
equal = equal and one.walled == many:walled()
print(string.format("%d timed ticks, %d AOI events; regions equal to one layer at every tick (events, hits): %s",
  #t_one, events, equal and "yes" or "NO"))
print("world: load average at end: " .. loadavg())
os.execute("mkdir -p examples/out")
local side = math.min(size / 4, 500)
svg.write(many, "examples/out/world.svg", size / cols - side / 2, size / rows - side / 2, side)
print("wrote examples/out/world.svg")
if not equal then os.exit(1) end
