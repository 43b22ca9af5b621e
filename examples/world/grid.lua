-- The world's partition: a grid of cols x rows regions over the square [0, size)^2. Region i
-- owns the entities whose centre lies in its half-open rectangle [x0, x1) x [y0, y1); the last
-- column and row also own anything at or beyond the far edge, so every finite position has
-- exactly one owner.
local grid = {}
grid.__index = grid

local floor = math.floor

function grid.new(size, cols, rows)
  assert(cols >= 1 and rows >= 1 and size > 0, "grid: bad size or shape")
  return setmetatable({ size = size, cols = cols, rows = rows, cw = size / cols, ch = size / rows, count = cols * rows }, grid)
end

local function clamp_index(v, n)
  if v < 0 then return 0 end
  if v >= n then return n - 1 end
  return v
end

-- Region index (1-based, row-major) owning the point (x, y).
function grid:region_of(x, y)
  local c = clamp_index(floor(x / self.cw), self.cols)
  local r = clamp_index(floor(y / self.ch), self.rows)
  return r * self.cols + c + 1
end

function grid:rect(i)
  local c, r = (i - 1) % self.cols, (i - 1) // self.cols
  return c * self.cw, r * self.ch, (c + 1) * self.cw, (r + 1) * self.ch
end

-- The up to 8 regions around region i.
function grid:neighbours(i)
  local c, r = (i - 1) % self.cols, (i - 1) // self.cols
  local out = {}
  for dr = -1, 1 do
    for dc = -1, 1 do
      local cc, rr = c + dc, r + dr
      if (dc ~= 0 or dr ~= 0) and cc >= 0 and cc < self.cols and rr >= 0 and rr < self.rows then
        out[#out + 1] = rr * self.cols + cc + 1
      end
    end
  end
  return out
end

-- The box holding every point within `border` of what region i owns: an edge region owns
-- everything beyond its edge too (region_of clamps), so on that side its box has no end.
local FAR = 3e38  -- beyond any float32 coordinate but finite, as the layer's queries want
function grid:expanded(i, border)
  local x0, y0, x1, y1 = self:rect(i)
  local c, r = (i - 1) % self.cols, (i - 1) // self.cols
  return c == 0 and -FAR or x0 - border, r == 0 and -FAR or y0 - border,
    c == self.cols - 1 and FAR or x1 + border, r == self.rows - 1 and FAR or y1 + border
end

return grid
