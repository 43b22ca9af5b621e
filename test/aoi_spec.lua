local soageo = require "soageo"
local rng = require "rng"
local util = require "spec_util"
local ref = require "pairs_reference"

-- Visible sets are pair sets vis[watcher][target] (spec_util).
local replay, same_sets, sorted_flat = util.replay, util.same_pair_sets, util.sorted_pairs

-- One update checked against brute force: its events come sorted and, replayed onto the last
-- sets (vis), give the new ones. Returns the event tables, the new sets and who sees whom.
local function checked_update(aoi, l, enter, leave, vis, views, margin, truth, wmasks, label)
  local ne, nl
  enter, leave, ne, nl = aoi:update(enter, leave)
  assert.is_true(sorted_flat(enter, ne) and sorted_flat(leave, nl), label)
  replay(vis, enter, ne, leave, nl)
  truth = ref.visible(l, views, margin, truth, wmasks)
  assert.is_true(same_sets(vis, truth), label)
  local seers = {}
  for w, set in pairs(truth) do
    for t in pairs(set) do seers[t] = seers[t] or {}; table.insert(seers[t], w) end
  end
  return enter, leave, truth, seers
end

for _, arch in ipairs(soageo.archs()) do
  for _, margin in ipairs({ 0, 4 }) do
    describe("when the " .. arch .. " target runs AOI with margin " .. margin, function()
      util.use_target(arch, setup, teardown)

      -- A generator seeded by seed and the margin, an empty layer and an aoi of it.
      local function start(seed)
        local l = soageo.layer()
        return rng.new(seed + margin), l, soageo.aoi(l, { margin = margin })
      end

      it("reproduces the brute-force visible sets at every tick", function()
        local g, l, aoi = start(100)
        local views, next_id = {}, 1
        for _ = 1, 250 do
          l:set(next_id, g:uniform(0, 250), g:uniform(0, 250), 0)
          if g:int(1, 3) == 1 then views[next_id] = g:uniform(5, 30); aoi:watch(next_id, views[next_id]) end
          next_id = next_id + 1
        end
        local vis, truth, enter, leave = {}, {}, {}, {}
        for tick = 1, 25 do
          -- removed entities leave views; a removed id comes back, or one jumps
          next_id = util.churn(l, g, next_id, { step = 3, k = 3, span = 250 })
          for _ = 1, 3 do
            local w = g:int(1, next_id)
            if views[w] and g:int(1, 2) == 1 then views[w] = nil; aoi:unwatch(w)  -- a watcher goes away
            elseif l:has(w) then views[w] = g:uniform(5, 30); aoi:watch(w, views[w]) end  -- a new one, or a new radius
          end
          enter, leave, truth = checked_update(aoi, l, enter, leave, vis, views, margin, truth, nil, "tick " .. tick)
          for wid in pairs(views) do
            local list, n = aoi:visible(wid)
            local count = 0
            for _ in pairs(truth[wid] or {}) do count = count + 1 end
            assert.are.equal(count, n)
            for i = 1, n do assert.is_true(truth[wid][list[i]]) end
          end
        end
      end)

      -- Few entities change per tick, so most updates take the incremental path (which keeps the
      -- last full update's buckets and changes the visible lists in place); adds, removes, ids
      -- back at other slots, watch/unwatch, jumps and the drift of many small moves send some
      -- ticks down the full path, and the next ones come back. Integer coordinates and views put
      -- many targets exactly on view circles, half of them near (1e7, -1e7).
      it("reproduces brute force at every tick when few entities change", function()
        local g, l, aoi = start(700)
        local views, wmasks, next_id = {}, {}, 1
        local masks = { 1, 2, 3, 0xffffffff, 0 }
        local worlds = { { 0, 0 }, { 1e7, -1e7 } }
        local function place(w)
          w = worlds[w or g:int(1, 2)]
          return w[1] + g:int(0, 60), w[2] + g:int(0, 60)
        end
        local function watch(id)
          views[id] = g:int(1, 12) == 1 and 1000 or g:int(3, 15)  -- 1000: wider than a cell
          if g:int(1, 3) == 1 then wmasks[id] = nil; aoi:watch(id, views[id])
          else wmasks[id] = masks[g:int(1, #masks)]; aoi:watch(id, views[id], wmasks[id]) end
        end
        local function some_id()
          local id = g:int(1, next_id - 1)
          if l:has(id) then return id end
        end
        for _ = 1, 300 do
          local x, y = place()
          l:set(next_id, x, y, 0, masks[g:int(1, #masks)])
          if g:int(1, 2) == 1 then watch(next_id) end
          next_id = next_id + 1
        end
        local vis, truth, enter, leave, out = {}, {}, {}, {}, {}
        for tick = 1, 60 do
          if tick > 1 then
            for _ = 1, g:int(0, 12) do  -- a few steps on the lattice
              local id = some_id()
              if id then local x, y = l:get(id); l:move(id, x + g:int(-1, 1), y + g:int(-1, 1)) end
            end
            if g:int(1, 3) == 1 then  -- a layer mask changes in place
              local id = some_id()
              if id then local x, y = l:get(id); l:set(id, x, y, 0, masks[g:int(1, #masks)]) end
            end
            if g:int(1, 3) == 1 then  -- a watcher changes its view or its filter
              local id = some_id()
              if id and views[id] then watch(id) end
            end
            if g:int(1, 8) == 1 then  -- a jump, maybe to the other world
              local id = some_id()
              if id then l:move(id, place()) end
            end
            if tick % 9 == 0 then
              for _ = 1, 2 do local id = some_id(); if id then l:remove(id) end end
              for _ = 1, 2 do
                local x, y = place()
                l:set(next_id, x, y, 0, masks[g:int(1, #masks)]); next_id = next_id + 1
              end
              local id = g:int(1, next_id - 1)
              if not l:has(id) then l:set(id, place()) end  -- a removed id comes back, at another slot
              id = some_id()
              if id and views[id] then views[id], wmasks[id] = nil, nil; aoi:unwatch(id)
              elseif id then watch(id) end
            end
            if tick % 13 == 0 then  -- the same ids, at other slots
              local a, b = some_id(), some_id()
              if a and b and a ~= b then
                local ax, ay, ar, am = l:get(a)
                local bx, by, br, bm = l:get(b)
                l:remove(a); l:remove(b); l:set(b, bx, by, br, bm); l:set(a, ax, ay, ar, am)
              end
            end
          end
          local seers
          enter, leave, truth, seers = checked_update(aoi, l, enter, leave, vis, views, margin, truth, wmasks, "tick " .. tick)
          for id = 1, next_id do
            local want = {}
            for t in pairs(truth[id] or {}) do want[#want + 1] = t end
            table.sort(want)
            local n
            out, n = aoi:visible(id, out)
            assert.are.same(want, out, "visible, tick " .. tick)
            want = seers[id] or {}
            table.sort(want)
            out, n = aoi:watchers_of(id, out)
            assert.are.equal(#want, n)
            assert.are.same(want, out, "watchers_of, tick " .. tick)
          end
        end
      end)

      if margin == 0 then
        -- The incremental update keeps the buckets of the last full one: a target bucketed in
        -- the row past a watcher's circle that has since come into view must still be found by
        -- the watcher's rescan (cells are twice the median reach tall: rows end at y = 0, 20).
        it("finds a target that came into view from a row the circle does not reach", function()
          local l = soageo.layer()
          local aoi = soageo.aoi(l)
          local views = {}
          for i = 1, 3000 do  -- elsewhere, filling the buckets between
            l:set(i, 1000 + 13 * (i % 300), 1000 + 17 * (i // 300))
            if i <= 16 then views[i] = 10; aoi:watch(i, 10) end
          end
          l:set(100, 0, 9.5); views[100] = 10; aoi:watch(100, 10)
          l:set(101, 0, 21.75)  -- two units past the row edge, 12.25 from the watcher
          local vis = {}
          local enter, leave, ne, nl = aoi:update()
          replay(vis, enter, ne, leave, nl)
          l:move(101, 0, 19.5)  -- 9.75 from the watcher once it moves too
          l:move(100, 0.25, 9.75)
          enter, leave, ne, nl = aoi:update()
          replay(vis, enter, ne, leave, nl)
          assert.is_true(same_sets(vis, ref.visible(l, views, 0, {})))
          assert.is_true(vis[100][101])
        end)
      end

      -- Once asked, the inversion follows each update's events instead of being built anew (while
      -- the ids and the watchers stay): a crowd where every entity moves gives more events a tick
      -- than entities (they are applied in batches) and lists that outgrow their room; asking only
      -- every fifth tick lets the following stop and a later call build again.
      it("keeps watchers_of exact while it follows the events", function()
        local g, l, aoi = start(700)
        local views, wmasks, n = {}, {}, 300
        for id = 1, n do
          l:set(id, g:uniform(0, 40), g:uniform(0, 40), 0, g:int(1, 4) == 1 and 2 or 3)
          if id % 7 ~= 0 then
            views[id] = g:int(3, 12)
            wmasks[id] = g:int(1, 5) == 1 and 1 or 0xffffffff
            aoi:watch(id, views[id], wmasks[id])
          end
        end
        local vis, truth, enter, leave, out = {}, {}, {}, {}, {}
        for tick = 1, 40 do
          local all = tick % 20 < 10  -- all move (full updates), then a tenth, slowly (incremental)
          for id, x, y in l:each() do
            if all then
              l:move(id, x + g:uniform(-3, 3), y + g:uniform(-3, 3))
            elseif g:int(1, 10) == 1 then
              l:move(id, x + g:uniform(-0.3, 0.3), y + g:uniform(-0.3, 0.3))
            end
          end
          if tick == 25 then  -- other ids and watchers for one tick: a new build
            l:set(n + 1, 20, 20); views[n + 1] = 5; aoi:watch(n + 1, 5)
          end
          local seers
          enter, leave, truth, seers = checked_update(aoi, l, enter, leave, vis, views, margin, truth, wmasks, "tick " .. tick)
          if tick < 30 or tick % 5 == 0 then out = util.check_lists(assert, aoi, "watchers_of", seers, n + 1, out) end
        end
      end)

      -- The cheap paths must not only give the right events but run: aoi:stats() counts the
      -- path each update took and how the inversion was kept. Slow steps (at most 0.3 per axis,
      -- five ticks) stay within the drift a full update's buckets allow (an eighth of a cell,
      -- cells twice the reach), so every tick where a tenth moves is incremental.
      it("takes the incremental path when a tenth moves, the full one when all move, and follows watchers_of", function()
        local g, l, aoi = start(900)
        local views, n = {}, 400
        for id = 1, n do
          l:set(id, g:uniform(0, 120), g:uniform(0, 120))
          if id % 4 == 0 then views[id] = 12; aoi:watch(id, 12) end
        end
        local vis, truth, enter, leave, out = {}, {}, {}, {}, {}
        local seers
        enter, leave, truth, seers = checked_update(aoi, l, enter, leave, vis, views, margin, truth, nil, "first")
        out = util.check_lists(assert, aoi, "watchers_of", seers, n, out)
        local was = aoi:stats()
        assert.are.same({ full = 1, incremental = 0, inversion_builds = 1, inversion_follows = 0,
          interest_chosen = 0, interest_kept = 0, interest_narrowed = 0, interest_widened = 0 }, was)
        for tick = 1, 10 do
          local all = tick <= 5
          local moved = 0
          for id, x, y in l:each() do
            if all then
              l:move(id, x + g:uniform(-2, 2), y + g:uniform(-2, 2)); moved = moved + 1
            elseif id % 10 == tick % 10 then
              l:move(id, x + g:uniform(-0.3, 0.3), y + g:uniform(-0.3, 0.3)); moved = moved + 1
            end
          end
          assert.is_true(all and moved == n or moved == n // 10)
          enter, leave, truth, seers = checked_update(aoi, l, enter, leave, vis, views, margin, truth, nil, "tick " .. tick)
          out = util.check_lists(assert, aoi, "watchers_of", seers, n, out)
          local now = aoi:stats()
          local label = (all and "all moving" or "a tenth moving") .. ", tick " .. tick
          assert.are.equal(was.full + (all and 1 or 0), now.full, label)
          assert.are.equal(was.incremental + (all and 0 or 1), now.incremental, label)
          assert.are.equal(1, now.inversion_builds, label)  -- followed, never built again
          assert.are.equal(was.inversion_follows + 1, now.inversion_follows, label)
          was = now
        end
        -- Asked no more, the inversion follows 4 more updates, then stops; a call builds it again.
        for _ = 1, 6 do aoi:update(enter, leave) end
        local idle = aoi:stats({})
        assert.are.equal(was.inversion_follows + 4, idle.inversion_follows)
        assert.are.equal(was.incremental + 6, idle.incremental)  -- nothing moved
        aoi:watchers_of(1, out)
        assert.are.equal(2, aoi:stats().inversion_builds)
      end)

      -- Entities die and spawn on most ticks of a real scene: the incremental path patches them
      -- in (a new entity takes a position after the buckets, a removed one stays as mask 0).
      -- Among them: watchers losing their entity, watchers gaining one, ids back at other slots,
      -- removes that move the last slot's entity, spawns with mask 0; and watch and unwatch of
      -- watchers with and without an entity, new views and filters.
      it("stays incremental when entities die and spawn and watchers come and go, and matches brute force", function()
        local g, l, aoi = start(1300)
        local views, wmasks, n = {}, {}, 400
        local masks = { 1, 2, 0xffffffff, 0 }
        for id = 1, n do
          l:set(id, g:uniform(0, 120), g:uniform(0, 120), 0, masks[g:int(1, 3)])
          if id % 4 == 0 then views[id] = 12; aoi:watch(id, 12) end
        end
        for id = n + 1, n + 40, 4 do  -- watchers whose entity spawns later
          views[id] = 10; wmasks[id] = masks[g:int(1, 3)]; aoi:watch(id, 10, wmasks[id])
        end
        local next_id = n + 41
        local vis, truth, enter, leave, out = {}, {}, {}, {}, {}
        local seers
        enter, leave, truth, seers = checked_update(aoi, l, enter, leave, vis, views, margin, truth, wmasks, "first")
        out = util.check_lists(assert, aoi, "watchers_of", seers, next_id, out)
        local was = aoi:stats()
        local spawn_watcher, gone = n + 1, {}
        for tick = 1, 14 do
          for id, x, y in l:each() do
            if id % 10 == tick % 10 then l:move(id, x + g:uniform(-0.3, 0.3), y + g:uniform(-0.3, 0.3)) end
          end
          local dying = {}  -- back from the next tick on (a death and a spawn far away at once is a jump)
          for _ = 1, g:int(1, 4) do  -- deaths, watchers' entities among them
            local id = g:int(1, next_id - 1)
            if l:has(id) then l:remove(id); dying[#dying + 1] = id end
          end
          for _ = 1, g:int(1, 4) do  -- spawns: new ids, ids of watchers, dead ids back
            local id
            local pick = g:int(1, 3)
            if pick == 1 and spawn_watcher <= n + 40 then
              id, spawn_watcher = spawn_watcher, spawn_watcher + 4
            elseif pick == 2 and #gone > 0 then
              id = table.remove(gone, g:int(1, #gone))
            else
              id, next_id = next_id, next_id + 1
            end
            if not l:has(id) then l:set(id, g:uniform(0, 120), g:uniform(0, 120), 0, masks[g:int(1, #masks)]) end
          end
          for _ = 1, g:int(0, 3) do  -- watch and unwatch: players come and go
            local id = g:int(1, next_id + 5)
            if views[id] and g:int(1, 2) == 1 then
              views[id], wmasks[id] = nil, nil; aoi:unwatch(id)
            else
              views[id] = g:int(6, 14); wmasks[id] = masks[g:int(1, 3)]; aoi:watch(id, views[id], wmasks[id])
            end
          end
          for _, id in ipairs(dying) do gone[#gone + 1] = id end
          local label = "tick " .. tick
          enter, leave, truth, seers = checked_update(aoi, l, enter, leave, vis, views, margin, truth, wmasks, label)
          out = util.check_lists(assert, aoi, "watchers_of", seers, next_id, out)
          for id in pairs(views) do
            local want = {}
            for t in pairs(truth[id] or {}) do want[#want + 1] = t end
            table.sort(want)
            out = aoi:visible(id, out)
            assert.are.same(want, out, "visible, " .. label)
          end
          local now = aoi:stats()
          assert.are.equal(was.full, now.full, label)
          assert.are.equal(was.incremental + 1, now.incremental, label)
          -- watchers_of's inverted lists follow the renumbered updates: built once, at the start
          assert.are.same({ 1, was.inversion_follows + 1 }, { now.inversion_builds, now.inversion_follows }, label)
          was = now
        end
      end)

      it("reproduces brute force with masks, and watchers_of inverts every visible list", function()
        local g, l, aoi = start(300)
        local views, wmasks, next_id = {}, {}, 1
        local masks = { 0, 1, 2, 3, 4, 0xffffffff }  -- 0: seen by nobody, yet it may watch
        local function watch(id)
          views[id] = g:uniform(5, 30)
          if g:int(1, 3) == 1 then wmasks[id] = nil; aoi:watch(id, views[id])
          else wmasks[id] = masks[g:int(1, #masks)]; aoi:watch(id, views[id], wmasks[id]) end
        end
        for _ = 1, 250 do
          l:set(next_id, g:uniform(0, 250), g:uniform(0, 250), 0, masks[g:int(1, #masks)])
          if g:int(1, 3) == 1 then watch(next_id) end
          next_id = next_id + 1
        end
        local vis, truth, enter, leave, out = {}, {}, {}, {}, {}
        for tick = 1, 25 do
          for id, x, y in l:each() do l:move(id, x + g:uniform(-3, 3), y + g:uniform(-3, 3)) end
          for _ = 1, 3 do l:remove(g:int(1, next_id)) end
          for _ = 1, 3 do
            l:set(next_id, g:uniform(0, 250), g:uniform(0, 250), 0, masks[g:int(1, #masks)]); next_id = next_id + 1
          end
          for _ = 1, 6 do  -- an entity changes its mask in place: enters and leaves follow
            local id = g:int(1, next_id - 1)
            local x, y = l:get(id)
            if x then l:set(id, x, y, 0, masks[g:int(1, #masks)]) end
          end
          for _ = 1, 4 do
            local w = g:int(1, next_id)
            if views[w] and g:int(1, 3) == 1 then views[w], wmasks[w] = nil, nil; aoi:unwatch(w)
            elseif l:has(w) then watch(w) end  -- a new watcher, or a new radius or filter
          end
          local seers
          enter, leave, truth, seers = checked_update(aoi, l, enter, leave, vis, views, margin, truth, wmasks, "tick " .. tick)
          -- Who sees whom, inverted from the brute-force sets, against watchers_of for every
          -- entity, every removed id and one never used.
          out = util.check_lists(assert, aoi, "watchers_of", seers, next_id, out)
        end
      end)
    end)
  end
end

describe("soageo.aoi", function()
  -- Runs `ticks` updates from no events replayed yet, each checked against brute force (events
  -- sorted, replayed sets equal to ref.visible's), calling step(tick, ne, nl) after each.
  local function check_ticks(l, aoi, views, margin, ticks, step)
    local vis, truth = {}, {}
    for tick = 1, ticks do
      local enter, leave, ne, nl = aoi:update()
      assert.is_true(sorted_flat(enter, ne) and sorted_flat(leave, nl), "tick " .. tick)
      replay(vis, enter, ne, leave, nl)
      truth = ref.visible(l, views, margin, truth)
      assert.is_true(same_sets(vis, truth), "tick " .. tick)
      step(tick, ne, nl)
    end
  end

  -- n entities uniform in [0, span]^2 (ids 1..n); every `every`-th watches with radius `view`.
  -- Returns the views.
  local function crowd(l, aoi, g, n, span, every, view)
    local views = {}
    for i = 1, n do
      l:set(i, g:uniform(0, span), g:uniform(0, span))
      if i % every == 0 then views[i] = view; aoi:watch(i, view) end
    end
    return views
  end

  describe("when 2,000 entities crowd into one spot", function()
    it("still reproduces brute force", function()
      local g = rng.new(3)
      local l = soageo.layer()
      local aoi = soageo.aoi(l)
      local views = crowd(l, aoi, g, 2000, 60, 10, 20)
      check_ticks(l, aoi, views, 0, 3, function()
        for id, x, y in l:each() do l:move(id, x + g:uniform(-2, 2), y + g:uniform(-2, 2)) end
      end)
    end)
  end)

  describe("when a tenth of a crowd moves each tick", function()
    it("reproduces brute force, with hundreds of events per incremental update", function()
      local g = rng.new(31)
      local l = soageo.layer()
      local aoi = soageo.aoi(l, { margin = 2 })
      local views = crowd(l, aoi, g, 1500, 100, 5, 20)
      local most = 0
      check_ticks(l, aoi, views, 2, 8, function(tick, ne, nl)
        if tick > 1 then most = math.max(most, ne, nl) end
        for id, x, y in l:each() do
          if g:int(1, 10) == 1 then l:move(id, x + g:uniform(-3, 3), y + g:uniform(-3, 3)) end
        end
      end)
      assert.is_true(most > 300, "few events: " .. most)  -- many keys to sort
    end)
  end)

  describe("when view radii differ by orders of magnitude and some entities are far away", function()
    it("reproduces brute force for every watcher", function()
      local g = rng.new(21)
      local l = soageo.layer()
      local aoi = soageo.aoi(l, { margin = 0.5 })
      local views = {}
      local far = { 1e30, -1e30, 3e38, -3e38, 1e12, 0x1p-120 }
      for i = 1, 400 do
        local x, y = g:uniform(0, 100), g:uniform(0, 100)
        if i % 40 == 0 then x = far[(i // 40) % #far + 1] end
        if i % 55 == 0 then y = far[(i // 55) % #far + 1] end
        l:set(i, x, y)
        if i % 3 == 0 then
          local v = ({ 0, 0.001, 2, 10, 30, 1e4, 1e20, 1e38 })[g:int(1, 8)]
          views[i] = v
          aoi:watch(i, v)
        end
      end
      check_ticks(l, aoi, views, 0.5, 4, function()
        for id, x, y in l:each() do
          if math.abs(x) < 1e3 and math.abs(y) < 1e3 then l:move(id, x + g:uniform(-3, 3), y + g:uniform(-3, 3)) end
        end
      end)
    end)
  end)

  describe("when entities sit exactly on view circles and cell edges", function()
    it("counts distance == view as outside and distance < view as inside", function()
      local l = soageo.layer()
      local aoi = soageo.aoi(l)
      local views, id = {}, 0
      for x = 0, 24 do
        for y = 0, 24 do
          id = id + 1
          l:set(id, x, y)
          if (x + y) % 7 == 0 then views[id] = ({ 5, 10, 13 })[id % 3 + 1]; aoi:watch(id, views[id]) end
        end
      end
      local shift = 0
      check_ticks(l, aoi, views, 0, 3, function()
        shift = shift + 1  -- whole-lattice moves keep every distance exact
        for i, x, y in l:each() do l:move(i, x + (shift % 2 == 0 and 1 or -1), y + 0.5) end
      end)
      -- Entity 1 started at (0, 0) with view 10; the lattice moved as one.
      local function at(x, y) return x * 25 + y + 1 end
      local seen = {}
      for _, t in ipairs((aoi:visible(1))) do seen[t] = true end
      assert.are.equal(10, views[1])
      assert.is_nil(seen[at(6, 8)])      -- distance 10: outside
      assert.is_true(seen[at(5, 8)])     -- distance sqrt(89): inside
      assert.is_true(seen[at(0, 9)])     -- distance 9 along a lattice line
      assert.is_nil(seen[at(0, 10)])
    end)
  end)

  describe("when the layer has many more cells than entities", function()
    it("still finds every pair across bucket collisions", function()
      local g = rng.new(5)
      local l = soageo.layer()
      local aoi = soageo.aoi(l)
      local views = {}
      for i = 1, 64 do
        l:set(i, g:uniform(-5000, 5000), g:uniform(-5000, 5000))
        views[i] = 3000
        aoi:watch(i, 3000)
      end
      for i = 65, 80 do l:set(i, g:uniform(0, 4), g:uniform(0, 4)); views[i] = 1; aoi:watch(i, 1) end
      check_ticks(l, aoi, views, 0, 3, function()
        for i, x, y in l:each() do l:move(i, x + g:uniform(-40, 40), y + g:uniform(-40, 40)) end
      end)
    end)
  end)

  describe("when every entity shares one x", function()
    it("still reproduces brute force", function()
      local g = rng.new(9)
      local l = soageo.layer()
      local aoi = soageo.aoi(l, { margin = 1 })
      local views = {}
      for i = 1, 300 do
        l:set(i, 5, g:uniform(0, 300))
        if i % 4 == 0 then views[i] = 15; aoi:watch(i, 15) end
      end
      check_ticks(l, aoi, views, 1, 3, function()
        for id, x, y in l:each() do l:move(id, x, y + g:uniform(-2, 2)) end
      end)
    end)
  end)

  describe("when a burst of events is over", function()
    it("gives the event buffers back, keeping room for a steady tick", function()
      local g = rng.new(11)
      local l = soageo.layer()
      for i = 1, 1500 do l:set(i, g:uniform(0, 100), g:uniform(0, 100)) end
      local aoi = soageo.aoi(l)
      for i = 1, 1500 do aoi:watch(i, 20) end
      local _, _, ne = aoi:update()  -- the join: every visible pair enters at once
      collectgarbage(); collectgarbage()
      local after_join = collectgarbage("count")
      local enter, leave = {}, {}
      for _ = 1, 40 do enter, leave = aoi:update(enter, leave) end  -- nothing moves
      collectgarbage(); collectgarbage()
      local steady = collectgarbage("count")
      -- The join's enter buffer held ne pairs of two 8-byte ids.
      assert.is_true(ne > 200000)
      assert.is_true(after_join - steady > 0.75 * ne * 16 / 1024, (after_join - steady) .. " KB given back")
      -- Steady ticks with movement still reproduce brute force after the shrink.
      local vis, views = {}, {}
      for i = 1, 1500 do views[i] = 20 end
      for _, w in ipairs({ 1, 2, 3 }) do for _, t in ipairs((aoi:visible(w))) do vis[w] = vis[w] or {}; vis[w][t] = true end end
      for _ = 1, 3 do
        for id, x, y in l:each() do l:move(id, x + g:uniform(-1, 1), y + g:uniform(-1, 1)) end
        aoi:update(enter, leave)
      end
      local truth = ref.visible(l, views, 0, {})
      for _, w in ipairs({ 1, 2, 3 }) do
        local list, n = aoi:visible(w)
        local count = 0
        for _ in pairs(truth[w]) do count = count + 1 end
        assert.are.equal(count, n)
        for i = 1, n do assert.is_true(truth[w][list[i]]) end
      end
    end)
  end)

  describe("when given bad input", function()
    local l = soageo.layer()
    local aoi = soageo.aoi(l)
    it("raises clear errors", function()
      assert.has_error(function() soageo.aoi({}) end, "bad argument #1 to 'aoi' (soageo.layer expected, got table)")
      assert.has_error(function() soageo.aoi(l, { margin = -1 }) end, "bad argument #2 to 'aoi' (margin must be finite and >= 0)")
      -- A number inside a table must be a number, not a numeric string (as watch's band).
      assert.has_error(function() soageo.aoi(l, { margin = "5" }) end, "bad argument #2 to 'aoi' (margin must be finite and >= 0)")
      assert.has_error(function() aoi:watch(1.5, 10) end, "bad argument #1 to 'watch' (id must be an integer)")
      assert.has_error(function() aoi:watch(1, -1) end, "bad argument #2 to 'watch' (view_radius must be finite and >= 0)")
      assert.has_error(function() aoi:watch(1, 0 / 0) end, "bad argument #2 to 'watch' (view_radius must be finite and >= 0)")
      assert.has_error(function() aoi:watch(1, 10, -1) end, "bad argument #3 to 'watch' (mask must be an integer in [0, 0xffffffff])")
      assert.has_error(function() aoi:watch(1, 10, 0x100000000) end, "bad argument #3 to 'watch' (mask must be an integer in [0, 0xffffffff])")
      assert.has_error(function() aoi:watch(1, 10, 1.5) end, "bad argument #3 to 'watch' (mask must be an integer in [0, 0xffffffff])")
      assert.has_error(function() aoi:watchers_of(1.5) end, "bad argument #1 to 'watchers_of' (id must be an integer)")
      assert.has_error(function() aoi:watchers_of("x") end, "bad argument #1 to 'watchers_of' (integer expected, got string)")
      assert.has_error(function() aoi:watchers_of(1, 5) end, "bad argument #2 to 'watchers_of' (table or nil expected, got number)")
      assert.has_error(function() aoi:update(5) end, "bad argument #1 to 'update' (table or nil expected, got number)")
      local t = {}
      assert.has_error(function() aoi:update(t, t) end, "bad argument #2 to 'update' (leave must be another table than enter)")
    end)
    it("answers watchers_of before the first update, and for unknown ids, with nothing", function()
      local m = soageo.layer()
      local a = soageo.aoi(m)
      local out = { 7, 8 }
      local got, n = a:watchers_of(1, out)
      assert.are.equal(out, got)
      assert.are.equal(0, n)
      assert.is_nil(out[1])
      m:set(1, 0, 0); m:set(2, 1, 0); a:watch(2, 5)
      a:update()
      assert.are.same({ 2 }, (a:watchers_of(1)))
      assert.are.same({}, (a:watchers_of(99)))
      assert.are.same({}, (a:watchers_of(math.mininteger)))
    end)
    it("refuses use after close, and after its layer is closed", function()
      local m = soageo.layer()
      local a = soageo.aoi(m)
      m:close()
      assert.has_error(function() a:update() end, "the aoi's layer is closed")
      a:close()
      a:close()
      assert.has_error(function() a:update() end, "calling 'update' on bad self (aoi is closed)")
      assert.has_error(function() a:watchers_of(1) end, "calling 'watchers_of' on bad self (aoi is closed)")
      assert.has_error(function() a:watch(1, 5, 1) end, "calling 'watch' on bad self (aoi is closed)")
    end)
    it("refuses every method but close once its layer is closed", function()
      local m = soageo.layer()
      m:set(1, 0, 0); m:set(2, 1, 0)
      local a = soageo.aoi(m)
      a:watch(1, 5)
      a:update()
      m:close()
      local calls = {
        watch = { 2, 5 }, unwatch = { 1 }, update = {}, visible = { 1 }, watchers_of = { 1 }, watchers = {},
        stats = {},
      }
      util.refuses_without_layer(assert, a, "aoi", calls, "the aoi's layer is closed", "visible")
    end)
    it("refuses an options table with a key it does not know", function()
      local m = soageo.layer()
      assert.has_error(function() soageo.aoi(m, { marign = 5 }) end, "bad argument #2 to 'aoi' (unknown option 'marign')")
      assert.has_error(function() soageo.aoi(m, { margin = 5, 5 }) end,
        "bad argument #2 to 'aoi' (option names must be strings (got a number key))")
      assert.has_error(function() soageo.aoi(m, { [true] = 1 }) end,
        "bad argument #2 to 'aoi' (option names must be strings (got a boolean key))")
      -- a key holding a zero byte is not the option it begins with
      assert.has_error(function() soageo.aoi(m, { ["margin\0"] = 1 }) end)
      assert.matches("^soageo.aoi: ", tostring(soageo.aoi(m, { margin = 5 })))
      assert.matches("^soageo.aoi: ", tostring(soageo.aoi(m, {})))
    end)
  end)
end)
