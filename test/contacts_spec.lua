local soageo = require "soageo"
local rng = require "rng"
local util = require "spec_util"

-- Events are replayed onto pair sets (spec_util), compared with the set of layer:pairs().
local set_of, replay, same = util.pair_set, util.replay, util.same_pair_sets
-- Pairs come ascending, each (a, b) with a < b.
local function sorted_flat(list, n) return util.sorted_pairs(list, n, true) end

-- A layer of n entities (ids 1..n) uniform in [0, span]^2 drawn from g, of radius r (a number,
-- or a function drawing each one's after its position).
local function crowd(g, n, span, r)
  local l = soageo.layer()
  for i = 1, n do
    local x, y = g:uniform(0, span), g:uniform(0, span)
    l:set(i, x, y, type(r) == "function" and r() or r)
  end
  return l
end

util.each_target(describe, setup, teardown, function(arch) return "when the " .. arch .. " target runs contact events" end, function(arch)

  it("gives events that, replayed onto the last pairs, give layer:pairs() exactly", function()
    local g = rng.new(40)
    local l = soageo.layer()
    local c = soageo.contacts(l)
    local next_id = 1
    for _ = 1, 300 do l:set(next_id, g:uniform(0, 200), g:uniform(0, 200), g:uniform(0, 6)); next_id = next_id + 1 end
    local current, began, ended, out, adj = {}, {}, {}, {}, {}
    for tick = 1, 30 do
      -- removed entities' pairs end; one comes back, or jumps, with a radius up to 12
      next_id = util.churn(l, g, next_id, {
        step = 2, k = 4, span = 200, radius = function(jump) return g:uniform(0, jump and 12 or 6) end,
      })
      local nb, ne
      began, ended, nb, ne = c:update(began, ended)
      assert.is_true(sorted_flat(began, nb) and sorted_flat(ended, ne), "tick " .. tick)
      assert.are.equal(2 * nb, #began)
      assert.are.equal(2 * ne, #ended)
      replay(current, began, nb, ended, ne)
      local want, np = l:pairs()
      assert.is_true(same(current, set_of(want, np)), "tick " .. tick)
      if tick % 7 == 0 then  -- nothing changed since: no events, and empty tables
        local b, e, nb0, ne0 = c:update(began, ended)
        assert.are.equal(0, nb0 + ne0)
        assert.is_nil(b[1] or e[1])
      end
      -- touching: every entity's neighbours, from the pair list, ascending.
      for k in pairs(adj) do adj[k] = nil end
      for i = 1, np do
        local a, b = want[2 * i - 1], want[2 * i]
        adj[a] = adj[a] or {}; adj[a][#adj[a] + 1] = b
        adj[b] = adj[b] or {}; adj[b][#adj[b] + 1] = a
      end
      out = util.check_lists(assert, c, "touching", adj, next_id, out)
    end
  end)
end)

describe("soageo.contacts", function()
  describe("when few entities change per tick (the incremental path)", function()
    it("still replays onto layer:pairs() exactly, touching boxes and huge ones included", function()
      local g = rng.new(43)
      for _, scene in ipairs({
        -- (the path is taken from 2,048 entities on)
        { span = 300, n = 2500, r = function() return g:uniform(0, 5) end },  -- crowded, just past it
        { span = 2000, n = 40000, r = function() return g:int(0, 4) end, int = true },  -- exact touches
        { span = 3000, n = 40000, r = function() return g:uniform(0, 6) end },
        { span = 1e7, n = 33000, r = function() return g:uniform(0, 2e4) end, base = 3e7 },  -- coarse floats
        { span = 2500, n = 36000, r = function() return g:int(1, 3) == 1 and 0 or g:uniform(0, 8) end },  -- points
      }) do
        local l = soageo.layer()
        local base = scene.base or 0
        local function coord() return base + (scene.int and g:int(0, scene.span) or g:uniform(0, scene.span)) end
        for i = 1, scene.n do l:set(i, coord(), coord(), scene.r()) end
        local c = soageo.contacts(l)
        local current, began, ended = {}, {}, {}
        for tick = 1, 12 do
          if tick % 8 == 5 then l:set(g:int(1, scene.n), coord(), coord(), scene.span / 3) end  -- one huge box
          local movers = tick % 6 == 0 and scene.n // 2 or g:int(0, scene.n // 40)  -- sometimes too many
          for _ = 1, movers do
            local id = g:int(1, scene.n)
            local x, y, r = l:get(id)
            local step = scene.int and g:int(-2, 2) or g:uniform(-2, 2) * (scene.span / 300)
            if not x then -- removed earlier
            elseif g:int(1, 5) == 1 then l:set(id, x, y, scene.r())           -- a new radius only
            else l:move(id, x + step, y + step * 0.5) end
          end
          if tick % 9 == 0 then l:remove(g:int(1, scene.n)); l:set(scene.n + tick, coord(), coord(), scene.r()) end
          local nb, ne
          began, ended, nb, ne = c:update(began, ended)
          assert.is_true(sorted_flat(began, nb) and sorted_flat(ended, ne))
          replay(current, began, nb, ended, ne)
          local want, np = l:pairs()
          assert.is_true(same(current, set_of(want, np)), "scene " .. scene.span .. " tick " .. tick)
          if tick % 4 == 0 then
            local _, k = c:touching(1)
            local degree = 0
            for i = 1, 2 * np do if want[i] == 1 then degree = degree + 1 end end
            assert.are.equal(degree, k)
          end
        end
        c:close()  -- large layers: freed now, so that later finalizer specs meet a small heap
        l:close()
      end
      collectgarbage()
    end)
  end)

  describe("when a box's float32 bound overflows to infinity", function()
    it("still replays onto layer:pairs() exactly on the incremental path", function()
      local g = rng.new(47)
      local l = soageo.layer()
      for i = 1, 3000 do l:set(i, (i % 60) * 10, (i // 60) * 10, 1) end
      l:set(9001, 3e38, 0, 3e38)  -- x + r is +inf in float32: a box as wide as the world
      local c = soageo.contacts(l)
      local current, began, ended = {}, {}, {}
      for tick = 1, 8 do
        for _ = 1, 40 do l:move(g:int(1, 3000), g:uniform(-10, 610), g:uniform(-10, 510)) end
        if tick == 4 then l:set(9002, -3e38, 100, 3e38) end  -- and one whose x - r is -inf
        if tick == 6 then l:set(9003, -78.5, 2e19, 0.1) end  -- far away, inside both
        local nb, ne
        began, ended, nb, ne = c:update(began, ended)
        replay(current, began, nb, ended, ne)
        local want, np = l:pairs()
        assert.is_true(same(current, set_of(want, np)), "tick " .. tick)
        local degree = 0
        for i = 1, 2 * np do if want[i] == 1 or want[i] == 9001 then degree = degree + 1 end end
        assert.are.equal(degree, select(2, c:touching(1)) + select(2, c:touching(9001)))
      end
      assert.is_true(c:stats().incremental >= 5)
    end)
  end)

  -- Entities die and spawn on most ticks of a real scene: the incremental path ranks the ids
  -- again and maps the last pairs to them, instead of a sweep. Removes that move the last
  -- slot's entity, an id removed and set again elsewhere in the same tick, spawns on top of
  -- others, a removed one coming back.
  describe("when entities die and spawn between updates", function()
    it("stays incremental and replays onto layer:pairs() exactly", function()
      local g = rng.new(45)
      local l = soageo.layer()
      local n, next_id = 4000, 4001
      for i = 1, n do l:set(i, g:uniform(0, 1200), g:uniform(0, 1200), g:uniform(0, 8)) end
      local c = soageo.contacts(l)
      local st = c:stats()
      local current, began, ended, gone = {}, {}, {}, {}
      for tick = 1, 20 do
        for id, x, y in l:each() do
          if g:uniform(0, 1) < 0.05 then l:move(id, x + g:uniform(-2, 2), y + g:uniform(-2, 2)) end
        end
        local dying, where = {}, {}
        for _ = 1, g:int(1, 6) do
          local id = g:int(1, next_id - 1)
          if l:has(id) then where[id] = { l:get(id) }; l:remove(id); dying[#dying + 1] = id end
        end
        for _ = 1, g:int(1, 6) do
          local pick, id = g:int(1, 4)
          if pick == 1 and #gone > 0 then id = table.remove(gone, g:int(1, #gone))  -- back, elsewhere
          elseif pick == 2 and #dying > 0 then id = table.remove(dying, 1)          -- back at once, in place
          else id, next_id = next_id, next_id + 1 end
          local near = g:int(1, n)  -- on top of another entity, often
          local x, y = l:get(near)
          if not x then x, y = g:uniform(0, 1200), g:uniform(0, 1200) end
          if where[id] then
            l:set(id, where[id][1], where[id][2], where[id][3])
          else
            l:set(id, x + g:uniform(-3, 3), y + g:uniform(-3, 3), g:uniform(0, 8))
          end
        end
        for _, id in ipairs(dying) do gone[#gone + 1] = id end
        local nb, ne
        began, ended, nb, ne = c:update(began, ended)
        assert.is_true(sorted_flat(began, nb) and sorted_flat(ended, ne), "tick " .. tick)
        replay(current, began, nb, ended, ne)
        local want, np = l:pairs()
        assert.is_true(same(current, set_of(want, np)), "tick " .. tick)
        c:stats(st)
        assert.are.same({ 1, tick - 1 }, { st.full, st.incremental }, "tick " .. tick)
        local id = g:int(1, next_id - 1)
        local out, k = c:touching(id)
        local degree = 0
        for i = 1, 2 * np, 2 do
          if want[i] == id or want[i + 1] == id then degree = degree + 1 end
        end
        assert.are.equal(degree, k, "touching, tick " .. tick)
      end
      -- The grid took the adds and removes in: built again only when the movers drifted.
      assert.is_true(st.grids < 10, st.grids .. " grids in 20 ticks")
      c:close()
      l:close()
    end)
  end)

  describe("when asked which path its updates took (stats)", function()
    it("counts the incremental path when a tenth moves and the full one when all move", function()
      local g, n = rng.new(44), 3000
      local l = crowd(g, n, 1000, function() return g:uniform(0, 8) end)
      local c = soageo.contacts(l)
      local st = c:stats()
      local function paths() return { full = st.full, incremental = st.incremental } end
      assert.are.same({ full = 0, incremental = 0, grids = 0 }, st)
      local current, began, ended = {}, {}, {}
      local function tick(fraction)
        for id = 1, n do
          if fraction >= 1 or g:uniform(0, 1) < fraction then
            local x, y = l:get(id)
            l:move(id, x + g:uniform(-2, 2), y + g:uniform(-2, 2))
          end
        end
        local nb, ne
        began, ended, nb, ne = c:update(began, ended)
        replay(current, began, nb, ended, ne)
        local want, np = l:pairs()
        assert.is_true(same(current, set_of(want, np)))
        return nb + ne
      end
      tick(1)  -- the first update: every pair begins, by a sweep
      assert.are.equal(st, c:stats(st))
      assert.are.same({ full = 1, incremental = 0 }, paths())
      local events = 0
      for t = 1, 6 do
        events = events + tick(0.1)
        c:stats(st)
        assert.are.same({ full = 1, incremental = t }, paths())
      end
      assert.is_true(events > 0)
      -- The incremental path keeps its grid: a tick where nothing moved builds none.
      local grids = st.grids
      assert.is_true(grids >= 1 and grids <= 6, grids .. " grids")
      assert.are.equal(0, tick(0))
      assert.are.same({ full = 1, incremental = 7, grids = grids }, c:stats(st))
      for t = 1, 3 do
        tick(1)
        c:stats(st)
        assert.are.same({ full = 1 + t, incremental = 7 }, paths())
      end
      tick(0.1)
      c:stats(st)
      assert.are.same({ full = 4, incremental = 8 }, paths())
      l:set(n + 1, 5, 5, 1)  -- a new id: the ids are ranked again, still incremental
      tick(0)
      c:stats(st)
      assert.are.same({ full = 4, incremental = 9 }, paths())
      for id = n + 2, n + 80 do l:set(id, g:uniform(0, 1000), g:uniform(0, 1000), 1) end  -- past 64 new ids: a sweep
      tick(0)
      c:stats(st)
      assert.are.same({ full = 5, incremental = 9 }, paths())
      assert.has_error(function() c:stats(1) end, "bad argument #1 to 'stats' (table or nil expected, got number)")
      c:close()
      assert.has_error(function() c:stats() end, "calling 'stats' on bad self (contacts is closed)")
    end)
  end)

  describe("when movers drift from the cells its grid filed them under", function()
    it("still finds every pair, and builds the grid again only now and then", function()
      -- Boxes all as wide as the widest (the grid's cells), two groups crossing each other
      -- slower than a quarter cell a tick: a pair begins at the edge of a search window,
      -- where a box filed before it moved would be missed if windows did not follow drift.
      local g, n = rng.new(45), 3000
      local l = crowd(g, n, 500, 4)
      local c = soageo.contacts(l)
      local current, began, ended = {}, {}, {}
      local st = {}
      local events = 0
      for tick = 1, 40 do
        for id = 1, n // 10 do
          local x, y = l:get(id)
          local dir = id % 2 == 0 and 1 or -1
          l:move(id, x + 0.45 * dir, y - 0.3 * dir)
        end
        local nb, ne
        began, ended, nb, ne = c:update(began, ended)
        replay(current, began, nb, ended, ne)
        local want, np = l:pairs()
        assert.is_true(same(current, set_of(want, np)), "tick " .. tick)
        if tick > 1 then events = events + nb + ne end
      end
      c:stats(st)
      assert.are.same({ 1, 39 }, { st.full, st.incremental })
      assert.is_true(st.grids >= 2 and st.grids <= 20, st.grids .. " grids")
      assert.is_true(events > 100, events .. " events")
    end)
  end)

  describe("when the layer holds more than 65,536 entities and its ids change", function()
    it("still replays onto layer:pairs() exactly (the 64-bit ordering path and the rank remap)", function()
      local g = rng.new(41)
      local l = soageo.layer()
      local ids, xs, ys, rs = {}, {}, {}, {}
      for i = 1, 70000 do
        ids[i], xs[i], ys[i], rs[i] = i * 7 - 300000, g:uniform(0, 3000), g:uniform(0, 3000), g:uniform(0, 6)
      end
      l:set_many(ids, xs, ys, rs)
      local c = soageo.contacts(l)
      local current = {}
      for tick = 1, 3 do
        local began, ended, nb, ne = c:update()
        replay(current, began, nb, ended, ne)
        local want, np = l:pairs()
        assert.is_true(same(current, set_of(want, np)), "tick " .. tick)
        for i = 1, 500 do l:remove(ids[g:int(1, #ids)]) end
        for i = 1, 500 do l:set(math.maxinteger - i * tick, g:uniform(0, 3000), g:uniform(0, 3000), 5) end
        for i = 1, 2000 do
          local id = ids[g:int(1, #ids)]
          local x, y = l:get(id)
          if x then l:move(id, x + g:uniform(-3, 3), y + g:uniform(-3, 3)) end
        end
      end
    end)
  end)

  describe("when the layer is emptied and refilled", function()
    it("ends every pair, then begins them again", function()
      local l = soageo.layer()
      for i = 1, 10 do l:set(i, i, 0, 1) end
      local c = soageo.contacts(l)
      local _, _, nb = c:update()
      assert.are.equal(9 + 8, nb)  -- neighbours at distance 1 and 2 touch (boxes of half-size 1)
      l:clear()
      local _, ended, nb2, ne = c:update()
      assert.are.equal(0, nb2)
      assert.are.equal(17, ne)
      assert.are.same({ 1, 2, 1, 3, 2, 3 }, { table.unpack(ended, 1, 6) })
      assert.are.same({}, (c:touching(1)))
    end)
  end)

  describe("when given bad input", function()
    it("raises clear errors", function()
      local l = soageo.layer()
      local c = soageo.contacts(l)
      assert.has_error(function() soageo.contacts({}) end, "bad argument #1 to 'contacts' (soageo.layer expected, got table)")
      assert.has_error(function() soageo.contacts() end, "bad argument #1 to 'contacts' (soageo.layer expected, got no value)")
      assert.has_error(function() c:update(5) end, "bad argument #1 to 'update' (table or nil expected, got number)")
      assert.has_error(function() c:update({}, "x") end, "bad argument #2 to 'update' (table or nil expected, got string)")
      local t = {}
      assert.has_error(function() c:update(t, t) end, "bad argument #2 to 'update' (ended must be another table than began)")
      assert.has_error(function() c:touching(1.5) end, "bad argument #1 to 'touching' (id must be an integer)")
      assert.has_error(function() c:touching("1") end, "bad argument #1 to 'touching' (integer expected, got string)")
      assert.has_error(function() c:touching(1, 2) end, "bad argument #2 to 'touching' (table or nil expected, got number)")
      assert.has_error(function() c.update(l) end, "bad argument #1 to 'update' (soageo.contacts expected, got soageo.layer)")
    end)
    it("refuses every method but close once its layer is closed", function()
      local l = soageo.layer()
      l:set(1, 0, 0, 1); l:set(2, 1, 0, 1)
      local c = soageo.contacts(l)
      c:update()
      l:close()
      util.refuses_without_layer(assert, c, "contacts", { update = {}, touching = { 1 }, stats = {} },
        "the contacts' layer is closed", "touching")
    end)
    it("refuses use after close, and after its layer is closed", function()
      local l = soageo.layer()
      l:set(1, 0, 0, 1)
      local c = soageo.contacts(l)
      c:update()
      l:close()
      assert.has_error(function() c:update() end, "the contacts' layer is closed")
      assert.has_error(function() soageo.contacts(l) end, "bad argument #1 to 'contacts' (layer is closed)")
      c:close()
      c:close()
      assert.has_error(function() c:update() end, "calling 'update' on bad self (contacts is closed)")
      assert.has_error(function() c:touching(1) end, "calling 'touching' on bad self (contacts is closed)")
      assert.matches("closed", tostring(c))
      do
        local m = soageo.layer()
        local d <close> = soageo.contacts(m)
        d:update()
      end
    end)
  end)

  describe("when a burst of contacts is over", function()
    it("gives the event buffers back", function()
      local g = rng.new(42)
      local l = soageo.layer()
      for i = 1, 2000 do l:set(i, g:uniform(0, 60), g:uniform(0, 60), 3) end
      local c = soageo.contacts(l)
      local _, _, nb = c:update()  -- every pair begins at once
      c:update()  -- the second frame grows to the steady pair count
      collectgarbage(); collectgarbage()
      local after_burst = collectgarbage("count")
      local b, e = {}, {}
      for _ = 1, 40 do b, e = c:update(b, e) end
      collectgarbage(); collectgarbage()
      assert.is_true(nb > 50000, nb .. " pairs")
      local freed = after_burst - collectgarbage("count")
      assert.is_true(freed > 0.75 * nb * 16 / 1024, freed .. " KB given back")
    end)
  end)
end)
