-- The example scene (examples/scene) as a whole: every hit lies in its shape according to the
-- pure-Lua references, only enemies are hit, and the AOI events replay to the brute-force
-- visible sets at every tick.
package.path = "examples/?.lua;examples/?/init.lua;" .. package.path

local scene = require "scene"
local sector_ref = require "sector_reference"
local shape_ref = require "shapes_reference"
local pairs_ref = require "pairs_reference"

local function inside(c, p)
  local a, name = c.args, c.skill.name
  local x, y, r = p[1], p[2], p[3]
  if name == "cone" then return sector_ref.point_in(sector_ref.sector(table.unpack(a)), x, y) end
  if name == "nova" then return shape_ref.touch_circle(a[1], a[2], a[3], x, y, r) end
  if name == "wall" then return shape_ref.touch_box(a[1], a[2], a[3], a[4], x, y, r) end
  if name == "blade" then return shape_ref.touch_capsule(a[1], a[2], a[3], a[4], a[5], x, y, r) end
  if name == "trap" then
    -- The exact triangle reference needs coordinates on a 2^-10 grid, which scene positions are
    -- not; this is a sanity check with a small tolerance (exactness is shapes_spec's job).
    local f32 = require("float32").f32
    local function o(ax, ay, bx, by) return (f32(bx) - f32(ax)) * (y - f32(ay)) - (f32(by) - f32(ay)) * (x - f32(ax)) end
    local o1, o2, o3 = o(a[1], a[2], a[3], a[4]), o(a[3], a[4], a[5], a[6]), o(a[5], a[6], a[1], a[2])
    local eps = 1e-3
    return (o1 >= -eps and o2 >= -eps and o3 >= -eps) or (o1 <= eps and o2 <= eps and o3 <= eps)
  end
  return shape_ref.cast(a[1], a[2], a[3], a[4], x, y, r) ~= nil  -- arrow
end

describe("the example scene", function()
  describe("when 600 entities fight for 15 ticks", function()
    it("hits only enemies inside each skill's shape, and its AOI events match brute force", function()
      local world = scene.new({ entities = 600, size = 400, view = 40, margin = 4, cast_chance = 0.1, seed = 3 })
      local vis, truth = {}, {}
      local casts, hits, judged = 0, 0, 0
      local shapes_seen = {}
      -- The update before the first tick: everyone's first view.
      local strikes, notices = 0, 0
      local function key(a, b) return a .. " " .. b end
      -- Nobody struck down earlier in a tick casts in it (the casters are drawn first).
      local dead_casts, cast = 0, world.cast
      world.cast = function(self, skill, caster, ...)
        if (self.hp[caster] or 0) <= 0 then dead_casts = dead_casts + 1 end
        return cast(self, skill, caster, ...)
      end
      for tick = 1, 15 do
        local before_factions = {}
        for id, f in pairs(world.faction) do before_factions[id] = f end
        local before_hp = {}
        for id, hp in pairs(world.hp) do before_hp[id] = hp end
        local stats = world:tick()
        -- Hit notifications go to exactly the watchers that saw the caster at the last update.
        for _, note in ipairs(world.notices) do
          local want = {}
          for w, set in pairs(vis) do if set[note.caster] then want[#want + 1] = w end end
          table.sort(want)
          assert.are.same(want, note.seers)
          notices = notices + #note.seers
        end
        -- A trap strikes each living entity once, when their boxes begin to touch: exactly the
        -- (trap, entity) pairs among the contact events that began this tick (whose replay
        -- onto the last pairs contacts_spec checks against layer:pairs()).
        local began, nb = world.began, #world.began // 2
        local want = {}
        for i = 1, nb do
          local a, b = began[2 * i - 1], began[2 * i]
          local trap, victim = a, b
          if world.traps[b] then trap, victim = b, a end
          if world.traps[trap] and not world.traps[victim] then want[#want + 1] = { trap, victim } end
        end
        local struck = {}
        for _, st in ipairs(world.trap_strikes) do struck[key(st[1], st[2])] = true end
        for _, p in ipairs(want) do
          local alive = before_hp[p[2]] and before_hp[p[2]] > 0
          -- struck, unless it was already dead, or another trap this tick finished it first
          assert.is_true(struck[key(p[1], p[2])] or not alive or (world.hp[p[2]] or 0) <= 0, "not struck: " .. key(p[1], p[2]))
          struck[key(p[1], p[2])] = nil
        end
        assert.is_nil(next(struck), "a strike without a contact that began")
        strikes = strikes + #world.trap_strikes
        for _, c in ipairs(world.casts) do
          if c.tick then  -- an arrow judged at the tick its client showed
            judged = judged + 1
            assert.are.equal(math.max(1, tick - 1 - world.lag), c.tick)
          end
          casts = casts + 1
          shapes_seen[c.skill.name] = true
          for i, id in ipairs(c.hits) do
            hits = hits + 1
            assert.are_not.equal(before_factions[c.caster], before_factions[id])
            assert.is_true(inside(c, c.hit_pos[i]), c.skill.name .. " hit outside its shape")
          end
        end
        for i = 1, stats.leave do
          local w, t = world.leave[2 * i - 1], world.leave[2 * i]
          assert.is_true(vis[w] ~= nil and vis[w][t] == true)
          vis[w][t] = nil
        end
        for i = 1, stats.enter do
          local w, t = world.enter[2 * i - 1], world.enter[2 * i]
          vis[w] = vis[w] or {}
          vis[w][t] = true
        end
        local views = {}
        for id, f in pairs(world.faction) do if f == scene.PLAYER then views[id] = world.view end end
        truth = pairs_ref.visible(world.layer, views, world.margin, truth)
        for w, set in pairs(truth) do for t in pairs(set) do assert.is_true(vis[w] ~= nil and vis[w][t] == true) end end
        for w, set in pairs(vis) do for t in pairs(set) do assert.is_true(truth[w] ~= nil and truth[w][t] == true) end end
      end
      assert.are.equal(0, dead_casts)
      assert.is_true(casts > 50 and hits > 20 and judged > 0)
      assert.is_true(strikes > 0 and notices > 0, strikes .. " strikes, " .. notices .. " notices")
      for _, s in ipairs(scene.skills) do assert.is_true(shapes_seen[s.name], s.name .. " never cast") end
    end)
  end)

  describe("when players watch with caps and a band (interest options)", function()
    it("sends each player only its due pairs, of targets it sees, and counts the uncapped pairs beside", function()
      local interest = { max = 8, always = scene.PLAYER, band = 20, max_period = 3 }
      local function check(world, stats, label)
        -- sent: the due pairs, each of a player and a target in its capped view.
        local due, n = world.aoi:due({})
        assert.are.equal(n, stats.sent, label)
        local seen = {}
        for i = 1, n do
          local w, t = due[2 * i - 1], due[2 * i]
          assert.are.equal(scene.PLAYER, world.faction[w], label)
          seen[w] = seen[w] or {}
          if not seen[w].all then
            seen[w].all = true
            for _, v in ipairs((world.aoi:visible(w))) do seen[w][v] = true end
          end
          assert.is_true(seen[w][t] == true, label .. ": due pair " .. w .. ">" .. t .. " not in view")
        end
        -- uncapped: every pair the plain aoi sees; the capped views hold at most 8 non-players.
        local plain, sent_max = 0, 0
        for id, f in pairs(world.faction) do
          if f == scene.PLAYER and world.layer:get(id) then
            plain = plain + select(2, world.plain:visible(id))
            local others = 0
            local view, k = world.aoi:visible(id)
            for i = 1, k do if world.faction[view[i]] ~= scene.PLAYER then others = others + 1 end end
            assert.is_true(others <= interest.max, label)
            sent_max = sent_max + k
          end
        end
        assert.are.equal(plain, stats.uncapped, label)
        assert.is_true(stats.sent <= sent_max, label)
        return stats.sent, stats.uncapped
      end
      local east = scene.new({ entities = 3000, seed = 5, interest = interest })
      local west = scene.new({ entities = 0, traps = 0, seed = 6, interest = interest })
      local sent, uncapped = 0, 0
      for tick = 1, 12 do
        local s, u = check(east, east:tick(), "east tick " .. tick)
        sent, uncapped = sent + s, uncapped + u
      end
      assert.is_true(sent > 0 and 4 * sent < 3 * uncapped, sent .. " sent, " .. uncapped .. " uncapped")
      west:adopt(east:handoff())  -- the plain aoi follows the adopted region as the capped one
      for tick = 1, 4 do check(west, west:tick(), "west tick " .. tick) end
    end)
  end)

  describe("when a scene adopts another's region (a handoff)", function()
    it("strikes no victim again that already stood on a trap, and re-enters nothing", function()
      local east = scene.new({ entities = 5000, seed = 7 })
      local west = scene.new({ entities = 0, traps = 0, seed = 8 })
      local struck, last = {}, nil
      for _ = 1, 20 do
        last = east:tick()
        for _, st in ipairs(east.trap_strikes) do struck[st[1] .. ":" .. st[2]] = true end
      end
      local standing = 0  -- struck pairs still touching at the handoff
      for trap in pairs(east.traps) do
        for _, v in ipairs((east.contacts:touching(trap))) do
          if struck[trap .. ":" .. v] then standing = standing + 1 end
        end
      end
      west:adopt(east:handoff())
      assert.are.equal(0, #east.layer)
      west.rng = function(lo) return lo or 0.999 end  -- no casts, no turns: only the traps act
      local stats = west:tick()
      for _, st in ipairs(west.trap_strikes) do
        assert.is_nil(struck[st[1] .. ":" .. st[2]], "struck again: " .. st[1] .. ":" .. st[2])
      end
      assert.is_true(standing > 0)          -- there were victims standing on traps
      -- what the moves bring, as in east's ticks (before: 20,653, every pair entering again)
      assert.is_true(stats.enter < 2 * last.enter, stats.enter .. " enters")
    end)
  end)
end)
