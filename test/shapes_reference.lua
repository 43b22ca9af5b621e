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

-- A segment whose len2 overflows has its t computed from a and d scaled by 2^-65 (kernels.hpp,
-- scaled_edge).
local function segment_distance2(ax, ay, dx, dy, len2)
  local t
  if len2 == math.huge then
    local s = 2 ^ -65
    local sx, sy = f32(dx * s), f32(dy * s)
    t = f32(f32(f32(f32(ax * s) * sx) + f32(f32(ay * s) * sy)) / f32(sq(sx) + sq(sy)))
  else
    t = f32(f32(f32(ax * dx) + f32(ay * dy)) / len2)
  end
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

-- One axis of a segment cast into a box: [tnear, tfar] narrowed to where the segment from o
-- along d lies within [lo, hi] (nil when it never does: d is 0 and o is outside).
local function slab(o, d, lo, hi, tnear, tfar)
  if d ~= 0 then
    local t1, t2 = f32(f32(lo - o) / d), f32(f32(hi - o) / d)
    return vmax(vmin(t1, t2), tnear), vmin(vmax(t1, t2), tfar)
  end
  if o >= lo and o <= hi then return tnear, tfar end
  return nil
end

-- Entry t of a segment cast into the box (centre +- r), or nil when it misses.
function ref.cast(x0, y0, x1, y1, px, py, r)
  x0, y0, x1, y1 = f32(x0), f32(y0), f32(x1), f32(y1)
  local dx, dy = f32(x1 - x0), f32(y1 - y0)
  local tnear, tfar = slab(x0, dx, f32(px - r), f32(px + r), 0.0, 1.0)
  if tnear then tnear, tfar = slab(y0, dy, f32(py - r), f32(py + r), tnear, tfar) end
  if tnear and tnear <= tfar then return tnear end
  return nil
end

-- Oriented rectangle: make_rect's double steps, then the kernels' float32 frame (rect.cpp,
-- kernel_rect_ring.inl).
function ref.rect(x, y, dx, dy, length, half_width)
  local m = math.abs(dx) > math.abs(dy) and math.abs(dx) or math.abs(dy)
  local sx, sy = dx / m, dy / m
  local len = math.sqrt(sx * sx + sy * sy)
  return { ax = f32(x), ay = f32(y), ux = f32(sx / len), uy = f32(sy / len), length = f32(length), hw = f32(half_width) }
end

local function frame(q, px, py)
  local dx, dy = f32(px - q.ax), f32(py - q.ay)
  return f32(f32(dx * q.ux) + f32(dy * q.uy)), f32(f32(dy * q.ux) - f32(dx * q.uy))
end

function ref.in_rect(q, px, py)
  local along, across = frame(q, px, py)
  return along >= 0 and along <= q.length and across >= -q.hw and across <= q.hw
end

-- A NaN along or across (an entity beyond float32 of the corner) is a distance past float32:
-- only an infinite reach squared takes it.
function ref.touch_rect(q, px, py, r)
  local along, across = frame(q, px, py)
  local ex = vmax(0.0, vmax(f32(0 - along), f32(along - q.length)))
  local ey = vmax(0.0, vmax(f32(-q.hw - across), f32(across - q.hw)))
  local d2, r2 = f32(sq(ex) + sq(ey)), f32(r * r)
  if d2 ~= d2 then return r2 == math.huge end
  return d2 <= r2
end

local function d2_from(cx, cy, px, py) return f32(sq(f32(px - cx)) + sq(f32(py - cy))) end

function ref.in_ring(cx, cy, inner, outer, px, py)
  cx, cy, inner, outer = f32(cx), f32(cy), f32(inner), f32(outer)
  local d2 = d2_from(cx, cy, px, py)
  return d2 >= f32(inner * inner) and d2 < f32(outer * outer)
end

function ref.touch_ring(cx, cy, inner, outer, px, py, r)
  cx, cy, inner, outer = f32(cx), f32(cy), f32(inner), f32(outer)
  local d2 = d2_from(cx, cy, px, py)
  local reach, gap = f32(outer + r), f32(inner - r)
  return d2 <= f32(reach * reach) and (gap <= 0 or d2 >= f32(gap * gap))
end

-- Convex polygons, exactly, with Lua integers: every coordinate must be a multiple of `unit`
-- (a power of two) with |v / unit| < 2^30, so differences stay below 2^31, products below 2^62
-- and the determinant inside a 64-bit integer. Scenes pick the unit: 2^-23 for coordinates in
-- [1, 128) (their float32 spacing is at least 2^-23), scaled with the scene.
local function to_int(v, unit)
  local s = v / unit
  assert(s == math.floor(s) and math.abs(s) < 2 ^ 30, "reference needs coordinates on the unit grid")
  return math.tointeger(s)
end

local function orient_int(ax, ay, bx, by, px, py)
  local d = (bx - ax) * (py - ay) - (by - ay) * (px - ax)
  return d > 0 and 1 or (d < 0 and -1 or 0)
end

-- The caller's coords as make_polygon sees them: distinct consecutive vertices (float32, and
-- integers on the grid), or nil and why: "count", "too_few", "reflex", "turns_back",
-- "winds_twice", with the 1-based vertex for reflex and turns_back.
function ref.polygon(coords, unit)
  local n = #coords // 2
  if #coords % 2 ~= 0 or n < 3 or n > 64 then return nil, "count" end
  local xs, ys, keep = {}, {}, {}
  for i = 1, n do xs[i], ys[i] = f32(coords[2 * i - 1]), f32(coords[2 * i]) end
  for i = 1, n do
    local last = keep[#keep]
    if not last or xs[i] ~= xs[last] or ys[i] ~= ys[last] then keep[#keep + 1] = i end
  end
  while #keep > 1 and xs[keep[#keep]] == xs[keep[1]] and ys[keep[#keep]] == ys[keep[1]] do keep[#keep] = nil end
  local m = #keep
  if m < 3 then return nil, "too_few" end
  local ix, iy = {}, {}
  for k = 1, m do ix[k], iy[k] = to_int(xs[keep[k]], unit), to_int(ys[keep[k]], unit) end
  -- Convex and winding once: the signed doubled area is positive or negative and the sum of
  -- the exterior angles is exactly one turn; here, independently of the core's argument, by
  -- checking that every vertex sees every other vertex on its inner side of both its edges
  -- (a polygon with that property is convex: all vertices in the intersection of half-planes).
  local winding = 0
  for k = 1, m do
    local a, b, c = (k - 2) % m + 1, k, k % m + 1
    local o = orient_int(ix[a], iy[a], ix[b], iy[b], ix[c], iy[c])
    if o == 0 then
      local before = (ix[b] - ix[a]) * (ix[c] - ix[b]) + (iy[b] - iy[a]) * (iy[c] - iy[b])
      if before < 0 then return nil, "turns_back", keep[b] end
    elseif winding == 0 then winding = o
    elseif o ~= winding then return nil, "reflex", keep[b] end
  end
  if winding == 0 then return nil, "winds_twice" end
  -- ...and the edge directions cross the vertical at most twice (a square walked twice passes
  -- the half-plane test).
  local changes, first, last = 0, 0, 0
  for k = 1, m do
    local d = ix[k % m + 1] - ix[k]
    local sgn = d > 0 and 1 or (d < 0 and -1 or 0)
    if sgn ~= 0 then
      if first == 0 then first = sgn elseif sgn ~= last then changes = changes + 1 end
      last = sgn
    end
  end
  if last ~= first then changes = changes + 1 end
  if changes > 2 then return nil, "winds_twice" end
  for k = 1, m do  -- every vertex on the inner side (or on the line) of every edge
    local nx = k % m + 1
    for j = 1, m do
      if orient_int(ix[k], iy[k], ix[nx], iy[nx], ix[j], iy[j]) * winding < 0 then return nil, "winds_twice" end
    end
  end
  local p = { n = m, x = {}, y = {}, ix = {}, iy = {} }
  for k = 1, m do  -- counter-clockwise, as the core stores it
    local at = winding > 0 and k or m + 1 - k
    p.x[k], p.y[k], p.ix[k], p.iy[k] = xs[keep[at]], ys[keep[at]], ix[at], iy[at]
  end
  p.unit = unit
  return p
end

function ref.in_polygon(p, px, py)
  local x, y = to_int(px, p.unit), to_int(py, p.unit)
  for k = 1, p.n do
    local nx = k % p.n + 1
    if orient_int(p.ix[k], p.iy[k], p.ix[nx], p.iy[nx], x, y) < 0 then return false end
  end
  return true
end

function ref.touch_polygon(p, px, py, r)
  if ref.in_polygon(p, px, py) then return true end
  local r2 = f32(r * r)
  for k = 1, p.n do
    local nx = k % p.n + 1
    local dx, dy = f32(p.x[nx] - p.x[k]), f32(p.y[nx] - p.y[k])
    local len2 = f32(sq(dx) + sq(dy))
    if segment_distance2(f32(px - p.x[k]), f32(py - p.y[k]), dx, dy, len2) <= r2 then return true end
  end
  return false
end

-- The float32 value one step from v towards +inf (dir 1) or -inf (dir -1); v finite, non-zero.
function ref.step(v, dir)
  local bits = string.unpack("<i4", string.pack("<f", v))
  if (v > 0) == (dir > 0) then bits = bits + 1 else bits = bits - 1 end
  return (string.unpack("<f", string.pack("<i4", bits)))
end

return ref
