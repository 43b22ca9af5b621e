-- Brute-force references for the pairer and AOI, in the kernels' float32 arithmetic.
local f32 = require("float32").f32

local ref = {}

-- Entities as stored: { id, x, y, r, mask } with float32 values read back from the layer.
function ref.entities(layer)
  local t = {}
  for id, x, y, r, m in layer:each() do t[#t + 1] = { id, x, y, r, m } end
  return t
end

local function box(e) return f32(e[2] - e[4]), f32(e[2] + e[4]), f32(e[3] - e[4]), f32(e[3] + e[4]) end

local function overlap(p, q)
  local ax0, ax1, ay0, ay1 = box(p)
  local bx0, bx1, by0, by1 = box(q)
  return ax0 <= bx1 and bx0 <= ax1 and ay0 <= by1 and by0 <= ay1
end

local function sort_pairs(list)
  table.sort(list, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
  local flat = {}
  for _, p in ipairs(list) do flat[#flat + 1] = p[1]; flat[#flat + 1] = p[2] end
  return flat
end

function ref.pairs(es)
  local list = {}
  for i = 1, #es do
    for j = i + 1, #es do
      if overlap(es[i], es[j]) then
        local a, b = es[i][1], es[j][1]
        if b < a then a, b = b, a end
        list[#list + 1] = { a, b }
      end
    end
  end
  return sort_pairs(list)
end

function ref.pairs_between(as, bs)
  local list = {}
  for _, p in ipairs(as) do
    for _, q in ipairs(bs) do
      if overlap(p, q) then list[#list + 1] = { p[1], q[1] } end
    end
  end
  return sort_pairs(list)
end

-- The same pairs by a plain sort and sweep (O(n log n + k)), for scenes too large for the
-- O(n^2) loops above; those loops check it at smaller sizes (pairs_spec).
local function boxes(es)
  local bs = {}
  for i, e in ipairs(es) do
    local x0, x1, y0, y1 = box(e)
    bs[i] = { x0, x1, y0, y1, e[1] }
  end
  table.sort(bs, function(p, q) return p[1] < q[1] end)
  return bs
end

-- Calls emit(p, q) for each q of the sorted list bs, from index k on, whose min-x is within
-- p's x extent and which overlaps p in y.
local function scan(bs, k, p, emit)
  while k <= #bs and bs[k][1] <= p[2] do
    local q = bs[k]
    if q[3] <= p[4] and p[3] <= q[4] then emit(p, q) end
    k = k + 1
  end
end

function ref.pairs_sweep(es)
  local bs, list = boxes(es), {}
  local function add(p, q)
    local a, b = p[5], q[5]
    if b < a then a, b = b, a end
    list[#list + 1] = { a, b }
  end
  -- Each pair once, from the box that comes first in min-x order (equal min-x: the earlier
  -- one in the list), so each scan starts just past the box itself.
  for i, p in ipairs(bs) do scan(bs, i + 1, p, add) end
  return sort_pairs(list)
end

function ref.pairs_between_sweep(as, bs)
  local sa, sb, list = boxes(as), boxes(bs), {}
  local function add(p, q) list[#list + 1] = { p[5], q[5] } end
  local function add_swapped(q, p) add(p, q) end
  -- From the a side every b with min-x >= a's; from the b side every a with min-x strictly
  -- greater than b's, so that equal min-x is counted once.
  local start = 1
  for _, p in ipairs(sa) do
    while start <= #sb and sb[start][1] < p[1] do start = start + 1 end
    scan(sb, start, p, add)
  end
  start = 1
  for _, q in ipairs(sb) do
    while start <= #sa and sa[start][1] <= q[1] do start = start + 1 end
    scan(sa, start, q, add_swapped)
  end
  return sort_pairs(list)
end

-- The visible sets after an update, given the ones before: { [watcher] = { [target] = true } }.
-- `wmasks` (optional): a watcher's filter; it sees only targets whose layer mask shares a bit.
function ref.visible(layer, views, margin, before, wmasks)
  local after = {}
  local es = ref.entities(layer)
  for w, view in pairs(views) do
    if layer:has(w) then
      local filter = wmasks and wmasks[w] or 0xffffffff
      local wx, wy = layer:get(w)
      local v = f32(view)
      local enter2, reach = f32(v * v), f32(v + f32(margin))
      local stay2 = f32(reach * reach)
      local seen, was = {}, before[w] or {}
      for _, e in ipairs(es) do
        if e[1] ~= w and e[5] & filter ~= 0 then
          local dx, dy = f32(e[2] - wx), f32(e[3] - wy)
          local d2 = f32(f32(dx * dx) + f32(dy * dy))
          if d2 < enter2 or (was[e[1]] and d2 < stay2) then seen[e[1]] = true end
        end
      end
      after[w] = seen
    end
  end
  return after
end

return ref
