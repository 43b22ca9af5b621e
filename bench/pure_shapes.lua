-- Baselines: the shape queries as a Lua programmer writes them over plain arrays (xs, ys, rs,
-- ids, n), each filling a reused `out` and returning out, count.
local pure = {}

local function finish(out, k)
  for i = k + 1, #out do out[i] = nil end
  return out, k
end

function pure.in_circle(e, out, cx, cy, r)
  local xs, ys, ids, r2, k = e.xs, e.ys, e.ids, r * r, 0
  for i = 1, e.n do
    local dx, dy = xs[i] - cx, ys[i] - cy
    if dx * dx + dy * dy < r2 then k = k + 1; out[k] = ids[i] end
  end
  return finish(out, k)
end

function pure.touch_circle(e, out, cx, cy, r)
  local xs, ys, rs, ids, k = e.xs, e.ys, e.rs, e.ids, 0
  for i = 1, e.n do
    local dx, dy, reach = xs[i] - cx, ys[i] - cy, r + rs[i]
    if dx * dx + dy * dy <= reach * reach then k = k + 1; out[k] = ids[i] end
  end
  return finish(out, k)
end

function pure.in_box(e, out, minx, miny, maxx, maxy)
  local xs, ys, ids, k = e.xs, e.ys, e.ids, 0
  for i = 1, e.n do
    local x, y = xs[i], ys[i]
    if x >= minx and x <= maxx and y >= miny and y <= maxy then k = k + 1; out[k] = ids[i] end
  end
  return finish(out, k)
end

function pure.touch_box(e, out, minx, miny, maxx, maxy)
  local xs, ys, rs, ids, k = e.xs, e.ys, e.rs, e.ids, 0
  for i = 1, e.n do
    local x, y, r = xs[i], ys[i], rs[i]
    local ex = x < minx and minx - x or (x > maxx and x - maxx or 0)
    local ey = y < miny and miny - y or (y > maxy and y - maxy or 0)
    if ex * ex + ey * ey <= r * r then k = k + 1; out[k] = ids[i] end
  end
  return finish(out, k)
end

function pure.touch_capsule(e, out, x0, y0, x1, y1, radius)
  local xs, ys, rs, ids, k = e.xs, e.ys, e.rs, e.ids, 0
  local dx, dy = x1 - x0, y1 - y0
  local len2 = dx * dx + dy * dy
  for i = 1, e.n do
    local ax, ay = xs[i] - x0, ys[i] - y0
    local t = len2 > 0 and (ax * dx + ay * dy) / len2 or 0
    if t < 0 then t = 0 elseif t > 1 then t = 1 end
    local qx, qy, reach = ax - t * dx, ay - t * dy, radius + rs[i]
    if qx * qx + qy * qy <= reach * reach then k = k + 1; out[k] = ids[i] end
  end
  return finish(out, k)
end

-- Cross-product signs in double (not exact, as a Lua programmer would write it).
function pure.in_triangle(e, out, ax, ay, bx, by, cx, cy)
  local xs, ys, ids, k = e.xs, e.ys, e.ids, 0
  for i = 1, e.n do
    local x, y = xs[i], ys[i]
    local o1 = (bx - ax) * (y - ay) - (by - ay) * (x - ax)
    local o2 = (cx - bx) * (y - by) - (cy - by) * (x - bx)
    local o3 = (ax - cx) * (y - cy) - (ay - cy) * (x - cx)
    if (o1 >= 0 and o2 >= 0 and o3 >= 0) or (o1 <= 0 and o2 <= 0 and o3 <= 0) then k = k + 1; out[k] = ids[i] end
  end
  return finish(out, k)
end

local function segment_d2(px, py, x0, y0, x1, y1)
  local dx, dy = x1 - x0, y1 - y0
  local len2 = dx * dx + dy * dy
  local ax, ay = px - x0, py - y0
  local t = len2 > 0 and (ax * dx + ay * dy) / len2 or 0
  if t < 0 then t = 0 elseif t > 1 then t = 1 end
  local qx, qy = ax - t * dx, ay - t * dy
  return qx * qx + qy * qy
end

function pure.touch_triangle(e, out, ax, ay, bx, by, cx, cy)
  local xs, ys, rs, ids, k = e.xs, e.ys, e.rs, e.ids, 0
  for i = 1, e.n do
    local x, y, r = xs[i], ys[i], rs[i]
    local o1 = (bx - ax) * (y - ay) - (by - ay) * (x - ax)
    local o2 = (cx - bx) * (y - by) - (cy - by) * (x - bx)
    local o3 = (ax - cx) * (y - cy) - (ay - cy) * (x - cx)
    local r2 = r * r
    if (o1 >= 0 and o2 >= 0 and o3 >= 0) or (o1 <= 0 and o2 <= 0 and o3 <= 0)
      or segment_d2(x, y, ax, ay, bx, by) <= r2 or segment_d2(x, y, bx, by, cx, cy) <= r2
      or segment_d2(x, y, cx, cy, ax, ay) <= r2 then
      k = k + 1; out[k] = ids[i]
    end
  end
  return finish(out, k)
end

function pure.cast_segment(e, out, x0, y0, x1, y1)
  local xs, ys, rs, ids, k = e.xs, e.ys, e.rs, e.ids, 0
  local dx, dy = x1 - x0, y1 - y0
  local ts = {}
  for i = 1, e.n do
    local x, y, r = xs[i], ys[i], rs[i]
    local tnear, tfar = 0, 1
    if dx ~= 0 then
      local t1, t2 = (x - r - x0) / dx, (x + r - x0) / dx
      if t1 > t2 then t1, t2 = t2, t1 end
      if t1 > tnear then tnear = t1 end
      if t2 < tfar then tfar = t2 end
    elseif x0 < x - r or x0 > x + r then tnear = 2 end
    if dy ~= 0 then
      local t1, t2 = (y - r - y0) / dy, (y + r - y0) / dy
      if t1 > t2 then t1, t2 = t2, t1 end
      if t1 > tnear then tnear = t1 end
      if t2 < tfar then tfar = t2 end
    elseif y0 < y - r or y0 > y + r then tnear = 2 end
    if tnear <= tfar then k = k + 1; out[k] = ids[i]; ts[ids[i]] = tnear end
  end
  finish(out, k)
  table.sort(out, function(a, b) return ts[a] < ts[b] or (ts[a] == ts[b] and a < b) end)
  return out, k
end

-- Oriented rectangle: the direction normalised once, then the frame test per entity.
local function unit(dx, dy)
  local len = math.sqrt(dx * dx + dy * dy)
  return dx / len, dy / len
end

function pure.in_rect(e, out, x, y, dx, dy, length, hw)
  local xs, ys, ids, k = e.xs, e.ys, e.ids, 0
  local ux, uy = unit(dx, dy)
  for i = 1, e.n do
    local px, py = xs[i] - x, ys[i] - y
    local along, across = px * ux + py * uy, py * ux - px * uy
    if along >= 0 and along <= length and across >= -hw and across <= hw then k = k + 1; out[k] = ids[i] end
  end
  return finish(out, k)
end

function pure.touch_rect(e, out, x, y, dx, dy, length, hw)
  local xs, ys, rs, ids, k = e.xs, e.ys, e.rs, e.ids, 0
  local ux, uy = unit(dx, dy)
  for i = 1, e.n do
    local px, py, r = xs[i] - x, ys[i] - y, rs[i]
    local along, across = px * ux + py * uy, py * ux - px * uy
    local ex = along < 0 and -along or (along > length and along - length or 0)
    local ey = across < -hw and -hw - across or (across > hw and across - hw or 0)
    if ex * ex + ey * ey <= r * r then k = k + 1; out[k] = ids[i] end
  end
  return finish(out, k)
end

function pure.in_ring(e, out, cx, cy, inner, outer)
  local xs, ys, ids, k = e.xs, e.ys, e.ids, 0
  local in2, out2 = inner * inner, outer * outer
  for i = 1, e.n do
    local dx, dy = xs[i] - cx, ys[i] - cy
    local d2 = dx * dx + dy * dy
    if d2 >= in2 and d2 < out2 then k = k + 1; out[k] = ids[i] end
  end
  return finish(out, k)
end

function pure.touch_ring(e, out, cx, cy, inner, outer)
  local xs, ys, rs, ids, k = e.xs, e.ys, e.rs, e.ids, 0
  for i = 1, e.n do
    local dx, dy, r = xs[i] - cx, ys[i] - cy, rs[i]
    local d2, reach, gap = dx * dx + dy * dy, outer + r, inner - r
    if d2 <= reach * reach and (gap <= 0 or d2 >= gap * gap) then k = k + 1; out[k] = ids[i] end
  end
  return finish(out, k)
end

-- Convex polygon {x1, y1, ...}, counter-clockwise: left of (or on) every edge, in double.
function pure.in_polygon(e, out, coords)
  local xs, ys, ids, k, m = e.xs, e.ys, e.ids, 0, #coords
  for i = 1, e.n do
    local x, y, inside = xs[i], ys[i], true
    for j = 1, m, 2 do
      local ax, ay = coords[j], coords[j + 1]
      local bx, by = coords[(j + 1) % m + 1], coords[(j + 2) % m + 1]
      if (bx - ax) * (y - ay) - (by - ay) * (x - ax) < 0 then inside = false; break end
    end
    if inside then k = k + 1; out[k] = ids[i] end
  end
  return finish(out, k)
end

function pure.touch_polygon(e, out, coords)
  local xs, ys, rs, ids, k, m = e.xs, e.ys, e.rs, e.ids, 0, #coords
  for i = 1, e.n do
    local x, y, r, inside, near = xs[i], ys[i], rs[i], true, false
    local r2 = r * r
    for j = 1, m, 2 do
      local ax, ay = coords[j], coords[j + 1]
      local bx, by = coords[(j + 1) % m + 1], coords[(j + 2) % m + 1]
      if (bx - ax) * (y - ay) - (by - ay) * (x - ax) < 0 then inside = false end
      if segment_d2(x, y, ax, ay, bx, by) <= r2 then near = true; break end
    end
    if inside or near then k = k + 1; out[k] = ids[i] end
  end
  return finish(out, k)
end

return pure
