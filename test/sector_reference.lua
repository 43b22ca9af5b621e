-- Pure-Lua reference of the sector queries, repeating the kernels' float32 arithmetic step by
-- step (see csrc/core/sector.cpp and kernel_sector.inl), so results must match exactly.
local f32 = require("float32").f32
local abs, sqrt, cos, sin, pi = math.abs, math.sqrt, math.cos, math.sin, math.pi

local ref = {}

function ref.sector(x, y, dx, dy, radius, half)
  local m = abs(dx) > abs(dy) and abs(dx) or abs(dy)
  local sx, sy = dx / m, dy / m
  local len = sqrt(sx * sx + sy * sy)
  local ux, uy = sx / len, sy / len
  local c, s = cos(half), sin(half)
  if abs(c) < 2 ^ -40 then c, s = 0.0, 1.0 end
  return {
    cx = f32(x), cy = f32(y), radius = f32(radius),
    lx = f32(ux * c - uy * s), ly = f32(ux * s + uy * c),
    rx = f32(ux * c + uy * s), ry = f32(uy * c - ux * s),
    wedge = half >= pi and "full" or (c >= 0 and "convex" or "reflex"),
  }
end

local function sides(s, dx, dy)
  return f32(f32(dx * s.ly) - f32(dy * s.lx)), f32(f32(s.rx * dy) - f32(s.ry * dx))
end

function ref.point_in(s, px, py)
  local dx, dy = f32(px - s.cx), f32(py - s.cy)
  local near = f32(f32(dx * dx) + f32(dy * dy)) < f32(s.radius * s.radius)
  if s.wedge == "full" then return near end
  local a, b = sides(s, dx, dy)
  if s.wedge == "convex" then return near and a > 0 and b > 0 end
  return near and (a > 0 or b > 0)
end

local function near_edge(dx, dy, ex, ey, len, rad2)
  local t = f32(f32(dx * ex) + f32(dy * ey))
  t = t > 0 and t or 0.0
  t = t < len and t or len
  local qx, qy = f32(dx - f32(t * ex)), f32(dy - f32(t * ey))
  return f32(f32(qx * qx) + f32(qy * qy)) <= rad2
end

function ref.disk_touches(s, px, py, rad)
  local dx, dy = f32(px - s.cx), f32(py - s.cy)
  local reach = f32(s.radius + rad)
  local within = f32(f32(dx * dx) + f32(dy * dy)) <= f32(reach * reach)
  if s.wedge == "full" then return within end
  local a, b = sides(s, dx, dy)
  local wedge
  if s.wedge == "convex" then wedge = a >= 0 and b >= 0 else wedge = a >= 0 or b >= 0 end
  local rad2 = f32(rad * rad)
  return (wedge and within) or near_edge(dx, dy, s.lx, s.ly, s.radius, rad2)
      or near_edge(dx, dy, s.rx, s.ry, s.radius, rad2)
end

return ref
