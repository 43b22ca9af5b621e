-- Baseline: the spatial hash a Lua game server writes by hand. Square cells of `cell` units
-- (64 in the benchmarks), one Lua table per occupied cell holding the ids whose rectangle
-- (centre +- r) overlaps it; a query walks the cells its bounding box covers, skips ids
-- already seen (an entity spans several cells), and tests each candidate in Lua.
local floor = math.floor

local grid = {}
grid.__index = grid

function grid.new(cell)
  return setmetatable({ cell = cell, cells = {}, xs = {}, ys = {}, rs = {}, seen = {}, stamp = 0 }, grid)
end

local function key(cx, cy) return cx * 0x1000000 + cy end

function grid:insert(id, x, y, r)
  self.xs[id], self.ys[id], self.rs[id] = x, y, r
  local c, cells = self.cell, self.cells
  for cy = floor((y - r) / c), floor((y + r) / c) do
    for cx = floor((x - r) / c), floor((x + r) / c) do
      local k = key(cx, cy)
      local list = cells[k]
      if not list then list = {}; cells[k] = list end
      list[#list + 1] = id
    end
  end
end

function grid:remove(id)
  local x, y, r = self.xs[id], self.ys[id], self.rs[id]
  local c, cells = self.cell, self.cells
  for cy = floor((y - r) / c), floor((y + r) / c) do
    for cx = floor((x - r) / c), floor((x + r) / c) do
      local list = cells[key(cx, cy)]
      for i = 1, #list do
        if list[i] == id then list[i] = list[#list]; list[#list] = nil; break end
      end
    end
  end
end

function grid:move(id, x, y)
  local r = self.rs[id]
  self:remove(id)
  self:insert(id, x, y, r)
end

-- Calls test(id, x, y, r) for every candidate in the box once; collects the ids it accepts.
local function visit(self, out, minx, miny, maxx, maxy, test)
  local c, cells, seen = self.cell, self.cells, self.seen
  local stamp = self.stamp + 1
  self.stamp = stamp
  local xs, ys, rs, k = self.xs, self.ys, self.rs, 0
  for cy = floor(miny / c), floor(maxy / c) do
    for cx = floor(minx / c), floor(maxx / c) do
      local list = cells[key(cx, cy)]
      if list then
        for i = 1, #list do
          local id = list[i]
          if seen[id] ~= stamp then
            seen[id] = stamp
            if test(xs[id], ys[id], rs[id]) then k = k + 1; out[k] = id end
          end
        end
      end
    end
  end
  for i = k + 1, #out do out[i] = nil end
  return out, k
end

function grid:touch_box(out, minx, miny, maxx, maxy)
  return visit(self, out, minx, miny, maxx, maxy, function(x, y, r)
    local ex = x < minx and minx - x or (x > maxx and x - maxx or 0)
    local ey = y < miny and miny - y or (y > maxy and y - maxy or 0)
    return ex * ex + ey * ey <= r * r
  end)
end

function grid:touch_circle(out, cx, cy, radius)
  return visit(self, out, cx - radius, cy - radius, cx + radius, cy + radius, function(x, y, r)
    local dx, dy, reach = x - cx, y - cy, radius + r
    return dx * dx + dy * dy <= reach * reach
  end)
end

-- Centre strictly inside a convex sector (half_angle <= pi/2) of unit direction (ux, uy).
function grid:in_sector(out, cx, cy, ux, uy, radius, half_angle)
  local cos_h, r2 = math.cos(half_angle), radius * radius
  return visit(self, out, cx - radius, cy - radius, cx + radius, cy + radius, function(x, y)
    local dx, dy = x - cx, y - cy
    local d2 = dx * dx + dy * dy
    if d2 >= r2 or d2 == 0 then return false end
    local dot = dx * ux + dy * uy
    return dot > 0 and dot * dot > cos_h * cos_h * d2
  end)
end

function grid:touch_capsule(out, x0, y0, x1, y1, radius)
  local dx, dy = x1 - x0, y1 - y0
  local len2 = dx * dx + dy * dy
  return visit(self, out, math.min(x0, x1) - radius, math.min(y0, y1) - radius, math.max(x0, x1) + radius,
    math.max(y0, y1) + radius, function(x, y, r)
      local ax, ay = x - x0, y - y0
      local t = (ax * dx + ay * dy) / len2
      t = t < 0 and 0 or (t > 1 and 1 or t)
      local ex, ey, reach = ax - t * dx, ay - t * dy, radius + r
      return ex * ex + ey * ey <= reach * reach
    end)
end

function grid:in_triangle(out, ax, ay, bx, by, cx, cy)
  return visit(self, out, math.min(ax, bx, cx), math.min(ay, by, cy), math.max(ax, bx, cx), math.max(ay, by, cy),
    function(x, y)
      local d1 = (bx - ax) * (y - ay) - (by - ay) * (x - ax)
      local d2 = (cx - bx) * (y - by) - (cy - by) * (x - bx)
      local d3 = (ax - cx) * (y - cy) - (ay - cy) * (x - cx)
      return not ((d1 < 0 or d2 < 0 or d3 < 0) and (d1 > 0 or d2 > 0 or d3 > 0))
    end)
end

return grid
