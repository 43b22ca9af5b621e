-- A scene service under skynet.memlimit (MB as the service argument): its layer grows one
-- entity at a time until the allocator refuses. Entity i sits at (i % 1000, i // 1000), so the
-- content can be checked without a model (which would share the limit).
local skynet = require "skynet"
local limit_mb = tonumber((...))
skynet.memlimit(limit_mb * 1024 * 1024)  -- before skynet.start: snlua reads it once
local soageo = require "soageo"

local layer = soageo.layer()
local n = 0
local function pos(i) return (i % 1000) * 1.0, (i // 1000) * 1.0 end

local command = {}

-- Sets up to `count` more entities; returns whether all went in, the error, and the count.
function command.grow(count)
  local ok, err = pcall(function()
    for _ = 1, count do
      local x, y = pos(n + 1)
      layer:set(n + 1, x, y, 0.25)
      n = n + 1
    end
  end)
  return ok, err and tostring(err), n, #layer
end

-- set_many of `count` new ids at once: all or nothing.
function command.grow_many(count)
  local ids, xs, ys = {}, {}, {}
  for k = 1, count do ids[k], xs[k], ys[k] = n + k, pos(n + k) end
  local ok, err = pcall(layer.set_many, layer, ids, xs, ys)
  if ok then n = n + count end
  return ok, err and tostring(err), #layer, layer:has(n + 1)
end

-- Every entity 1..n where it was put, nothing else; and queries still answer (a row of the
-- grid: 1000 entities per y, x in [0, 999]).
function command.verify()
  local wrong = 0
  for i = 1, n do
    local x, y = layer:get(i)
    local px, py = pos(i)
    if x ~= px or y ~= py then wrong = wrong + 1 end
  end
  local out = {}
  local _, in_row = layer:in_box(0, 5, 999, 5, out)
  local _, near = layer:touch_circle(500, 5, 1.5, out)
  return #layer == n and wrong == 0, n, wrong, in_row, near
end

-- Keeps changing: moves, removes and sets within the capacity it already holds.
function command.churn()
  for i = 1, 100 do layer:move(i, pos(i)) end
  for i = n - 99, n do layer:remove(i) end
  for i = n - 99, n do layer:set(i, pos(i)) end
  return #layer
end

skynet.start(function()
  skynet.dispatch("lua", function(_, _, cmd, ...)
    skynet.ret(skynet.pack(command[cmd](...)))
  end)
end)
