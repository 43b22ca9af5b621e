-- The scripted scene both runs (one layer, and regions) play: who moves where, who casts what,
-- who joins and who leaves. Moves and casts are pure functions of (seed, id, tick, position),
-- so each region computes them for the entities it owns without any message; joins and leaves
-- come from a seeded script that only knows which ids are alive.
--
-- Positions stay on a 1/64 grid inside [0, 16384): exactly representable in float32, so a
-- layer stores exactly what the rules computed and every ownership decision is exact.
local rules = {}

local floor, cos, sin, pi = math.floor, math.cos, math.sin, math.pi

rules.TEAM_A, rules.TEAM_B = 1, 2
rules.TEAMS = rules.TEAM_A | rules.TEAM_B
rules.ENEMY = { [1] = 2, [2] = 1 }

-- splitmix64's finaliser over (seed, id, tick, salt): Lua 5.4 integers wrap mod 2^64.
local function hash(seed, id, tick, salt)
  local z = seed * 0x9e3779b97f4a7c15 + id * 0xbf58476d1ce4e5b9 + tick * 0x94d049bb133111eb + salt
  z = (z ~ (z >> 30)) * 0xbf58476d1ce4e5b9
  z = (z ~ (z >> 27)) * 0x94d049bb133111eb
  return z ~ (z >> 31)
end
rules.hash = hash

-- An integer in [0, n) from a hash.
local function pick(h, n) return (h >> 1) % n end

local function grid64(v, size)  -- clamp to [0, size) on the 1/64 grid
  v = floor(v * 64) / 64
  if v < 0 then return 0 end
  if v >= size then return size - 1 / 64 end
  return v
end

-- opts: seed, size, speed (max step per axis), jump (chance per tick of a teleport, in 1/65536)
function rules.new(opts)
  local r = {
    seed = opts.seed or 1, size = opts.size or 4096, speed = opts.speed or 2,
    jump = opts.jump or 16, cast = opts.cast or 400,  -- casts: chance per tick in 1/65536
    view = opts.view or 50, margin = opts.margin or 5, reach = opts.reach or 40,
    half_angle = opts.half_angle or pi / 4, max_r = opts.max_r or 2,
    watchers = opts.watchers or 0.3,
    walls = opts.walls,  -- how many wall segments (wall_coords); default one per 8000 square units
  }
  return setmetatable(r, { __index = rules })
end

-- Where entity `id` at (x, y) is after tick `tick`.
function rules:move(id, tick, x, y)
  local h = hash(self.seed, id, tick, 1)
  if pick(h, 65536) < self.jump then
    local g = hash(self.seed, id, tick, 2)
    return grid64((g >> 8) % (self.size * 64) / 64, self.size), grid64((g >> 36) % (self.size * 64) / 64, self.size)
  end
  local steps = floor(self.speed * 64)
  local dx = (pick(h >> 17, 2 * steps + 1) - steps) / 64
  local dy = (pick(h >> 40, 2 * steps + 1) - steps) / 64
  return grid64(x + dx, self.size), grid64(y + dy, self.size)
end

-- Whether `id` casts at `tick`, and the direction it faces.
function rules:casts(id, tick)
  local h = hash(self.seed, id, tick, 3)
  if pick(h, 65536) >= self.cast then return nil end
  local a = (h >> 24) % 3600 * (2 * pi / 3600)
  return cos(a), sin(a)
end

-- A new entity: position, radius, team, view (0: not a watcher), from a seeded generator g.
function rules:spawn(g)
  local x = grid64(g() * self.size, self.size)
  local y = grid64(g() * self.size, self.size)
  local r = floor(g() * self.max_r * 64) / 64
  local team = g() < 0.5 and rules.TEAM_A or rules.TEAM_B
  local view = g() < self.watchers and self.view or 0
  return x, y, r, team, view
end

-- The world's static walls: a flat {x0, y0, x1, y1, ...} for soageo.walls, a pure function of
-- the seed and size (integer arithmetic only, ends on the 1/64 grid), so every service and
-- every node that builds them from the same options gets the same segments. Short walls (each
-- axis at most 24 long) scattered over the world: each hides some of what a caster's sector
-- touches.
function rules:wall_coords()
  local n = self.walls or self.size * self.size // 8000
  local coords, span, s = {}, self.size * 64, self.seed * 31 + 17
  for i = 1, n do
    local h, g = hash(s, i, -1, 4), hash(s, i, -1, 5)
    local x, y = pick(h, span), pick(h >> 24, span)
    local dx, dy = pick(g, 48 * 64 + 1) - 24 * 64, pick(g >> 24, 48 * 64 + 1) - 24 * 64
    coords[#coords + 1], coords[#coords + 2] = x / 64, y / 64
    coords[#coords + 1], coords[#coords + 2] = (x + dx) / 64, (y + dy) / 64
  end
  return coords
end

-- The border a region needs so that regions answer what one layer would: every target an owned
-- watcher can see (within view + margin) and every disk an owned caster can touch (within
-- reach + the largest radius) lies in the neighbours' strips. Moves are applied before the
-- strips are taken, so no term for speed.
function rules:min_border()
  return math.max(self.view + self.margin, self.reach + self.max_r)
end

-- A seeded generator: Park-Miller with 64-bit integers (repeatable everywhere).
function rules.rng(seed)
  local s = seed & 0x7fffffff
  if s == 0 then s = 1 end
  return function()
    s = (s * 48271) % 0x7fffffff
    return s / 0x7fffffff
  end
end

-- The join/leave script: start with `entities`, then each tick up to `churn` joins and leaves.
-- Returns a function(tick) -> joins, leaves, where joins = { {id, x, y, r, team, view}, ... }
-- and leaves = { id, ... }. Tick 0 gives the initial population.
function rules:script(entities, churn)
  local g = rules.rng(self.seed * 7919 + 1)
  local alive, where, next_id = {}, {}, 1  -- alive: array of ids, where: id -> index in alive
  local function join(list)
    local id = next_id
    next_id = id + 1
    local x, y, r, team, view = self:spawn(g)
    list[#list + 1] = { id, x, y, r, team, view }
    alive[#alive + 1] = id
    where[id] = #alive
  end
  return function(tick)
    local joins, leaves = {}, {}
    if tick == 0 then
      for _ = 1, entities do join(joins) end
      return joins, leaves
    end
    for _ = 1, floor(g() * (churn + 1)) do
      if #alive == 0 then break end
      local k = 1 + floor(g() * #alive)
      local id = alive[k]
      alive[k], where[alive[#alive]] = alive[#alive], k
      alive[#alive], where[id] = nil, nil
      leaves[#leaves + 1] = id
    end
    for _ = 1, floor(g() * (churn + 1)) do join(joins) end
    return joins, leaves
  end
end

return rules
