-- Draws a window of a region world as SVG: each region's rectangle and its border (the box its
-- neighbours mirror from), owned entities filled in their region's colour, and each ghost as a
-- ring in the colour of the region that holds the copy (an entity near a corner is mirrored
-- into up to three neighbours: up to three rings).
local doc = require "svg_doc"
local region_mod = require "world.region"

local svg = {}

local colours = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22" }

local fmt = doc.fmt

-- many: world.regions(...); path: output file; x0, y0, side: the window in world units
function svg.write(many, path, x0, y0, side)
  local scale = 900 / side
  local function X(x) return fmt((x - x0) * scale) end
  local function Y(y) return fmt((y - y0) * scale) end
  local parts = doc.open(900, 960, 900, 960)
  parts[#parts + 1] = '<clipPath id="w"><rect width="900" height="900"/></clipPath><g clip-path="url(#w)">'
  local grid, border = many.grid, many.border
  for i = 1, grid.count do
    local col = colours[(i - 1) % #colours + 1]
    local a, b, c, d = grid:rect(i)
    parts[#parts + 1] = string.format('<rect x="%s" y="%s" width="%s" height="%s" fill="%s" fill-opacity="0.05" stroke="%s" stroke-width="2"/>',
      X(a), Y(b), fmt((c - a) * scale), fmt((d - b) * scale), col, col)
    a, b, c, d = grid:expanded(i, border)
    parts[#parts + 1] = string.format('<rect x="%s" y="%s" width="%s" height="%s" fill="none" stroke="%s" stroke-dasharray="8,5" stroke-width="1.2"/>',
      X(a), Y(b), fmt((c - a) * scale), fmt((d - b) * scale), col)
  end
  local rings = {}
  for i, r in ipairs(many.list) do
    local col = colours[(i - 1) % #colours + 1]
    for id, x, y, rad, mask in r.layer:each() do
      if x >= x0 - 10 and x <= x0 + side + 10 and y >= y0 - 10 and y <= y0 + side + 10 then
        if mask & region_mod.OWNED ~= 0 then
          parts[#parts + 1] = string.format('<circle cx="%s" cy="%s" r="%s" fill="%s"/>', X(x), Y(y), fmt(math.max(rad * scale, 2.5)), col)
        else
          local k = (rings[id] or 0) + 1
          rings[id] = k
          parts[#parts + 1] = string.format('<circle cx="%s" cy="%s" r="%s" fill="none" stroke="%s" stroke-width="1.3"/>',
            X(x), Y(y), fmt(math.max(rad * scale, 2.5) + 2 + 2.2 * k), col)
        end
      end
    end
  end
  parts[#parts + 1] = "</g>"
  parts[#parts + 1] = string.format('<text x="10" y="925" font-family="sans-serif" font-size="15">%s</text>',
    string.format("regions (solid), border %g (dashed: what neighbours mirror), owned entities (dots), ghosts (rings in the colour of the region holding the copy)", border))
  parts[#parts + 1] = string.format('<text x="10" y="948" font-family="sans-serif" font-size="15">window %gx%g at (%g, %g) of a %gx%g world, %d regions, tick %d</text>',
    side, side, x0, y0, grid.size, grid.size, grid.count, many.tick_no)
  doc.write(parts, path)
end

return svg
