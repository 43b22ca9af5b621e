-- Skills on a small scene: lua5.4 examples/skill_cone.lua (or `make demo`).
-- Casts four cones with in_sector (entity centres, strict) and touch_sector (entity disks,
-- closed), a charge with touch_rect (an oriented rectangle) and a shockwave with in_ring (a
-- donut), among walls: one cone keeps only what its caster sees (walls:visible) and an arrow
-- stops at the first wall (walls:cast). Prints the hits, and draws everything to
-- examples/out/skill_cone.svg.
package.path = "lualib/?.lua;" .. package.path
package.cpath = "./?.so;" .. package.cpath

local soageo = require "soageo"

local HERO, MONSTER = 1, 2            -- faction bits: an entity's mask
local W, H = 800, 500

-- A seeded scene: 300 entities, monsters with bigger radii.
local seed = 20261122
local function rand(lo, hi)
  seed = (seed * 48271) % 0x7fffffff
  return lo + (hi - lo) * (seed / 0x7fffffff)
end

local scene = soageo.layer(300)
for id = 1, 300 do
  local monster = rand(0, 1) < 0.7
  scene:set(id, rand(10, W - 10), rand(10, H - 10), monster and rand(3, 9) or 3, monster and MONSTER or HERO)
end

-- Walls: a few segments and a small room (a ring's outline), static geometry beside the layer.
local wall_coords = { 360, 290, 395, 255,   380, 180, 470, 200,   250, 330, 260, 420 }
soageo.outline({ 560, 260, 700, 260, 700, 380, 560, 380 }, wall_coords)
local walls = soageo.walls(wall_coords)

local skills = {
  { name = "spear thrust (narrow, in_sector)", query = "in_sector", colour = "#d62728",
    args = { 120, 120, 1, 0.4, 230, math.pi / 12 } },
  { name = "cleave (wide, touch_sector)", query = "touch_sector", colour = "#1f77b4",
    args = { 420, 380, 0, -1, 110, math.pi / 3 } },
  { name = "whirlwind (pac-man, touch_sector)", query = "touch_sector", colour = "#2ca02c",
    args = { 640, 150, -1, 0, 90, 3 * math.pi / 4 } },
  { name = "holy cone (monsters in sight, walls:visible)", query = "in_sector", colour = "#9467bd",
    args = { 300, 250, 1, 1, 160, math.pi / 5 }, mask = MONSTER, sight = true },
  { name = "charge (oriented rectangle, touch_rect)", query = "touch_rect", colour = "#ff7f0e",
    args = { 520, 460, 2, -1, 230, 18 } },
  { name = "shockwave (ring, in_ring)", query = "in_ring", colour = "#8c564b",
    args = { 170, 390, 45, 85 } },
}

local out = {}                          -- one table reused by every cast
local hit_colour = {}
print(string.format("soageo %s, SIMD target %s, %d entities", soageo._VERSION, soageo.arch(), #scene))
for _, s in ipairs(skills) do
  local a = s.args
  local call = { table.unpack(a) }
  call[#a + 1], call[#a + 2] = out, s.mask
  local _, n = scene[s.query](scene, table.unpack(call, 1, #a + 2))
  if s.sight then _, n = walls:visible(a[1], a[2], scene, out, n, out) end  -- behind a wall: not hit
  s.hits = {}
  for i = 1, n do
    s.hits[i] = out[i]
    hit_colour[out[i]] = s.colour
  end
  table.sort(s.hits)
  print(string.format("%-44s %3d hits: %s", s.name, n, table.concat(s.hits, " ")))
end

-- An arrow from (40, 470) towards (780, 60): it flies until the first wall.
local arrow = { 40, 470, 780, 60 }
local t, wall = walls:cast(table.unpack(arrow))
arrow.t = t or 1
print(string.format("%-44s stops at t = %.3f on wall %s", "arrow (walls:cast)", arrow.t, tostring(wall)))

-- The picture.
local function sector_path(x, y, dx, dy, r, half)
  local h = math.atan(dy, dx)
  if half >= math.pi then
    return string.format('M%.1f,%.1f m-%.1f,0 a%.1f,%.1f 0 1 0 %.1f,0 a%.1f,%.1f 0 1 0 -%.1f,0', x, y, r, r, r, 2 * r, r, r, 2 * r)
  end
  local x1, y1 = x + r * math.cos(h - half), y + r * math.sin(h - half)
  local x2, y2 = x + r * math.cos(h + half), y + r * math.sin(h + half)
  return string.format("M%.1f,%.1f L%.1f,%.1f A%.1f,%.1f 0 %d 1 %.1f,%.1f Z", x, y, x1, y1, r, r, half > math.pi / 2 and 1 or 0, x2, y2)
end

-- The rectangle's corners: from (x, y) along the unit direction d, half_width along n = (-d.y, d.x).
local function rect_path(x, y, dx, dy, length, hw)
  local len = math.sqrt(dx * dx + dy * dy)
  local ux, uy = dx / len, dy / len
  local nx, ny = -uy, ux
  return string.format("M%.1f,%.1f L%.1f,%.1f L%.1f,%.1f L%.1f,%.1f Z", x + hw * nx, y + hw * ny,
    x + length * ux + hw * nx, y + length * uy + hw * ny, x + length * ux - hw * nx, y + length * uy - hw * ny,
    x - hw * nx, y - hw * ny)
end

-- Two circles drawn with the even-odd rule leave the hole empty.
local function ring_path(x, y, inner, outer)
  local circle = function(r)
    return string.format("M%.1f,%.1f m-%.1f,0 a%.1f,%.1f 0 1 0 %.1f,0 a%.1f,%.1f 0 1 0 -%.1f,0 ", x, y, r, r, r, 2 * r, r, r, 2 * r)
  end
  return circle(outer) .. circle(inner)
end

local paths = { in_sector = sector_path, touch_sector = sector_path, touch_rect = rect_path, in_ring = ring_path }

local svg = {
  string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif">', W, H + 135, W, H + 135),
  string.format('<rect width="%d" height="%d" fill="#fcfcf7" stroke="#ccc"/>', W, H),
}
for _, s in ipairs(skills) do
  svg[#svg + 1] = string.format('<path d="%s" fill="%s" fill-opacity="0.15" fill-rule="evenodd" stroke="%s" stroke-width="1.5"/>', paths[s.query](table.unpack(s.args)), s.colour, s.colour)
end
for i = 1, #wall_coords, 4 do
  svg[#svg + 1] = string.format('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#222" stroke-width="5" stroke-linecap="round"/>',
    wall_coords[i], wall_coords[i + 1], wall_coords[i + 2], wall_coords[i + 3])
end
local ax, ay = arrow[1] + arrow.t * (arrow[3] - arrow[1]), arrow[2] + arrow.t * (arrow[4] - arrow[2])
svg[#svg + 1] = string.format('<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#17becf" stroke-width="3"/><circle cx="%.1f" cy="%.1f" r="6" fill="#17becf"/>',
  arrow[1], arrow[2], ax, ay, ax, ay)
for id, x, y, r, mask in scene:each() do
  local col = hit_colour[id]
  local fill = col or (mask == HERO and "#444" or "#bbb")
  svg[#svg + 1] = string.format('<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"%s/>', x, y, r, fill,
    col and ' stroke="#000" stroke-width="1"' or "")
end
for i, s in ipairs(skills) do
  local y = H + 8 + 20 * i
  svg[#svg + 1] = string.format('<rect x="10" y="%d" width="14" height="14" fill="%s"/><text x="30" y="%d" font-size="13">%s: %d hits</text>', y - 12, s.colour, y, s.name, #s.hits)
end
svg[#svg + 1] = string.format('<text x="420" y="%d" font-size="13">dark: heroes, light: monsters, coloured: hit</text>', H + 28)
svg[#svg + 1] = string.format('<text x="420" y="%d" font-size="13">black: walls; cyan: an arrow stopped by the first wall</text>', H + 48)
svg[#svg + 1] = "</svg>"
os.execute("mkdir -p examples/out")
local f = assert(io.open("examples/out/skill_cone.svg", "w"))
f:write(table.concat(svg, "\n"), "\n")
f:close()
print("wrote examples/out/skill_cone.svg")
