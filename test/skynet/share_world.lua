-- What the share case's services agree on (test/skynet/share_main.lua): the world a publisher
-- builds from a seed, and the answers it and the attachers compute, as strings, from a layer
-- (or a view of one) and walls (or a view).
local soageo = require "soageo"
local rng = require "rng"

local M = {}

-- n entities and w walls in a square of side sqrt(n) * 10.
function M.build(n, w, seed)
  local side = math.sqrt(n) * 10
  local r = rng.new(seed)
  local layer = soageo.layer(n)
  for id = 1, n do layer:set(id, r:uniform(0, side), r:uniform(0, side), r:uniform(0, 2), r:int(1, 3)) end
  local coords = {}
  for i = 1, w do
    local x, y = r:uniform(0, side), r:uniform(0, side)
    coords[4 * i - 3], coords[4 * i - 2] = x, y
    coords[4 * i - 1], coords[4 * i] = x + r:uniform(-20, 20), y + r:uniform(-20, 20)
  end
  return layer, soageo.walls(coords), side
end

-- 300 answers: boxes, circles, nearest, first hits, walls blocked and cast, who is visible.
function M.answers(layer, walls, side)
  local r = rng.new(99)
  local out, list = {}, {}
  for _ = 1, 50 do
    local x, y = r:uniform(0, side - 60), r:uniform(0, side - 60)
    local _, k = layer:touch_box(x, y, x + 40, y + 40, out)
    list[#list + 1] = "box " .. table.concat(out, ",", 1, k)
    local seen
    _, seen = walls:visible(x + 20, y + 20, layer, out, k, {})
    list[#list + 1] = "visible " .. seen
    _, k = layer:in_circle(x, y, 25, out)
    list[#list + 1] = "circle " .. table.concat(out, ",", 1, k)
    _, k = layer:nearest(x, y, 5, nil, out)
    list[#list + 1] = "nearest " .. table.concat(out, ",", 1, k)
    list[#list + 1] = "first " .. table.concat({ tostring(layer:cast_segment_first(x, y, x + 300, y + 120)) }, ",")
    list[#list + 1] = ("walls %s %s"):format(tostring(walls:blocked(x, y, x + 200, y + 50)),
      table.concat({ tostring(walls:cast(x, y, x + 200, y + 50)) }, ","))
  end
  list[#list + 1] = "count " .. #layer .. " " .. #walls
  return list
end

-- How many of `got` differ from `want`, and the first that does.
function M.compare(want, got)
  local wrong, first = 0, nil
  for i = 1, math.max(#want, #got) do
    if want[i] ~= got[i] then
      wrong = wrong + 1
      first = first or ("%d: %s / %s"):format(i, tostring(want[i]), tostring(got[i]))
    end
  end
  return wrong, first
end

return M
