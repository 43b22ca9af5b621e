-- Pure-Lua references of the shape queries, repeating the kernels' float32 steps (see
-- csrc/core/kernel_shapes.inl) so results must match exactly. The triangle test is exact
-- rational arithmetic instead (the kernel's answer is exact, whatever path it takes).
local f32 = require("float32").f32

local ref = {}

local function sq(v) return f32(v * v) end
local function vmax(a, b) return a > b and a or b end   -- x86 maxps: second operand on NaN
local function vmin(a, b) return a < b and a or b end

function ref.in_circle(cx, cy, radius, px, py)
  cx, cy, radius = f32(cx), f32(cy), f32(radius)
  return f32(sq(f32(px - cx)) + sq(f32(py - cy))) < f32(radius * radius)
end

function ref.touch_circle(cx, cy, radius, px, py, r)
  cx, cy, radius = f32(cx), f32(cy), f32(radius)
  local reach = f32(radius + r)
  return f32(sq(f32(px - cx)) + sq(f32(py - cy))) <= f32(reach * reach)
end

function ref.in_box(minx, miny, maxx, maxy, px, py)
  minx, miny, maxx, maxy = f32(minx), f32(miny), f32(maxx), f32(maxy)
  return px >= minx and px <= maxx and py >= miny and py <= maxy
end

function ref.touch_box(minx, miny, maxx, maxy, px, py, r)
  minx, miny, maxx, maxy = f32(minx), f32(miny), f32(maxx), f32(maxy)
  local ex = vmax(vmax(f32(minx - px), f32(px - maxx)), 0.0)
  local ey = vmax(vmax(f32(miny - py), f32(py - maxy)), 0.0)
  return f32(sq(ex) + sq(ey)) <= f32(r * r)
end

local function segment_distance2(ax, ay, dx, dy, len2)
  local t = f32(f32(f32(ax * dx) + f32(ay * dy)) / len2)
  t = vmin(vmax(t, 0.0), 1.0)
  return f32(sq(f32(ax - f32(t * dx))) + sq(f32(ay - f32(t * dy))))
end

function ref.touch_capsule(x0, y0, x1, y1, radius, px, py, r)
  x0, y0, x1, y1, radius = f32(x0), f32(y0), f32(x1), f32(y1), f32(radius)
  local dx, dy = f32(x1 - x0), f32(y1 - y0)
  local len2 = f32(sq(dx) + sq(dy))
  if len2 == 0 then return ref.touch_circle(x0, y0, radius, px, py, r) end
  local reach = f32(radius + r)
  return segment_distance2(f32(px - x0), f32(py - y0), dx, dy, len2) <= f32(reach * reach)
end

-- Exact orientation sign with Lua integers: the specs' triangle scenes put every coordinate on a
-- 2^-10 grid within +-2^20 (exact float32 values), so 2^10 * coordinate is an integer below 2^31
-- and the determinant fits in a 64-bit integer.
local function fixed(v)
  local s = v * 1024
  assert(s == math.floor(s) and math.abs(s) < 2 ^ 31, "reference needs coordinates on a 2^-10 grid")
  return math.tointeger(s)
end

function ref.orient(ax, ay, bx, by, px, py)
  ax, ay, bx, by, px, py = fixed(ax), fixed(ay), fixed(bx), fixed(by), fixed(px), fixed(py)
  local d = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
  return d > 0 and 1 or (d < 0 and -1 or 0)
end

function ref.in_triangle(ax, ay, bx, by, cx, cy, px, py)
  ax, ay, bx, by, cx, cy = f32(ax), f32(ay), f32(bx), f32(by), f32(cx), f32(cy)
  local o1 = ref.orient(ax, ay, bx, by, px, py)
  local o2 = ref.orient(bx, by, cx, cy, px, py)
  local o3 = ref.orient(cx, cy, ax, ay, px, py)
  local neg = o1 < 0 or o2 < 0 or o3 < 0
  local pos = o1 > 0 or o2 > 0 or o3 > 0
  if neg and pos then return false end
  if neg or pos then return true end
  return px >= math.min(ax, bx, cx) and px <= math.max(ax, bx, cx)
     and py >= math.min(ay, by, cy) and py <= math.max(ay, by, cy)
end

function ref.touch_triangle(ax, ay, bx, by, cx, cy, px, py, r)
  if ref.in_triangle(ax, ay, bx, by, cx, cy, px, py) then return true end
  local vx, vy = { f32(ax), f32(bx), f32(cx) }, { f32(ay), f32(by), f32(cy) }
  local r2 = f32(r * r)
  for k = 1, 3 do
    local n = k % 3 + 1
    local dx, dy = f32(vx[n] - vx[k]), f32(vy[n] - vy[k])
    local len2 = f32(sq(dx) + sq(dy))
    local d2
    if len2 == 0 then d2 = f32(sq(f32(px - vx[k])) + sq(f32(py - vy[k])))  -- NaN t clamps to 0
    else d2 = segment_distance2(f32(px - vx[k]), f32(py - vy[k]), dx, dy, len2) end
    if d2 <= r2 then return true end
  end
  return false
end

-- Entry t of a segment cast into the box (centre +- r), or nil when it misses.
function ref.cast(x0, y0, x1, y1, px, py, r)
  x0, y0, x1, y1 = f32(x0), f32(y0), f32(x1), f32(y1)
  local dx, dy = f32(x1 - x0), f32(y1 - y0)
  local lox, hix, loy, hiy = f32(px - r), f32(px + r), f32(py - r), f32(py + r)
  local tnear, tfar = 0.0, 1.0
  if dx ~= 0 then
    local t1, t2 = f32(f32(lox - x0) / dx), f32(f32(hix - x0) / dx)
    tnear, tfar = vmax(vmin(t1, t2), tnear), vmin(vmax(t1, t2), tfar)
  elseif not (x0 >= lox and x0 <= hix) then
    return nil
  end
  if dy ~= 0 then
    local t1, t2 = f32(f32(loy - y0) / dy), f32(f32(hiy - y0) / dy)
    tnear, tfar = vmax(vmin(t1, t2), tnear), vmin(vmax(t1, t2), tfar)
  elseif not (y0 >= loy and y0 <= hiy) then
    return nil
  end
  if tnear <= tfar then return tnear end
  return nil
end

return ref
