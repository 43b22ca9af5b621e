-- The baseline for AOI: a uniform grid (cells of the view radius) in pure Lua, producing the
-- same events as soageo.aoi (enter when d < view, leave when d >= view + margin).
local floor = math.floor

local grid = {}
grid.__index = grid

function grid.new(view, margin)
  return setmetatable({ view = view, margin = margin, cell = view + margin, seen = {}, watchers = {} }, grid)
end

function grid:watch(id) self.watchers[id] = true; self.seen[id] = self.seen[id] or {} end

-- e: { xs, ys, ids, n } of this tick (positions by index); returns enter, leave lists.
function grid:update(e)
  local cell, cells = self.cell, {}
  local xs, ys, ids = e.xs, e.ys, e.ids
  local pos = {}
  for i = 1, e.n do
    local cx, cy = floor(xs[i] / cell), floor(ys[i] / cell)
    local key = cx * 65536 + cy
    local c = cells[key]
    if not c then c = {}; cells[key] = c end
    c[#c + 1] = i
    pos[ids[i]] = i
  end
  local enter, leave = {}, {}
  local v2, r2 = self.view * self.view, (self.view + self.margin) ^ 2
  for w in pairs(self.watchers) do
    local wi, was = pos[w], self.seen[w]
    local now = {}
    if wi then
      local wx, wy = xs[wi], ys[wi]
      local cx, cy = floor(wx / cell), floor(wy / cell)
      for gx = cx - 1, cx + 1 do
        for gy = cy - 1, cy + 1 do
          local c = cells[gx * 65536 + gy]
          if c then
            for k = 1, #c do
              local j = c[k]
              if j ~= wi then
                local dx, dy = xs[j] - wx, ys[j] - wy
                local d2 = dx * dx + dy * dy
                local t = ids[j]
                if d2 < v2 or (was[t] and d2 < r2) then
                  now[t] = true
                  if not was[t] then enter[#enter + 1] = w; enter[#enter + 1] = t end
                end
              end
            end
          end
        end
      end
    end
    for t in pairs(was) do
      if not now[t] then leave[#leave + 1] = w; leave[#leave + 1] = t end
    end
    self.seen[w] = now
  end
  return enter, leave
end

return grid
