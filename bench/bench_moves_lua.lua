-- From Lua: moving every entity of a layer once, in random order, with ids scattered over 64
-- bits, against the plain Lua array update a Lua server would do instead (xs[i], ys[i] = x, y).
-- Per entity, median of several timed rounds, the contenders in turn, each timed round after an
-- untimed one. Then a scene's movement loop, each() + move in storage order, against the same
-- loop over Lua arrays. Run from the repo root; `lua5.4 bench/bench_moves_lua.lua 100000` runs
-- one size only.
package.path = "lualib/?.lua;bench/?.lua;" .. package.path
package.cpath = "./?.so;" .. package.cpath

local soageo = require "soageo"
local timing = require "timing"
local median, alternating = timing.median, timing.alternating

local sizes = { 10000, 100000, 1000000 }
if arg[1] then sizes = { tonumber(arg[1]) } end

print(string.format("moves from Lua (%s, SIMD target %s), ns per entity, median of timed rounds:",
  _VERSION, soageo.arch()))
print(string.format("%9s %11s %11s %7s %11s %7s %11s %7s %11s %7s", "entities", "Lua arrays", "layer:move",
  "ratio", "move local", "ratio", "set_many", "ratio", "move_many", "ratio"))
local loops = {}  -- { n, Lua loop, soageo loop }: printed after the table above
for _, n in ipairs(sizes) do
  math.randomseed(n)
  -- Unique ids spread over the whole 64-bit range (both signs), as handles or hashed keys are.
  local ids, seen = {}, {}
  while #ids < n do
    local id = math.random(math.mininteger, math.maxinteger)
    if not seen[id] then
      seen[id] = true
      ids[#ids + 1] = id
    end
  end
  seen = nil
  local layer = soageo.layer(n)
  local xs, ys = {}, {}  -- the plain Lua store: entity i at xs[i], ys[i]
  for i = 1, n do
    xs[i], ys[i] = math.random() * 2000, math.random() * 2000
    layer:set(ids[i], xs[i], ys[i])
  end
  -- Every round moves every entity once, in a random order (the same order for every contender).
  local order = {}
  for i = 1, n do order[i] = i end
  for i = n, 2, -1 do
    local j = math.random(i)
    order[i], order[j] = order[j], order[i]
  end
  local mids, nx, ny = {}, {}, {}  -- move k: id mids[k] (entity order[k]) goes to nx[k], ny[k]
  for k = 1, n do
    mids[k] = ids[order[k]]
    nx[k], ny[k] = math.random() * 2000, math.random() * 2000
  end
  local rounds = n >= 1000000 and 5 or n >= 100000 and 9 or 21

  local move = layer.move
  local contenders = {
    function()
      for k = 1, n do
        local i = order[k]
        xs[i] = nx[k]
        ys[i] = ny[k]
      end
    end,
    function() for k = 1, n do layer:move(mids[k], nx[k], ny[k]) end end,
    function() for k = 1, n do move(layer, mids[k], nx[k], ny[k]) end end,
    function() layer:set_many(mids, nx, ny) end,
  }
  if layer.move_many then contenders[5] = function() layer:move_many(mids, nx, ny) end end
  collectgarbage()  -- the garbage of the setup is not charged to the first contender
  local t = alternating(rounds, contenders)
  local t_lua, t_move, t_move_local, t_set_many, t_move_many = t[1], t[2], t[3], t[4], t[5]

  -- The layer holds what the moves wrote (a benchmark that skipped its work would fail here).
  for k = 1, n, 997 do
    local x, y = layer:get(mids[k])
    assert(x == string.unpack("f", string.pack("f", nx[k])) and y == string.unpack("f", string.pack("f", ny[k])))
  end

  -- The movement loop of a scene: every entity, in storage order, steps from where it is.
  local loop = alternating(rounds, {
    function(r)
      local d = r % 2 == 0 and 0.5 or -0.5
      for i = 1, n do xs[i], ys[i] = xs[i] + d, ys[i] - d end
    end,
    function(r)
      local d = r % 2 == 0 and 0.5 or -0.5
      for id, x, y in layer:each() do layer:move(id, x + d, y - d) end
    end,
  })
  local t_loop_lua, t_loop = loop[1], loop[2]
  loops[#loops + 1] = { n, t_loop_lua, t_loop }

  local ns = 1e9 / n
  local function col(t) return t and string.format("%11.1f %6.2fx", t * ns, t / t_lua) or string.format("%11s %7s", "-", "-") end
  print(string.format("%9d %11.1f %s %s %s %s", n, t_lua * ns, col(t_move), col(t_move_local), col(t_set_many),
    col(t_move_many)))
  layer:close()
  collectgarbage()
end
print("targets (issue 13): layer:move <= 2x Lua arrays at 100,000 and 1,000,000; a batch <= 40 ns at 1,000,000")
print()
print("the movement loop, every entity in storage order, ns per entity: for id, x, y in layer:each() do")
print("layer:move(id, x + d, y - d) end, against for i = 1, n do xs[i], ys[i] = xs[i] + d, ys[i] - d end")
print(string.format("%9s %11s %13s %7s", "entities", "Lua arrays", "each + move", "ratio"))
for _, l in ipairs(loops) do
  print(string.format("%9d %11.1f %13.1f %6.2fx", l[1], l[2] * 1e9 / l[1], l[3] * 1e9 / l[1], l[3] / l[2]))
end
