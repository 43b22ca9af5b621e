-- Draws one tick of a scene as SVG: the walls, entities by faction, the skill shapes cast that
-- tick with their hits highlighted, and one watcher's view circle.
local doc = require "svg_doc"

local svg = {}

local colours = { cone = "#e6194b", nova = "#3cb44b", wall = "#4363d8", blade = "#f58231", trap = "#911eb4", arrow = "#008080" }

local fmt = doc.fmt

local function shape(c)
  local a, col = c.args, colours[c.skill.name]
  local style = string.format('fill="%s" fill-opacity="0.18" stroke="%s" stroke-width="1.5"', col, col)
  local name = c.skill.name
  if name == "cone" then
    local x, y, dx, dy, r, half = a[1], a[2], a[3], a[4], a[5], a[6]
    local h = math.atan(dy, dx)
    local x1, y1 = x + r * math.cos(h - half), y + r * math.sin(h - half)
    local x2, y2 = x + r * math.cos(h + half), y + r * math.sin(h + half)
    return string.format('<path d="M%s,%s L%s,%s A%s,%s 0 %d 1 %s,%s Z" %s/>', fmt(x), fmt(y), fmt(x1), fmt(y1),
      fmt(r), fmt(r), half > math.pi / 2 and 1 or 0, fmt(x2), fmt(y2), style)
  elseif name == "nova" then
    return string.format('<circle cx="%s" cy="%s" r="%s" %s/>', fmt(a[1]), fmt(a[2]), fmt(a[3]), style)
  elseif name == "wall" then
    return string.format('<rect x="%s" y="%s" width="%s" height="%s" %s/>', fmt(a[1]), fmt(a[2]), fmt(a[3] - a[1]), fmt(a[4] - a[2]), style)
  elseif name == "blade" then
    return string.format('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-opacity="0.35" stroke-width="%s" stroke-linecap="round"/>',
      fmt(a[1]), fmt(a[2]), fmt(a[3]), fmt(a[4]), col, fmt(2 * a[5]))
  elseif name == "trap" then
    return string.format('<polygon points="%s,%s %s,%s %s,%s" %s/>', fmt(a[1]), fmt(a[2]), fmt(a[3]), fmt(a[4]), fmt(a[5]), fmt(a[6]), style)
  end
  return string.format('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="2"/>', fmt(a[1]), fmt(a[2]), fmt(a[3]), fmt(a[4]), col)
end

-- world: a scene.World after a tick; path: output file; watcher: id whose view to draw
function svg.write(world, path, watcher)
  local size, layer = world.size, world.layer
  local hit_by = {}
  for _, c in ipairs(world.casts) do
    for _, id in ipairs(c.hits) do hit_by[id] = colours[c.skill.name] end
  end
  local parts = doc.open(size, size + 60, 900, 900)
  local wc = world.wall_coords or {}
  for i = 1, #wc, 4 do
    parts[#parts + 1] = string.format('<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333" stroke-width="4" stroke-linecap="round"/>',
      fmt(wc[i]), fmt(wc[i + 1]), fmt(wc[i + 2]), fmt(wc[i + 3]))
  end
  for id, x, y, r in layer:each() do
    local fill = world.faction[id] == 1 and "#1f77b4" or "#999999"
    parts[#parts + 1] = string.format('<circle cx="%s" cy="%s" r="%s" fill="%s"/>', fmt(x), fmt(y), fmt(math.max(r, 2.5)), fill)
  end
  for _, c in ipairs(world.casts) do parts[#parts + 1] = shape(c) end
  for id, col in pairs(hit_by) do
    local x, y = layer:get(id)
    if x then
      parts[#parts + 1] = string.format('<circle cx="%s" cy="%s" r="7" fill="none" stroke="%s" stroke-width="2.5"/>', fmt(x), fmt(y), col)
    end
  end
  if watcher and layer:get(watcher) then
    local x, y = layer:get(watcher)
    parts[#parts + 1] = string.format('<circle cx="%s" cy="%s" r="%s" fill="none" stroke="#000" stroke-dasharray="6,4" stroke-width="2"/>',
      fmt(x), fmt(y), fmt(world.view))
  end
  local lx = 10
  for _, s in ipairs({ "cone", "nova", "wall", "blade", "trap", "arrow" }) do
    parts[#parts + 1] = string.format('<rect x="%d" y="%d" width="24" height="24" fill="%s"/><text x="%d" y="%d" font-size="30" font-family="sans-serif">%s</text>',
      lx, size + 18, colours[s], lx + 30, size + 40, s)
    lx = lx + 180
  end
  parts[#parts + 1] = string.format('<text x="%d" y="%d" font-size="30" font-family="sans-serif">tick %d: walls black, players blue, monsters grey, hits ringed, dashed = a view circle</text>',
    10, size - 10, world.tick_no)
  doc.write(parts, path)
end

return svg
