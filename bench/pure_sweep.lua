-- The baseline for pairs: sort-and-sweep in pure Lua over arrays (xs, ys, rs, ids, n), the
-- way a Lua programmer writes it: table.sort on min-x, then a sweep with y tests.
local sort = table.sort

local pure = {}

function pure.pairs(e, out)
  local xs, ys, rs, ids, n = e.xs, e.ys, e.rs, e.ids, e.n
  local order, minx = {}, {}
  for i = 1, n do order[i] = i; minx[i] = xs[i] - rs[i] end
  sort(order, function(a, b) return minx[a] < minx[b] end)
  local k = 0
  for p = 1, n do
    local i = order[p]
    local maxx, y0, y1 = xs[i] + rs[i], ys[i] - rs[i], ys[i] + rs[i]
    for q = p + 1, n do
      local j = order[q]
      if minx[j] > maxx then break end
      local rj = rs[j]
      if ys[j] - rj <= y1 and y0 <= ys[j] + rj then
        local a, b = ids[i], ids[j]
        if b < a then a, b = b, a end
        out[k + 1], out[k + 2] = a, b
        k = k + 2
      end
    end
  end
  for i = k + 1, #out do out[i] = nil end
  return out, k // 2
end

return pure
