-- A game scene on soageo, independent of skynet: players and monsters on one layer, AOI with
-- a view radius and margin, skills of every shape filtered by faction masks, damage, deaths;
-- hit notifications to whoever sees the caster (aoi:watchers_of), traps that strike what
-- steps on them (contact events), and walls: a cone only hits what its caster can see
-- (walls:visible) and an arrow stops at the first wall (walls:cast); a player's arrow is judged
-- against the tick its client showed (lag compensation: layer:history, layer:commit, layer:past). With opts.interest, players
-- watch with caps and a band (interest management): each tick a player is sent only the pairs
-- aoi:due lists, counted against what an uncapped view would send (every visible pair every tick).
-- examples/scene_sim.lua drives it on plain Lua; examples/skynet/ wraps it in a service.
local soageo = require "soageo"

local scene = {}
local World = {}
World.__index = World

local PLAYER, MONSTER = 1, 2          -- faction bits, used as entity masks
local TRAP = 4                        -- traps: no faction, so no skill hits them
local TRAP_DAMAGE = 15
local ENEMY = { [PLAYER] = MONSTER, [MONSTER] = PLAYER }
local pi, cos, sin = math.pi, math.cos, math.sin

scene.PLAYER, scene.MONSTER, scene.TRAP = PLAYER, MONSTER, TRAP

-- Skills: one per shape. `reach` is how far from the caster the shape extends.
scene.skills = {
  { name = "cone", damage = 30 },       -- in_sector: a frontal attack cone
  { name = "nova", damage = 20 },       -- touch_circle: an area spell around a point
  { name = "wall", damage = 25 },       -- touch_box: a rectangular zone
  { name = "blade", damage = 35 },      -- touch_capsule: a sweep with width
  { name = "trap", damage = 40 },       -- in_triangle: a triangular trap
  { name = "arrow", damage = 50 },      -- cast_segment: the first target on a line
}

-- What a state update of one entity costs on the wire in the counts below: id, x, y, hp,
-- heading, as 8-byte values.
scene.ENTITY_BYTES = 40

-- opts: entities, size (side of the square world), view (AOI radius), margin, seed, traps,
-- walls (how many wall segments, 20-80 long), lag (how many ticks behind the server a player's
-- client shows the world; default 2), interest (watch options for players, e.g.
-- { max = 8, always = scene.PLAYER, band = 20 }), walls_object (walls to use instead of the
-- ones drawn here, e.g. a shared view: examples/skynet/map.lua)
function scene.new(opts)
  opts = opts or {}
  local w = setmetatable({
    size = opts.size or 2000,
    view = opts.view or 60,
    margin = opts.margin or 5,
    cast_chance = opts.cast_chance or 0.02,
    seed = opts.seed or 1,
    layer = soageo.layer(opts.entities or 5000),
    hp = {}, faction = {}, heading = {},
    next_id = 1, tick_no = 0,
    casts = {},                  -- this tick's casts: { skill, shape args..., hits = {ids} }
    out = {}, out_t = {},        -- reused result tables: no garbage per query
    enter = {}, leave = {},
    traps = {},                  -- trap ids (negative): traps[id] = true
    began = {}, ended = {},      -- contact events, reused
    trap_strikes = {},           -- this tick's { trap, victim }
    notices = {},                -- this tick's hit notifications: { caster, target, seers = {ids} }
    seers = {},
    lag = opts.lag or 2,
    interest = opts.interest,    -- players' watch options (nil: uncapped, every pair sent)
    due = {},                    -- this tick's due pairs, reused
    plain_enter = {}, plain_leave = {},
  }, World)
  -- The ticks a player's arrow may be judged against (commit at the end of every tick).
  w.layer:history(math.max(1, w.lag + 1))
  w.rng = opts.rng or scene.rng(w.seed)
  w.aoi = soageo.aoi(w.layer, { margin = w.margin })
  w.contacts = soageo.contacts(w.layer)
  -- With interest options, an uncapped aoi beside the capped one counts what would be sent
  -- without them (its visible pairs, kept from its events).
  if w.interest then w.plain, w.plain_pairs = soageo.aoi(w.layer, { margin = w.margin }), 0 end
  for _ = 1, opts.entities or 5000 do w:spawn() end
  for i = 1, opts.traps or 20 do  -- static boxes of half-size 6 on the same layer
    w.layer:set(-i, w.rng(0, w.size), w.rng(0, w.size), 6, TRAP)
    w.traps[-i] = true
  end
  local coords = {}  -- static walls: x0, y0, x1, y1 each
  for _ = 1, opts.walls or w.size // 20 do
    local x, y, len, a = w.rng(0, w.size), w.rng(0, w.size), w.rng(20, 80), w.rng(0, 2 * pi)
    coords[#coords + 1], coords[#coords + 2] = x, y
    coords[#coords + 1], coords[#coords + 2] = x + len * cos(a), y + len * sin(a)
  end
  -- opts.walls_object: walls given by the caller (a view of walls a map service shared). The
  -- coordinates above are drawn either way, so that the rest of the scene draws the same
  -- numbers; the drawing (svg.lua) then takes the walls in use from the object.
  w.walls = opts.walls_object or soageo.walls(coords)
  if opts.walls_object then
    coords = {}
    for i = 1, #w.walls do
      local x0, y0, x1, y1 = w.walls:get(i)
      coords[4 * i - 3], coords[4 * i - 2], coords[4 * i - 1], coords[4 * i] = x0, y0, x1, y1
    end
  end
  w.wall_coords = coords
  return w
end

-- A small deterministic generator, so runs repeat across machines.
function scene.rng(seed)
  local s = seed & 0x7fffffff
  if s == 0 then s = 1 end
  return function(lo, hi)
    s = (s * 48271) % 0x7fffffff
    local u = s / 0x7fffffff
    if lo then return lo + (hi - lo) * u end
    return u
  end
end

function World:spawn(faction, x, y)
  local id = self.next_id
  self.next_id = id + 1
  local rnd = self.rng
  faction = faction or (rnd() < 0.3 and PLAYER or MONSTER)
  x, y = x or rnd(0, self.size), y or rnd(0, self.size)
  self.layer:set(id, x, y, faction == PLAYER and 1 or rnd(1, 4), faction)
  self.hp[id], self.faction[id], self.heading[id] = 100, faction, rnd(0, 2 * pi)
  if faction == PLAYER then self:watch(id) end
  return id
end

function World:watch(id)
  self.aoi:watch(id, self.view, nil, self.interest)
  if self.plain then self.plain:watch(id, self.view) end
end

function World:kill(id)
  self.layer:remove(id)
  if self.faction[id] == PLAYER then
    self.aoi:unwatch(id)
    if self.plain then self.plain:unwatch(id) end
  end
  self.hp[id], self.faction[id], self.heading[id] = nil, nil, nil
end

local function clamp(v, lo, hi) return v < lo and lo or (v > hi and hi or v) end

-- Everyone walks up to 2 units along a slowly turning heading.
function World:move_all()
  local rnd, layer, size, heading = self.rng, self.layer, self.size, self.heading
  for id, x, y in layer:each() do
    if heading[id] == nil then goto trap end  -- traps stay put
    local h = heading[id] + rnd(-0.3, 0.3)
    heading[id] = h
    layer:move(id, clamp(x + 2 * cos(h), 0, size), clamp(y + 2 * sin(h), 0, size))
    ::trap::
  end
end

-- Traps strike whoever began touching them since the last tick: one contacts:update gives
-- exactly the pairs that began (or stopped) overlapping, so standing on a trap hurts once.
function World:spring_traps(dead)
  local began, ended, n = self.contacts:update(self.began, self.ended)
  self.began, self.ended = began, ended
  local strikes, traps, hp = {}, self.traps, self.hp
  for i = 1, n do
    local a, b = began[2 * i - 1], began[2 * i]
    local trap, victim = a, b
    if traps[b] then trap, victim = b, a end
    if traps[trap] and not traps[victim] and hp[victim] and hp[victim] > 0 then
      strikes[#strikes + 1] = { trap, victim }
      hp[victim] = hp[victim] - TRAP_DAMAGE
      if hp[victim] <= 0 then dead[#dead + 1] = victim end
    end
  end
  self.trap_strikes = strikes
  return #strikes
end

-- Casts one skill from (x, y) facing h; returns the cast record with its hit ids.
function World:cast(skill, caster, x, y, h)
  local layer, out, mask = self.layer, self.out, ENEMY[self.faction[caster]]
  local dx, dy = cos(h), sin(h)
  local c = { skill = skill, caster = caster, hits = {} }
  local n
  if skill.name == "cone" then
    c.args = { x, y, dx, dy, 80, pi / 5 }
    out, n = layer:in_sector(x, y, dx, dy, 80, pi / 5, out, mask)
    out, n = self.walls:visible(x, y, layer, out, n, out)  -- only what the caster sees
  elseif skill.name == "nova" then
    c.args = { x + 40 * dx, y + 40 * dy, 35 }
    out, n = layer:touch_circle(c.args[1], c.args[2], 35, out, mask)
  elseif skill.name == "wall" then
    local cx, cy = x + 50 * dx, y + 50 * dy
    c.args = { cx - 30, cy - 12, cx + 30, cy + 12 }
    out, n = layer:touch_box(c.args[1], c.args[2], c.args[3], c.args[4], out, mask)
  elseif skill.name == "blade" then
    c.args = { x, y, x + 70 * dx, y + 70 * dy, 8 }
    out, n = layer:touch_capsule(x, y, c.args[3], c.args[4], 8, out, mask)
  elseif skill.name == "trap" then
    local ax, ay = x + 20 * dx, y + 20 * dy
    c.args = { ax, ay, ax + 60 * cos(h + 0.5), ay + 60 * sin(h + 0.5), ax + 60 * cos(h - 0.5), ay + 60 * sin(h - 0.5) }
    out, n = layer:in_triangle(c.args[1], c.args[2], c.args[3], c.args[4], c.args[5], c.args[6], out, mask)
  else  -- arrow: the first enemy whose box the shot crosses, before the first wall
    local ex, ey = x + 150 * dx, y + 150 * dy
    local t = self.walls:cast(x, y, ex, ey)
    if t then ex, ey, c.wall_t = x + t * (ex - x), y + t * (ey - y), t end
    -- A player aimed at what its client showed, `lag` ticks ago: the shot is judged against
    -- the layer as committed then (the shooter shoots from where it stands now).
    if self.faction[caster] == PLAYER then
      local _, oldest, newest = layer:history()
      if newest then
        layer = layer:past(math.max(oldest, newest - self.lag))
        c.tick = layer:tick()
      end
    end
    c.args = { x, y, ex, ey }
    local id, t = layer:cast_segment_first(x, y, c.args[3], c.args[4], mask)
    if id then out[1], n, c.t = id, 1, t else n = 0 end
  end
  c.hit_pos = {}
  for i = 1, n do
    c.hits[i] = out[i]
    c.hit_pos[i] = { layer:get(out[i]) }  -- where it was hit (then, for a judged arrow)
  end
  self.casts[#self.casts + 1] = c
  return c
end

-- One tick: move, cast, apply damage, remove the dead, update AOI. Returns statistics.
function World:tick()
  local clock = os.clock()
  self.tick_no = self.tick_no + 1
  self.casts = {}
  self:move_all()
  local rnd, skills, layer = self.rng, scene.skills, self.layer
  local casters = {}
  for id in layer:each() do
    if rnd() < self.cast_chance then casters[#casters + 1] = id end
  end
  local hits, dead = 0, {}
  local strikes = self:spring_traps(dead)
  local notices, aoi = {}, self.aoi
  for _, id in ipairs(casters) do
    local caster_hp = self.hp[id]
    if caster_hp and caster_hp > 0 then  -- not struck down earlier this tick
      local x, y = layer:get(id)
      local skill = skills[1 + (id + self.tick_no) % #skills]
      local c = self:cast(skill, id, x, y, self.heading[id])
      for _, target in ipairs(c.hits) do
        local hp = self.hp[target]
        if hp and hp > 0 then
          hits = hits + 1
          -- Everyone who saw the caster at the last update hears of the hit.
          local seers, k = aoi:watchers_of(id, self.seers)
          notices[#notices + 1] = { caster = id, target = target, seers = table.move(seers, 1, k, 1, {}) }
          hp = hp - skill.damage
          self.hp[target] = hp
          if hp <= 0 then dead[#dead + 1] = target end
        end
      end
    end
  end
  for _, id in ipairs(dead) do self:kill(id) end
  for _ = 1, #dead do self:spawn() end   -- keep the population steady
  local enter, leave, n_enter, n_leave = self.aoi:update(self.enter, self.leave)
  self.enter, self.leave = enter, leave
  -- What each player is sent this tick: the due pairs (all its visible pairs when uncapped).
  local due, sent = aoi:due(self.due)
  self.due = due
  local uncapped = sent
  if self.plain then
    local _, _, e, l = self.plain:update(self.plain_enter, self.plain_leave)
    self.plain_pairs = self.plain_pairs + e - l
    uncapped = self.plain_pairs
  end
  self.notices = notices
  layer:commit()
  local heard = 0
  for _, n in ipairs(notices) do heard = heard + #n.seers end
  return {
    tick = self.tick_no, entities = #layer, casts = #casters, hits = hits, deaths = #dead,
    enter = n_enter, leave = n_leave, strikes = strikes, notices = heard, ms = (os.clock() - clock) * 1000,
    sent = sent, uncapped = uncapped,
  }
end

-- A region changes owner: the layer leaves as a string (full userdata cannot cross
-- skynet.pack or a cluster link) with the per-entity state the layer does not hold, and this
-- world empties (its traps go with the region). Returns snapshot, hp, heading.
function World:handoff()
  local snapshot = self.layer:dump()
  local hp, heading, ids = {}, {}, {}
  for id in self.layer:each() do
    ids[#ids + 1] = id
    hp[id], heading[id] = self.hp[id], self.heading[id]
  end
  for _, id in ipairs(ids) do
    self:kill(id)
    self.traps[id] = nil
  end
  return snapshot, hp, heading
end

-- Takes over the entities of a handoff with their ids, positions, radii and masks (the mask is
-- the faction, or TRAP). A world that adopts a region starts empty (traps = 0).
function World:adopt(snapshot, hp, heading)
  local incoming = soageo.load(snapshot)
  for id, x, y, r, mask in incoming:each() do
    self.layer:set(id, x, y, r, mask)
    if mask == TRAP then
      self.traps[id] = true
    else
      self.hp[id], self.faction[id], self.heading[id] = hp[id], mask, heading[id]
      if mask == PLAYER then self:watch(id) end
      if id >= self.next_id then self.next_id = id + 1 end
    end
  end
  incoming:close()
  -- The adopted entities go on as they were: a trap already touched has struck, a player already
  -- sees what is around it. One update of each, its events dropped, starts from there (else the
  -- first tick would strike every standing victim again and re-enter every target).
  self.contacts:update()
  self.aoi:update()
  if self.plain then
    local _, _, e, l = self.plain:update()
    self.plain_pairs = self.plain_pairs + e - l
  end
end

scene.World = World
return scene
