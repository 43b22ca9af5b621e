-- The scene service: a thin wrapper around examples/scene (all logic lives there, walls too:
-- a cone hits only what its caster sees, an arrow stops at the first wall; so the
-- plain-Lua simulation exercises it without skynet).
local scene = require "scene"
local soageo = require "soageo"

local world
local command = {}

-- opts.shared_walls: the name the map service shared the walls under; the scene queries a view
-- of that one copy rather than walls of its own.
function command.init(opts)
  if opts.shared_walls then opts.walls_object = assert(soageo.attach(opts.shared_walls)) end
  world = scene.new(opts)
  return #world.layer
end

function command.tick()
  return world:tick()
end

-- A region changes owner (examples/scene: World:handoff and World:adopt). The adopting scene
-- answers with a snapshot of its layer: the caller compares it with what it sent.
function command.handoff()
  return world:handoff()
end

function command.adopt(snapshot, hp, heading)
  world:adopt(snapshot, hp, heading)
  return #world.layer, world.layer:dump()
end

-- The same `count` queries, drawn from `seed`, over this scene's layer: what two scenes (two
-- nodes, after a handoff) compare. Each answer is a string: sorted ids, or ids in order with
-- their exact t for casts and the nearest first for nearest.
function command.answers(seed, count)
  local rnd, layer, size = scene.rng(seed), world.layer, world.size
  local out, ids, ts, answers = {}, {}, {}, {}
  local function sorted(o, n)
    local t = table.move(o, 1, n, 1, {})
    table.sort(t)
    return table.concat(t, " ")
  end
  for q = 1, count do
    local x, y, h = rnd(0, size), rnd(0, size), rnd(0, 2 * math.pi)
    local dx, dy = math.cos(h), math.sin(h)
    local kind = q % 8
    if kind == 0 then answers[q] = sorted(layer:in_sector(x, y, dx, dy, 80, math.pi / 5, out))
    elseif kind == 1 then answers[q] = sorted(layer:touch_circle(x, y, 40, out))
    elseif kind == 2 then answers[q] = sorted(layer:touch_box(x - 50, y - 20, x + 50, y + 20, out))
    elseif kind == 3 then answers[q] = sorted(layer:touch_capsule(x, y, x + 70 * dx, y + 70 * dy, 8, out))
    elseif kind == 4 then answers[q] = sorted(layer:in_triangle(x, y, x + 60 * dx, y + 60 * dy, x + 60 * dy, y - 60 * dx, out))
    elseif kind == 5 then
      local _, _, n = layer:cast_segment(x, y, x + 150 * dx, y + 150 * dy, ids, ts)
      local t = {}
      for i = 1, n do t[i] = string.format("%d@%a", ids[i], ts[i]) end
      answers[q] = table.concat(t, " ")
    elseif kind == 6 then
      local o, n = layer:nearest(x, y, 10, nil, out)
      answers[q] = table.concat(o, " ", 1, n)
    else
      answers[q] = "pairs " .. layer:pair_count()
    end
  end
  return answers
end

require("skynet_commands").start(command)
