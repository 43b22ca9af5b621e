-- Exact plain-Lua references for walls and tiles, on integer coordinates (the specs scale them
-- by a power of two before handing them to the module, so both see the same values). Every
-- parameter along a query is a fraction {num, den} with den > 0, compared by cross products:
-- with coordinates below 2^12 every product stays far inside Lua's 64-bit integers.
local ref = {}

local function frac(n, d)
  if d < 0 then n, d = -n, -d end
  return { n, d }
end
local function cmp(a, b)
  local l, r = a[1] * b[2], b[1] * a[2]
  return l < r and -1 or (l > r and 1 or 0)
end
local ZERO, ONE = { 0, 1 }, { 1, 1 }
local function fmax(a, b) return cmp(a, b) >= 0 and a or b end
local function fmin(a, b) return cmp(a, b) <= 0 and a or b end
ref.cmp = cmp
function ref.value(f) return f[1] / f[2] end

local function cross(ux, uy, vx, vy) return ux * vy - uy * vx end
local function dot(ux, uy, vx, vy) return ux * vx + uy * vy end

-- The part of query q = {ax, ay, bx, by} that wall s = {cx, cy, ex, ey} (closed) holds, as an
-- interval of parameters {lo, hi} along q, or nil. A point query holds t = 0 or nothing.
function ref.wall_interval(q, s)
  local ax, ay, bx, by = q[1], q[2], q[3], q[4]
  local cx, cy, ex, ey = s[1], s[2], s[3], s[4]
  local dx, dy = bx - ax, by - ay
  local fx, fy = ex - cx, ey - cy
  if dx == 0 and dy == 0 then
    -- the point a on the closed segment s (or equal to the point s)
    if cross(fx, fy, ax - cx, ay - cy) ~= 0 then return nil end
    local k, len2 = dot(ax - cx, ay - cy, fx, fy), dot(fx, fy, fx, fy)
    if (len2 == 0 and ax == cx and ay == cy) or (len2 > 0 and k >= 0 and k <= len2) then return { ZERO, ZERO } end
    return nil
  end
  local dd = dot(dx, dy, dx, dy)
  local function on_line_t(px, py)  -- p on q's line: its parameter, if in [0, 1]
    local t = frac(dot(px - ax, py - ay, dx, dy), dd)
    if cmp(t, ZERO) >= 0 and cmp(t, ONE) <= 0 then return t end
  end
  if fx == 0 and fy == 0 then
    if cross(dx, dy, cx - ax, cy - ay) ~= 0 then return nil end
    local t = on_line_t(cx, cy)
    return t and { t, t }
  end
  local den = cross(dx, dy, fx, fy)
  if den ~= 0 then
    local t = frac(cross(cx - ax, cy - ay, fx, fy), den)
    local u = frac(cross(cx - ax, cy - ay, dx, dy), den)
    if cmp(t, ZERO) < 0 or cmp(t, ONE) > 0 or cmp(u, ZERO) < 0 or cmp(u, ONE) > 0 then return nil end
    return { t, t }
  end
  if cross(dx, dy, cx - ax, cy - ay) ~= 0 then return nil end  -- parallel lines apart
  local tc, te = frac(dot(cx - ax, cy - ay, dx, dy), dd), frac(dot(ex - ax, ey - ay, dx, dy), dd)
  local lo, hi = fmax(fmin(tc, te), ZERO), fmin(fmax(tc, te), ONE)
  if cmp(lo, hi) > 0 then return nil end
  return { lo, hi }
end

-- Open at both ends: an interval that is only {0} or only {1} does not block.
local function blocks_open(iv, q)
  if not iv then return false end
  if q[1] == q[3] and q[2] == q[4] then return false end
  if cmp(iv[2], ZERO) == 0 then return false end
  if cmp(iv[1], ONE) == 0 then return false end
  return true
end

-- The first contact over a list of walls: t (a fraction) and the wall number, or nil.
local function first(n, interval_of)
  local best, best_i
  for i = 1, n do
    local iv = interval_of(i)
    if iv and (not best or cmp(iv[1], best) < 0) then best, best_i = iv[1], i end
  end
  return best, best_i
end

function ref.walls_cast(walls, q)
  return first(#walls, function(i) return ref.wall_interval(q, walls[i]) end)
end
function ref.walls_blocked(walls, q) return ref.walls_cast(walls, q) ~= nil end
function ref.walls_visible(walls, q)
  for i = 1, #walls do
    if blocks_open(ref.wall_interval(q, walls[i]), q) then return false end
  end
  return true
end

-- Tiles: map = {cols, rows, cell, x0, y0, blocked = {[k] = true}} in integer units; cell k
-- (0-based, row * cols + col) is the closed square from (x0 + col * cell, y0 + row * cell).
function ref.tile_interval(map, k, q)
  local col, row = k % map.cols, k // map.cols
  local lo_t, hi_t = ZERO, ONE
  for axis = 1, 2 do
    local a, b = q[axis], q[axis + 2]
    local lo = (axis == 1 and map.x0 or map.y0) + (axis == 1 and col or row) * map.cell
    local hi = lo + map.cell
    if a == b then
      if a < lo or a > hi then return nil end
    else
      local t1, t2 = frac(lo - a, b - a), frac(hi - a, b - a)
      lo_t, hi_t = fmax(lo_t, fmin(t1, t2)), fmin(hi_t, fmax(t1, t2))
    end
  end
  if cmp(lo_t, hi_t) > 0 then return nil end
  return { lo_t, hi_t }
end

function ref.tiles_cast(map, q)
  local best, best_k
  for k = 0, map.cols * map.rows - 1 do
    if map.blocked[k] then
      local iv = ref.tile_interval(map, k, q)
      if iv and (not best or cmp(iv[1], best) < 0) then best, best_k = iv[1], k + 1 end
    end
  end
  return best, best_k
end
function ref.tiles_blocked(map, q) return ref.tiles_cast(map, q) ~= nil end
function ref.tiles_visible(map, q)
  for k = 0, map.cols * map.rows - 1 do
    if map.blocked[k] and blocks_open(ref.tile_interval(map, k, q), q) then return false end
  end
  return true
end

return ref
