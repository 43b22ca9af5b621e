-- Scenes more than one Lua benchmark runs, drawn from math.random (seeded, or not, by the
-- caller: the draws are in the same order as where they were first written).
local scenes = {}

-- The 1000 sectors x 100,000 points benchmark (1e8 tests): a layer of 100,000 points uniform in
-- 2000x2000, and 1000 sectors as flat batch params (x, y, dx, dy, radius, half_angle). The
-- sectors are small (radius 50, about 0.2% hits) so the (shape, id) output stays a few MB.
function scenes.sector_batch(soageo)
  local big = soageo.layer(100000)
  for i = 1, 100000 do big:set(i, math.random() * 2000, math.random() * 2000) end
  local params = {}
  for _ = 1, 1000 do
    local a = math.random() * 2 * math.pi
    for _, v in ipairs({ math.random() * 2000, math.random() * 2000, math.cos(a), math.sin(a), 50, math.random() * math.pi }) do
      params[#params + 1] = v
    end
  end
  return big, params
end

return scenes
