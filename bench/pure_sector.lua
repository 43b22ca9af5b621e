-- The baseline: what a Lua programmer writes for "who is in this cone" over plain arrays.
-- The point-in-sector write-up's v2 idea (no sqrt): inside when |D|^2 < r^2 and D.U > |D| cos(theta), squared
-- with the sign handled. Convex cones only (half_angle <= pi/2), as game code usually does.
local cos, sqrt = math.cos, math.sqrt

local pure = {}

-- xs, ys: arrays of n coordinates; ids: their ids; out: reused result table. Returns out, n.
function pure.in_sector(xs, ys, ids, n, x, y, dx, dy, radius, half, out)
  local len = sqrt(dx * dx + dy * dy)
  local ux, uy = dx / len, dy / len
  local r2, c = radius * radius, cos(half)
  local c2 = c * c
  local k = 0
  for i = 1, n do
    local px, py = xs[i] - x, ys[i] - y
    local d2 = px * px + py * py
    if d2 < r2 then
      local dot = px * ux + py * uy
      if dot > 0 and dot * dot > d2 * c2 then
        k = k + 1
        out[k] = ids[i]
      end
    end
  end
  for i = k + 1, #out do out[i] = nil end
  return out, k
end

return pure
