local soageo = require "soageo"
local rng = require "rng"
local util = require "spec_util"
local ref = require "pairs_reference"
local iref = require "interest_reference"

local replay, same_sets, sorted_flat = util.replay, util.same_pair_sets, util.sorted_pairs

-- Random options for a watcher: none, a cap (with always-seen bits), a band, a budget, or mixes.
local function random_options(g)
  local kind = g:int(1, 7)
  if kind == 1 then return nil end
  if kind == 2 then return { max = g:int(1, 8) } end
  if kind == 3 then return { max = g:int(1, 6), always = 2 } end
  if kind == 4 then return { max = g:int(1, 8), band = g:uniform(2, 10) } end
  if kind == 5 then return { band = g:uniform(2, 10), max_period = g:int(1, 6) } end
  if kind == 6 then return { band = g:uniform(2, 10), budget = g:int(1, 4) } end
  return { max = g:int(2, 8), budget = g:int(1, 3), always = 4 }
end

local function copy(opt)
  if not opt then return nil end
  local t = {}
  for k, v in pairs(opt) do t[k] = v end
  return t
end

local function count(set)
  local n = 0
  for _ in pairs(set or {}) do n = n + 1 end
  return n
end

-- One update: its events checked sorted and replayed into vis. Returns the event tables and the
-- tick's label.
local function update_replayed(aoi, enter, leave, vis, tick)
  local ne, nl
  enter, leave, ne, nl = aoi:update(enter, leave)
  local label = "tick " .. tick
  assert.is_true(sorted_flat(enter, ne) and sorted_flat(leave, nl), label)
  replay(vis, enter, ne, leave, nl)
  return enter, leave, label
end

-- What differs between the aoi's visible and watchers_of and the capped views `capped` (ids 1 to
-- last): nil when nothing; out is reused.
local function wrong_view(aoi, views, capped, last, out)
  local seers, wrong = {}, nil
  for w in pairs(views) do
    local n
    out, n = aoi:visible(w, out)
    local view = capped[w] or {}
    if count(view) ~= n then wrong = "visible(" .. w .. ") has " .. n .. " targets" end
    for i = 1, n do
      if not view[out[i]] or (i > 1 and out[i - 1] >= out[i]) then wrong = "visible(" .. w .. ")[" .. i .. "]" end
    end
    for t in pairs(view) do
      seers[t] = seers[t] or {}
      table.insert(seers[t], w)
    end
  end
  for t = 1, last do
    local want = seers[t] or {}
    table.sort(want)
    local n
    out, n = aoi:watchers_of(t, out)
    if #want ~= n then wrong = "watchers_of(" .. t .. ") has " .. n .. " watchers" end
    for i = 1, n do
      if want[i] ~= out[i] then wrong = "watchers_of(" .. t .. ")[" .. i .. "]" end
    end
  end
  return out, wrong
end

-- Updates an aoi with margin 0 and checks its events, views and watchers_of (ids 1 to last)
-- against the references' capped views: check(tick).
local function reference_checker(aoi, l, views, opts, pins, last)
  local vis, uncapped, capped, out, enter, leave = {}, {}, {}, {}, {}, {}
  return function(tick)
    local label
    enter, leave, label = update_replayed(aoi, enter, leave, vis, tick)
    uncapped = ref.visible(l, views, 0, uncapped)
    capped = iref.capped(l, uncapped, opts, pins, 0, capped)
    assert.is_true(same_sets(vis, capped), label)
    local wrong
    out, wrong = wrong_view(aoi, views, capped, last, out)
    assert.is_nil(wrong, label)
  end
end

-- Whether the flat due list (n pairs) is exactly the set `want`, sorted like the events.
local function same_due(list, n, want)
  if not sorted_flat(list, n) then return false end
  return same_sets(util.pair_set(list, n), want)
end

-- The flat (watcher, target) pairs of list (n of them) split by their watcher: those whose
-- watcher is in the set `special`, and the others, each flat and in order.
local function split_pairs(special, list, n)
  local mine, others = {}, {}
  for i = 1, n do
    local t = special[list[2 * i - 1]] and mine or others
    t[#t + 1], t[#t + 2] = list[2 * i - 1], list[2 * i]
  end
  return mine, others
end

-- A table of sets (or of plain values), copied two levels deep.
local function copy_sets(t)
  local c = {}
  for k, v in pairs(t) do
    if type(v) == "table" then
      local s = {}
      for k2, v2 in pairs(v) do s[k2] = v2 end
      c[k] = s
    else
      c[k] = v
    end
  end
  return c
end

-- The plain-Lua reference's capped views and due pairs per scene and tick. Every target replays
-- the same scene (the same seed, the same calls), so the reference, the slow part, is computed
-- by the first target that runs a scene to its end and read back by the others.
local reference_of = {}

for _, arch in ipairs(soageo.archs()) do
  for _, margin in ipairs({ 0, 4 }) do
    describe("when the " .. arch .. " target runs capped views with margin " .. margin, function()
      util.use_target(arch, setup, teardown)

      -- Every entity moving (the full update), or a tenth (the incremental one, where a watcher
      -- nothing changed for keeps its view as it was).
      for _, few in ipairs({ false, true }) do
      it("returns the views, events, watchers_of and due pairs of the plain-Lua reference at every tick" ..
        (few and " (a tenth moving)" or ""), function()
        local g = rng.new(300 + margin + (few and 7 or 0))
        local l = soageo.layer()
        local aoi = soageo.aoi(l, { margin = margin })
        local views, opts, pins, next_id = {}, {}, {}, 1
        for _ = 1, 200 do
          l:set(next_id, g:uniform(0, 200), g:uniform(0, 200), 0, 1 << g:int(0, 2))
          if g:int(1, 3) == 1 then
            views[next_id], opts[next_id] = g:uniform(10, 40), random_options(g)
            aoi:watch(next_id, views[next_id], nil, copy(opts[next_id]))
          end
          next_id = next_id + 1
        end
        local vis, uncapped, capped, state = {}, {}, {}, {}
        local enter, leave, out, due_out = {}, {}, {}, {}
        local scene = margin .. (few and " few" or " all")
        local known, recorded = reference_of[scene], {}
        for tick = 1, 30 do
          if tick > 1 and not few then next_id = util.churn(l, g, next_id, { step = 3, k = 2, span = 200 }) end
          if tick > 1 and few then
            for id, x, y in l:each() do
              if g:int(1, 10) == 1 then l:move(id, x + g:uniform(-3, 3), y + g:uniform(-3, 3)) end
            end
            if g:int(1, 2) == 1 then l:remove(g:int(1, next_id)) end
            if g:int(1, 2) == 1 then l:set(next_id, g:uniform(0, 200), g:uniform(0, 200), 0, 1 << g:int(0, 2)); next_id = next_id + 1 end
          end
          for _ = 1, few and 1 or 4 do
            local w = g:int(1, next_id)
            if views[w] and g:int(1, 3) == 1 then
              views[w], opts[w], pins[w] = nil, nil, nil
              aoi:unwatch(w)
            elseif l:has(w) then
              views[w], opts[w] = g:uniform(10, 40), random_options(g)
              aoi:watch(w, views[w], nil, copy(opts[w]))
            end
          end
          for _ = 1, few and 1 or 3 do
            local w, t = g:int(1, next_id), g:int(1, next_id)
            if views[w] then
              pins[w] = pins[w] or {}
              if pins[w][t] then pins[w][t] = nil; assert.is_true(aoi:unpin(w, t))
              else pins[w][t] = true; aoi:pin(w, t) end
            end
          end
          local label
          enter, leave, label = update_replayed(aoi, enter, leave, vis, tick)
          local want_due
          if known then
            capped, want_due = known[tick].capped, known[tick].due
          else
            uncapped = ref.visible(l, views, margin, uncapped)
            capped = iref.capped(l, uncapped, opts, pins, margin, capped)
            want_due = iref.schedule(l, capped, opts, state, tick)
            recorded[tick] = { capped = copy_sets(capped), due = copy_sets(want_due) }
          end
          assert.is_true(same_sets(vis, capped), label)
          -- Plain comparisons, one assertion a tick: an assertion per element made this the
          -- slowest spec of the suite.
          local wrong
          out, wrong = wrong_view(aoi, views, capped, next_id, out)
          assert.is_nil(wrong, label)
          local n
          due_out, n = aoi:due(due_out)
          assert.is_true(same_due(due_out, n, want_due), label)
        end
        reference_of[scene] = known or recorded
        if few then
          local st = aoi:stats()
          assert.is_true(st.incremental >= 20)
          assert.is_true(st.interest_kept > 100 and st.interest_chosen > 100)
        end
      end)
      end

      it("returns the nearest N, ties by the lower id, and always-seen and pinned targets beyond them", function()
        local l = soageo.layer()
        l:set(1, 0, 0)
        for i = 2, 9 do l:set(i, i, 0) end       -- 2..9 at distance 2..9
        l:set(10, 3, 0); l:set(11, 0, 3)         -- two more at distance 3: ids 3, 10, 11 tie
        l:set(12, 1, 0, 0, 2)                    -- the nearest, with layer mask 2
        local aoi = soageo.aoi(l, { margin = margin })
        aoi:watch(1, 100, nil, { max = 3, always = 2 })
        aoi:pin(1, 9)
        aoi:update()
        local list, n = aoi:visible(1)
        assert.are.same({ 2, 3, 9, 10, 12 }, util.sorted(list, n))
        aoi:unpin(1, 9)
        local enter, leave, ne, nl = aoi:update()
        assert.are.equal(0, ne)
        assert.are.equal(1, nl)
        assert.are.same({ 1, 9 }, { leave[1], leave[2] })
        aoi:watch(1, 100)                        -- the cap goes: everything in view enters
        enter, leave, ne, nl = aoi:update()
        assert.are.equal(7, ne)                  -- 11 in view, 4 seen already
        assert.are.equal(0, nl)
      end)

      it("returns the nearest N, ties by the lower id, with a plain cap (ties across the boundary and inside it)", function()
        local l = soageo.layer()
        l:set(1, 0, 0)
        l:set(20, 3, 0); l:set(5, 0, 3); l:set(13, -3, 0)  -- three at distance 3, ids 5, 13, 20
        l:set(8, 1, 0); l:set(30, 0, 1)                     -- two at distance 1
        l:set(2, 6, 0)
        local aoi = soageo.aoi(l, { margin = margin })
        aoi:watch(1, 100, nil, { max = 3 })
        aoi:update()
        local list, n = aoi:visible(1)
        -- Across the boundary: the two at 1, then the lowest id of the three at 3.
        assert.are.same({ 5, 8, 30 }, util.sorted(list, n))
        aoi:watch(1, 100, nil, { max = 4 })
        aoi:update()
        list, n = aoi:visible(1)
        assert.are.same({ 5, 8, 13, 30 }, util.sorted(list, n))
        -- Inside it: both ties kept whole.
        aoi:watch(1, 100, nil, { max = 5 })
        aoi:update()
        list, n = aoi:visible(1)
        assert.are.same({ 5, 8, 13, 20, 30 }, util.sorted(list, n))
      end)
    end)
  end

  describe("when the " .. arch .. " target ranks a crowd with a margin", function()
    util.use_target(arch, setup, teardown)

    it("returns views that keep their targets until another is nearer by the margin or more", function()
      local l = soageo.layer()
      l:set(1, 0, 0)
      l:set(2, 10, 0)
      l:set(3, 11, 0)
      local aoi = soageo.aoi(l, { margin = 2 })
      aoi:watch(1, 100, nil, { max = 1 })
      aoi:update()
      assert.are.same({ 2 }, (aoi:visible(1)))
      l:move(3, 9, 0)                            -- nearer by 1: within the margin, 2 stays
      local _, _, ne, nl = aoi:update()
      assert.are.equal(0, ne + nl)
      l:move(3, 8.5, 0)                          -- nearer by 1.5: 2 stays
      _, _, ne, nl = aoi:update()
      assert.are.equal(0, ne + nl)
      l:move(3, 8, 0)                            -- nearer by exactly 2: the keys tie (8), the smaller d2 wins
      local enter, leave
      enter, leave, ne, nl = aoi:update()
      assert.are.same({ 1, 3 }, { enter[1], enter[2] })
      assert.are.same({ 1, 2 }, { leave[1], leave[2] })
      l:move(2, 6.5, 0)                          -- nearer by 1.5 than 3, which now has the bonus
      _, _, ne, nl = aoi:update()
      assert.are.equal(0, ne + nl)
      l:move(2, 6, 0)                            -- nearer by exactly 2 than 3: 2 takes the place back
      enter, leave, ne, nl = aoi:update()
      assert.are.same({ 1, 2 }, { enter[1], enter[2] })
      assert.are.same({ 1, 3 }, { leave[1], leave[2] })
    end)
  end)

  describe("when the " .. arch .. " target scans a crowd's capped watchers only as far as their caps need", function()
    util.use_target(arch, setup, teardown)

    -- Full updates narrow each capped watcher's scan to a little past its farthest chosen
    -- target; scattering the crowd leaves some short of their cap there (scanned again out to
    -- the view), and a quiet tick (an incremental update) scans every narrowed one whole.
    it("returns the reference's views, events and watchers_of at every tick", function()
      local g = rng.new(901)
      local l = soageo.layer()
      local aoi = soageo.aoi(l)
      local views, opts, pins = {}, {}, {}
      local n = 300
      for id = 1, n do
        l:set(id, g:uniform(0, 120), g:uniform(0, 120), 0, 1 << g:int(0, 1))
        if id % 3 == 0 then
          views[id], opts[id] = 40, { max = g:int(2, 6) }
          if id % 9 == 0 then opts[id].band = 8 end
          if id % 27 == 0 then opts[id] = nil end
          aoi:watch(id, views[id], nil, copy(opts[id]))
        end
      end
      local check = reference_checker(aoi, l, views, opts, pins, n)
      for tick = 1, 36 do
        if tick % 6 == 0 then                      -- a quiet tick: one step
          local id = g:int(1, n)
          local x, y = l:get(id)
          l:move(id, x + 1, y)
        elseif tick % 5 == 0 then                  -- the crowd scatters
          for id = 1, n do
            if g:int(1, 2) == 1 then l:move(id, g:uniform(0, 120), g:uniform(0, 120)) end
          end
        else
          for id = 1, n do
            local x, y = l:get(id)
            l:move(id, x + g:uniform(-2, 2), y + g:uniform(-2, 2))
          end
        end
        if tick % 4 == 0 then                      -- a pin, then new options
          local w, t = 3 * g:int(1, n // 3), g:int(1, n)
          if views[w] then
            pins[w] = pins[w] or {}
            if pins[w][t] then pins[w][t] = nil; aoi:unpin(w, t) else pins[w][t] = true; aoi:pin(w, t) end
          end
          w = 3 * g:int(1, n // 3)
          opts[w] = { max = g:int(1, 5), always = tick % 8 == 0 and 2 or nil }
          aoi:watch(w, views[w], nil, copy(opts[w]))
        end
        check(tick)
      end
      local st = aoi:stats()
      assert.is_true(st.interest_narrowed > 1000, "narrowed " .. st.interest_narrowed)
      assert.is_true(st.interest_widened > 10, "widened " .. st.interest_widened)
      assert.is_true(st.incremental >= 4 and st.full >= 20)
    end)

    it("returns the nearest N after a quiet tick takes a watcher's nearest away", function()
      -- Watcher 1 with its cap met by a tight cluster (its list narrowed to just those), the
      -- others far: a quiet tick that moves one of the cluster out of the reach, or the
      -- watcher away from it, leaves its narrowed list short, and must not go unnoticed.
      local g = rng.new(903)
      local l = soageo.layer()
      local aoi = soageo.aoi(l)
      local views, opts, pins = { [1] = 40 }, { [1] = { max = 6 } }, {}
      l:set(1, 50, 50)
      for id = 2, 7 do
        local a = id * 1.1
        l:set(id, 50 + math.cos(a) * (0.5 + id / 10), 50 + math.sin(a) * (0.5 + id / 10))
      end
      for id = 8, 200 do
        local x, y
        repeat x, y = g:uniform(0, 100), g:uniform(0, 100) until (x - 50) ^ 2 + (y - 50) ^ 2 > 100
        l:set(id, x, y)
      end
      aoi:watch(1, 40, nil, { max = 6 })
      local check = reference_checker(aoi, l, views, opts, pins, 200)
      for tick = 1, 2 do
        for id = 8, 200 do
          local x, y = l:get(id)
          l:move(id, x + g:uniform(-0.5, 0.5), y + g:uniform(-0.5, 0.5))
        end
        check(tick)
      end
      local function count_paths(step, tick)
        local was = aoi:stats()
        step()
        check(tick)
        local st = aoi:stats()
        return st.full - was.full, st.incremental - was.incremental
      end
      local full, inc = count_paths(function() l:move(100, l:get(100) + 0.5, select(2, l:get(100))) end, 3)
      assert.are.same({ 0, 1 }, { full, inc })   -- far from the cluster: incremental
      full, inc = count_paths(function() l:move(2, 52.5, 50) end, 4)
      assert.are.same({ 1, 0 }, { full, inc })   -- out of the reach: too few left in the list
      for tick = 5, 6 do count_paths(function() l:move(100, l:get(100) - 0.5, select(2, l:get(100))) end, tick) end
      full, inc = count_paths(function() l:move(1, 50, 47) end, 7)
      assert.are.same({ 1, 0 }, { full, inc })   -- the watcher left its cluster: its rescan is short
      for tick = 8, 9 do count_paths(function() l:move(100, l:get(100) + 0.5, select(2, l:get(100))) end, tick) end
      -- A pin on a quiet tick: the pinned target, in view but past any reach (a reach is at most
      -- 1.1 x 0.7 of the view), is seen.
      local far, d_far = nil, 0
      for id = 8, 200 do
        local x, y = l:get(id)
        local d = math.sqrt((x - 50) ^ 2 + (y - 47) ^ 2)
        if d < 39 and d > d_far then far, d_far = id, d end
      end
      assert.is_true(d_far > 31)
      pins[1] = { [far] = true }
      aoi:pin(1, far)
      count_paths(function() l:move(100, l:get(100) - 0.5, select(2, l:get(100))) end, 10)
      local seen, k = aoi:visible(1)
      local sees_far = false
      for i = 1, k do sees_far = sees_far or seen[i] == far end
      assert.is_true(sees_far)
      local st = aoi:stats()
      assert.is_true(st.interest_narrowed >= 1 and st.interest_widened >= 2)
    end)

    it("returns whole views with a margin, and scans them whole", function()
      local g = rng.new(902)
      local l = soageo.layer()
      local aoi = soageo.aoi(l, { margin = 3 })
      for id = 1, 200 do
        l:set(id, g:uniform(0, 60), g:uniform(0, 60))
        aoi:watch(id, 30, nil, { max = 3 })
      end
      for _ = 1, 4 do
        for id = 1, 200 do
          local x, y = l:get(id)
          l:move(id, x + g:uniform(-2, 2), y + g:uniform(-2, 2))
        end
        aoi:update()
      end
      assert.are.equal(0, aoi:stats().interest_narrowed)
    end)
  end)

  describe("when the " .. arch .. " target schedules due pairs", function()
    util.use_target(arch, setup, teardown)

    -- A still layer: watcher 1 at the centre of a crowd, band b. Returns the layer and aoi.
    local function still_world(g, n, opt)
      local l = soageo.layer()
      l:set(1, 0, 0)
      for id = 2, n do l:set(id, g:uniform(-50, 50), g:uniform(-50, 50)) end
      local aoi = soageo.aoi(l)
      aoi:watch(1, 80, nil, opt)
      return l, aoi
    end

    it("returns near pairs every update, new pairs at once, gaps of at most p and even updates", function()
      local g = rng.new(77)
      local opt = { band = 9, max_period = 6 }
      local l, aoi = still_world(g, 300, opt)
      local last, out = {}, {}
      local per_update = {}
      for u = 1, 40 do
        if u == 20 then l:set(1000, 1, 1) end   -- a new pair, nearer than the band
        if u == 25 then l:set(1001, 40, 40) end -- a new far pair
        aoi:update()
        local n
        out, n = aoi:due(out)
        local listed = {}
        for i = 1, n do
          assert.are.equal(1, out[2 * i - 1])
          listed[out[2 * i]] = true
        end
        local list, m = aoi:visible(1)
        local by_period = {}
        for i = 1, m do
          local t = list[i]
          local p = iref.period(opt, iref.d2(l, 1, t))
          if p == 1 then assert.is_true(listed[t], "near pair " .. t) end
          if not last[t] then assert.is_true(listed[t], "new pair " .. t) end
          if listed[t] then
            if last[t] then assert.is_true(u - last[t] <= p, "gap of " .. t) end
            last[t] = u
          end
          local b = by_period[p] or { k = 0, listed = 0 }
          b.k = b.k + 1
          b.listed = b.listed + (listed[t] and 1 or 0)
          by_period[p] = b
        end
        per_update[u] = by_period
      end
      -- Evenness on the still layer: between the first listings and the new pairs.
      local checked = 0
      for u = 2, 19 do
        for p, b in pairs(per_update[u]) do
          assert.is_true(b.listed == b.k // p or b.listed == -(-b.k // p), "period " .. p .. " at " .. u)
          checked = checked + 1
        end
      end
      assert.is_true(checked >= 18 * 3)
    end)

    it("returns at most budget pairs a watcher an update, each waiting at most p + ceil(v / B) - 1", function()
      local g = rng.new(78)
      local opt = { band = 12, max_period = 4, budget = 7 }
      local l, aoi = still_world(g, 120, opt)
      local last, out = {}, {}
      for u = 1, 40 do
        aoi:update()
        local n
        out, n = aoi:due(out)
        assert.is_true(n <= opt.budget)
        local list, v = aoi:visible(1)
        local listed = {}
        for i = 1, n do listed[out[2 * i]] = true end
        for i = 1, v do
          local t = list[i]
          local p = iref.period(opt, iref.d2(l, 1, t))
          local bound = p + -(-v // opt.budget) - 1
          if listed[t] then
            assert.is_true(u - (last[t] or 0) <= bound, "gap of " .. t)
            last[t] = u
          else
            assert.is_true(u - (last[t] or 0) < bound, "wait of " .. t)
          end
        end
      end
    end)

    -- Watcher 1 of a still world of n entities with `opt`, one entity moved every `every` updates
    -- (ids 2 .. 1 + ids in turn): asserts every update's due pairs are the reference's; returns
    -- the longest period met.
    local function due_as_reference(g, opt, n, updates, every, ids, label)
      local opts = { [1] = opt }
      local l, aoi = still_world(g, n, opt)
      local state, out = {}, {}
      local longest = 0
      for u = 1, updates do
        if u % every == 0 then l:move(2 + u % ids, g:uniform(-50, 50), g:uniform(-50, 50)) end
        aoi:update()
        local list, m = aoi:visible(1)
        local view = {}
        for i = 1, m do
          view[list[i]] = true
          longest = math.max(longest, iref.period(opt, iref.d2(l, 1, list[i])))
        end
        local want = iref.schedule(l, { [1] = view }, opts, state, u)
        local count
        out, count = aoi:due(out)
        assert.is_true(same_due(out, count, want), label .. "update " .. u)
      end
      return longest
    end

    it("returns the reference's due pairs with periods past the lookup table (band 1, max_period 100)", function()
      local longest = due_as_reference(rng.new(79), { band = 1, max_period = 100 }, 150, 60, 7, 10, "")
      assert.is_true(longest > 40)
    end)

    it("returns the reference's due pairs at the longest table counted in lanes (max_period 9) and one past it", function()
      for _, max_period in ipairs({ 9, 10 }) do
        local longest = due_as_reference(rng.new(80 + max_period), { band = 6, max_period = max_period }, 200, 40, 3, 17,
                                         "max_period " .. max_period .. ", ")
        assert.are.equal(max_period, longest)
      end
    end)

    it("returns periods of 1 + k at the band's exact boundaries ((k * band)^2 == d2 counts)", function()
      local l = soageo.layer()
      l:set(1, 0, 0)
      l:set(2, 3, 0)             -- d2 9 = (1 * 3)^2: period 2
      l:set(3, 2.9999, 0)        -- just inside the band: period 1
      l:set(4, 0, 6)             -- d2 36 = (2 * 3)^2: period 3
      l:set(5, 0, -5.9999)       -- period 2
      local aoi = soageo.aoi(l)
      local opts = { [1] = { band = 3 } }
      aoi:watch(1, 100, nil, opts[1])
      local want_period = { [2] = 2, [3] = 1, [4] = 3, [5] = 2 }
      for t, p in pairs(want_period) do assert.are.equal(p, iref.period(opts[1], iref.d2(l, 1, t))) end
      local state, out, last, listings = {}, {}, {}, {}
      for u = 1, 12 do
        aoi:update()
        local n
        out, n = aoi:due(out)
        local want = iref.schedule(l, { [1] = { [2] = true, [3] = true, [4] = true, [5] = true } }, opts, state, u)
        assert.is_true(same_due(out, n, want), "update " .. u)
        for i = 1, n do
          local t = out[2 * i]
          if last[t] then assert.is_true(u - last[t] <= want_period[t]) end
          last[t] = u
          listings[t] = (listings[t] or 0) + 1
        end
        assert.are.equal(u, last[3])   -- period 1: every update
      end
      -- Both at once when new; then the two of period 2 take turns (offsets 1 and 2), the one of
      -- period 3 comes at offset 1 and every third update after.
      assert.are.same({ [2] = 7, [3] = 12, [4] = 5, [5] = 6 }, listings)
    end)

    it("returns no view and no due pair for a banded watcher without an entity, tick after tick", function()
      -- A few entities move a little each tick: the incremental path, where still watchers keep
      -- their capped views.
      local g = rng.new(905)
      local l = soageo.layer()
      local xs, ys = {}, {}
      for id = 1, 400 do
        xs[id], ys[id] = g:uniform(0, 100), g:uniform(0, 100)
        l:set(id, xs[id], ys[id])
      end
      local aoi = soageo.aoi(l)
      for id = 1, 400 do aoi:watch(id, 20, nil, { max = 8, band = 2 }) end
      aoi:watch(1000, 20, nil, { max = 8, band = 2 })  -- no entity 1000 in the layer
      aoi:update()
      local due = {}
      for tick = 1, 10 do
        for id = 1 + tick % 10, 400, 10 do
          xs[id] = xs[id] + 0.1
          l:move(id, xs[id], ys[id])
        end
        aoi:update()
        local n
        due, n = aoi:due(due)
        assert.is_true(n > 0)
        for i = 1, 2 * n, 2 do assert.are_not.equal(1000, due[i]) end
        assert.are.equal(0, select(2, aoi:visible(1000)))
      end
      local stats = aoi:stats()
      assert.is_true(stats.incremental > 0 and stats.interest_kept > 0)
    end)

    it("returns every visible pair as due for a watcher without options", function()
      local l = util.layer_of({ { 0, 0 }, { 1, 0 }, { 2, 0 }, { 50, 0 } })
      local aoi = soageo.aoi(l)
      aoi:watch(2, 10)
      aoi:watch(1, 10, nil, { max = 1 })
      aoi:update()
      local due, n = aoi:due()
      assert.are.same({ 1, 2, 2, 1, 2, 3 }, due)
      assert.are.equal(3, n)
      aoi:update()
      due, n = aoi:due(due)
      assert.are.equal(3, n)
    end)
  end)
end

describe("when pairs change period while they move, then stand still", function()
  it("returns them on the offsets the changes left, shared (only a first listing spreads pairs)", function()
    local l = soageo.layer()
    l:set(1, 0, 0)
    l:set(2, 5, 0)  -- d = 5, band 1: period 2 (max_period 2)
    l:set(3, 0, 5)
    local aoi = soageo.aoi(l)
    aoi:watch(1, 100, nil, { band = 1, max_period = 2 })
    local function due_targets()
      aoi:update()
      local out, n = aoi:due()
      local t = {}
      for i = 1, n do t[i] = out[2 * i] end
      return t
    end
    assert.are.same({ 2, 3 }, due_targets())  -- new: at once, then on offsets 1 and 2
    l:move(3, 0, 0.5)  -- period 1: due every update
    assert.are.same({ 2, 3 }, due_targets())
    assert.are.same({ 3 }, due_targets())
    l:move(3, 0, 5)  -- period 2 again: min(deadline, last listing + 2), the offset of 2
    local seen = {}
    for u = 1, 6 do seen[u] = table.concat(due_targets(), ",") end
    -- A still layer from here: both pairs due on the same updates, every other one.
    for u = 3, 6 do assert.are.equal(seen[u - 2], seen[u]) end
    assert.is_true((seen[3] == "2,3" and seen[4] == "") or (seen[3] == "" and seen[4] == "2,3"),
      table.concat(seen, " | "))
  end)
end)

describe("when a target's id is math.maxinteger", function()
  local M = math.maxinteger

  -- Watcher 1 at the origin sees 2 and M; `first` and `second` are its options at two updates
  -- (nil: none), `between` runs between them. Returns the second update's events as strings.
  local function second_update(first, second, between)
    local l = soageo.layer()
    l:set(1, 0, 0)
    l:set(2, 2, 0)
    l:set(M, 1, 0)
    local aoi = soageo.aoi(l)
    aoi:watch(1, 10, nil, first)
    local _, _, ne = aoi:update()
    assert.are.equal(2, ne)
    if between then between(l) end
    aoi:watch(1, 10, nil, second)
    local enter, leave, n_enter, n_leave = aoi:update()
    local events = {}
    for i = 1, 2 * n_enter, 2 do events[#events + 1] = "+" .. enter[i] .. ">" .. enter[i + 1] end
    for i = 1, 2 * n_leave, 2 do events[#events + 1] = "-" .. leave[i] .. ">" .. leave[i + 1] end
    return events, aoi
  end

  it("returns no events while a capped watcher keeps it, moving or not", function()
    local events = second_update({ max = 5 }, { max = 5 }, function(l) l:move(1, 0.5, 0) end)
    assert.are.same({}, events)
  end)

  it("returns no events when the watcher gains or loses its options", function()
    assert.are.same({}, (second_update({ max = 5 }, nil)))
    assert.are.same({}, (second_update(nil, { max = 5 })))
  end)

  it("returns its leave when it leaves as the watcher gains options", function()
    local events, aoi = second_update(nil, { max = 5 }, function(l) l:move(M, 100, 0) end)
    assert.are.same({ "-1>" .. M }, events)
    local view, n = aoi:visible(1)
    assert.are.equal(1, n)
    assert.are.equal(2, view[1])
  end)
end)

describe("when a few watchers are special among many plain ones", function()
  it("returns the views, events and due pairs of an aoi holding only them, and plain views for the others", function()
    -- mixed: 800 watchers, 16 of them special (capped and banded, some pinned); only: the 16
    -- alone; plain: the 784 others alone. Each tick the special ones' views, events and due
    -- pairs in mixed are only's, the others' are plain's, through options dropped, unwatch and
    -- watch again, and an aoi with no special watcher left.
    local g = rng.new(4242)
    local l = soageo.layer()
    for id = 1, 800 do l:set(id, g:uniform(0, 300), g:uniform(0, 300)) end
    local mixed, only, plain = soageo.aoi(l), soageo.aoi(l), soageo.aoi(l)
    local special, opt = {}, { max = 4, band = 6 }
    for id = 25, 800, 50 do special[id] = true end  -- 16
    local function watch_special(id, o)
      mixed:watch(id, 30, nil, o)
      only:watch(id, 30, nil, o)
    end
    for id = 1, 800 do
      if special[id] then watch_special(id, opt) else mixed:watch(id, 30); plain:watch(id, 30) end
    end
    for id in pairs(special) do
      if id % 100 == 25 then mixed:pin(id, id + 1); only:pin(id, id + 1) end
    end
    local function split(list, n) return split_pairs(special, list, n) end
    local function update(label)
      local me, ml, nme, nml = mixed:update({}, {})
      local oe, ol, noe, nol = only:update({}, {})
      local pe, pl, npe, npl = plain:update({}, {})
      local mine, others = split(me, nme)
      assert.are.same(table.move(oe, 1, 2 * noe, 1, {}), mine, label .. " enter")
      assert.are.same(table.move(pe, 1, 2 * npe, 1, {}), others, label .. " enter")
      mine, others = split(ml, nml)
      assert.are.same(table.move(ol, 1, 2 * nol, 1, {}), mine, label .. " leave")
      assert.are.same(table.move(pl, 1, 2 * npl, 1, {}), others, label .. " leave")
      local md, nmd = mixed:due()
      local od, nod = only:due()
      local pd, npd = plain:due()
      mine, others = split(md, nmd)
      assert.are.same(table.move(od, 1, 2 * nod, 1, {}), mine, label .. " due")
      assert.are.same(table.move(pd, 1, 2 * npd, 1, {}), others, label .. " due")
      for id = 1, 800 do
        local want = special[id] and only or plain
        assert.are.same({ want:visible(id) }, { mixed:visible(id) }, label .. " visible " .. id)
      end
    end
    for tick = 1, 30 do
      local every = tick % 5 == 0 and 2 or 10  -- mostly incremental updates, some full
      for id = 1 + tick % every, 800, every do
        local x, y = l:get(id)
        l:move(id, math.max(0, math.min(300, x + g:uniform(-3, 3))), math.max(0, math.min(300, y + g:uniform(-3, 3))))
      end
      if tick == 10 then for id in pairs(special) do if id % 100 == 75 then watch_special(id, nil) end end end
      if tick == 14 then for id in pairs(special) do if id % 200 == 25 then mixed:unwatch(id); only:unwatch(id) end end end
      if tick == 16 then for id in pairs(special) do if id % 200 == 25 then watch_special(id, opt) end end end
      if tick == 20 then for id in pairs(special) do watch_special(id, nil) end end  -- none special
      if tick == 24 then for id in pairs(special) do watch_special(id, opt) end end
      update("tick " .. tick)
    end
    local st = mixed:stats()
    assert.is_true(st.interest_narrowed > 30, "narrowed " .. st.interest_narrowed)
    assert.is_true(st.incremental > 10 and st.full > 3, st.incremental .. " incremental, " .. st.full .. " full")
  end)
end)

for _, arch in ipairs(soageo.archs()) do
  describe("when the " .. arch .. " target's scans hand their distances on, or not", function()
    util.use_target(arch, setup, teardown)

    it("returns the same views, events and due pairs whether the scans hand their distances on or not", function()
      -- A full update's scans hand the pass their d2 when at least one watcher in eight is special
      -- (csrc/lua/aoi.cpp, kHandDistancesOneIn); else the pass computes them. mixed: 160 watchers,
      -- 4 special (below the share), then 40 (above it), then 4 again; only: its special ones
      -- alone (all special: always handed on); plain: its others. Half the entities move each
      -- tick (full updates), so both ways run side by side on every target.
      local g = rng.new(4343)
      local l = soageo.layer()
      for id = 1, 200 do l:set(id, g:uniform(0, 150), g:uniform(0, 150)) end
      local mixed, only, plain = soageo.aoi(l), soageo.aoi(l), soageo.aoi(l)
      local opt, special = { max = 5, band = 4 }, {}
      local function set_special(every)
        for id = 1, 160 do
          local now = id % every == 0
          if now and not special[id] then
            mixed:watch(id, 30, nil, opt); only:watch(id, 30, nil, opt); plain:unwatch(id)
          elseif special[id] and not now then
            mixed:watch(id, 30); only:unwatch(id); plain:watch(id, 30)
          end
          special[id] = now or nil
        end
      end
      for id = 1, 160 do mixed:watch(id, 30); plain:watch(id, 30) end
      local function split(list, n) return split_pairs(special, list, n) end
      -- Whether the first n pairs of want are the flat pairs got.
      local function same(got, want, n, label) assert.are.same(table.move(want, 1, 2 * n, 1, {}), got, label) end
      for tick = 1, 24 do
        if tick == 1 or tick == 17 then set_special(40) elseif tick == 9 then set_special(4) end
        for id = 1 + tick % 2, 200, 2 do
          local x, y = l:get(id)
          l:move(id, math.max(0, math.min(150, x + g:uniform(-3, 3))), math.max(0, math.min(150, y + g:uniform(-3, 3))))
        end
        local label = "tick " .. tick
        local me, ml, nme, nml = mixed:update({}, {})
        local oe, ol, noe, nol = only:update({}, {})
        local pe, pl, npe, npl = plain:update({}, {})
        -- (A watcher that changed sides at this tick has other events in mixed than in the aoi
        -- it joined or left: only its views and due pairs compare then.)
        if tick ~= 9 and tick ~= 17 then
          local mine, others = split(me, nme)
          same(mine, oe, noe, label .. " enter")
          same(others, pe, npe, label .. " enter")
          mine, others = split(ml, nml)
          same(mine, ol, nol, label .. " leave")
          same(others, pl, npl, label .. " leave")
        end
        local md, nmd = mixed:due()
        local od, nod = only:due()
        same((split(md, nmd)), od, nod, label .. " due")
        for id = 1, 160 do
          local want = special[id] and only or plain
          assert.are.same({ want:visible(id) }, { mixed:visible(id) }, label .. " visible " .. id)
        end
      end
      assert.is_true(mixed:stats().full >= 20 and only:stats().full >= 20)
    end)

    it("returns the reference's views when a special watcher's scan goes row by row", function()
      -- Plain watchers with views of 2 make the grid's cells small (they follow the median
      -- reach): a special watcher's view of 80 spans more windows than a scan plans, so its
      -- scans go row by row, handing on their distances as they go (16 special of 80).
      local g = rng.new(4444)
      local l = soageo.layer()
      for id = 1, 400 do l:set(id, g:uniform(0, 200), g:uniform(0, 200)) end
      local aoi = soageo.aoi(l)
      local views, opts = {}, {}
      for id = 1, 80 do
        views[id] = id <= 64 and 2 or 80
        opts[id] = id > 64 and { max = 6 + id % 3 } or nil
        aoi:watch(id, views[id], nil, copy(opts[id]))
      end
      local check = reference_checker(aoi, l, views, opts, {}, 400)
      for tick = 1, 8 do
        for id = 1 + tick % 2, 400, 2 do
          local x, y = l:get(id)
          l:move(id, math.max(0, math.min(200, x + g:uniform(-3, 3))), math.max(0, math.min(200, y + g:uniform(-3, 3))))
        end
        check(tick)
      end
      assert.is_true(aoi:stats().full >= 8)
    end)
  end)
end

describe("when watch is given bad options", function()
  it("raises a clear error and changes nothing", function()
    local l = util.layer_of({ { 0, 0 }, { 1, 0 } })
    local aoi = soageo.aoi(l)
    local watch = util.method("watch")
    local cases = {
      { { max = 0 }, "max must be an integer in [1, 0xffffffff]" },
      { { max = 1.5 }, "max must be an integer in [1, 0xffffffff]" },
      { { budget = -1 }, "budget must be an integer in [1, 0xffffffff]" },
      { { band = 0 }, "band must be finite and > 0" },
      { { band = 1 / 0 }, "band must be finite and > 0" },
      { { max_period = 0 }, "max_period must be an integer in [1, 0xffffffff]" },
      { { always = -1 }, "always must be an integer in [0, 0xffffffff]" },
      { { max = 2 ^ 32 }, "max must be an integer in [1, 0xffffffff]" },
      { { budget = 0 }, "budget must be an integer in [1, 0xffffffff]" },
      { { budget = "2" }, "budget must be an integer in [1, 0xffffffff]" },
      { { band = 0 / 0 }, "band must be finite and > 0" },
      { { band = -3 }, "band must be finite and > 0" },
      { { band = "4" }, "band must be finite and > 0" },
      { { max_period = 2.5 }, "max_period must be an integer in [1, 0xffffffff]" },
      { { max_period = 2 ^ 32 }, "max_period must be an integer in [1, 0xffffffff]" },
      { { max = 3, colour = 1 }, "unknown option 'colour'" },
      { { max = 3, [1] = 2 }, "option names must be strings" },
    }
    for _, c in ipairs(cases) do
      local ok, err = pcall(watch, aoi, 1, 10, nil, c[1])
      assert.is_false(ok)
      local want = "bad argument #4 to 'watch' (" .. c[2] .. ")"
      assert.are.equal(want, err:sub(-#want))
      assert.are.equal(0, aoi:watchers())
    end
    aoi:update()
    assert.are.equal(0, select(2, aoi:due()))
  end)

  it("leaves a special watcher's options, pins, view and schedule as they were", function()
    -- Two aois over one layer, the same calls but for the refused ones: every update after
    -- gives both the same events, views and due pairs.
    local g = rng.new(36)
    local l = soageo.layer()
    for id = 1, 40 do l:set(id, g:uniform(0, 30), g:uniform(0, 30)) end
    local opt = { max = 3, band = 4, budget = 2 }
    local tried, control = soageo.aoi(l), soageo.aoi(l)
    for _, a in ipairs({ tried, control }) do
      a:watch(1, 12, nil, opt)
      a:watch(2, 12)
      a:pin(1, 40)
      a:update()
    end
    local watch = util.method("watch")
    local bad = { { max = 0 }, { budget = 0 }, { band = -1 }, { max_period = 0 }, { always = -1 },
                  { max = 1, colour = 2 }, { max = 9, band = 0 / 0 }, { budget = 9, max_period = 2.5 } }
    for _, b in ipairs(bad) do
      -- Another view and mask too: nothing of a refused call may be applied.
      assert.is_false((pcall(watch, tried, 1, 31, 2, b)))
      assert.is_false((pcall(watch, tried, 2, 31, 2, b)))  -- a plain watcher stays plain
      assert.is_false((pcall(watch, tried, 3, 31, 2, b)))  -- no watcher is added
    end
    assert.are.equal(2, tried:watchers())
    for tick = 1, 12 do
      for id = 1, 40, 3 do
        local x, y = l:get(id)
        l:move(id, x + g:uniform(-2, 2), y + g:uniform(-2, 2))
      end
      local a = { tried:update({}, {}) }
      local b = { control:update({}, {}) }
      assert.are.same(b, a, "tick " .. tick)
      for w = 1, 2 do assert.are.same({ control:visible(w) }, { tried:visible(w) }, "tick " .. tick) end
      assert.are.same({ control:due() }, { tried:due() }, "tick " .. tick)
    end
  end)
end)

-- Finalizers run by the allocations of watch, pin and update (interest_reserve's blocks among
-- them) that use the aoi: the aoi is held by the call, so they are refused as busy (close waits
-- for the call's end), and the call answers as if they had not run.
describe("when finalizers watch, pin, update or close a capped aoi inside its own calls", function()
  it("refuses them as busy, closes after the call, and the capped aoi still sees exactly its circles", function()
    local l = soageo.layer()
    for i = 1, 400 do l:set(i, (i * 37) % 120, (i * 91) % 120) end
    local opt = { max = 1000, band = 3, budget = 50 }  -- a cap that never binds: the brute force holds
    local function brute(id)
      local x, y = l:get(id)
      local out = {}
      for t = 1, 400 do
        local tx, ty = l:get(t)
        local dx, dy = tx - x, ty - y
        if t ~= id and dx * dx + dy * dy < 100 then out[#out + 1] = t end
      end
      return out
    end
    local actions = {
      unwatch = function(a) a:unwatch(1) end,
      watch = function(a) a:watch(5000, 3, nil, { max = 2 }) end,
      pin = function(a) a:pin(2, 3) end,
      update = function(a) a:update() end,
      close = function(a) a:close() end,
    }
    local calls = {  -- each makes a block of the aoi's (checked by util.during: the finalizer ran inside)
      { "watch grows the options' block", function(a) a:watch(1000, 10, nil, opt) end },
      { "pin makes the pins' block", function(a) a:pin(1, 2) end },
      { "update makes the interest blocks", function(a) a:update() end },
    }
    for _, c in ipairs(calls) do
      for name, act in pairs(actions) do
        local aoi = soageo.aoi(l)
        for i = 1, 16 do aoi:watch(i, 10, nil, opt) end
        local err
        local ok, e = util.during(function() c[2](aoi) end, function()
          local fine, why = pcall(act, aoi)
          if not fine then err = why end
        end)
        assert.is_true(ok, c[1] .. ", " .. name .. ": " .. tostring(e))
        if name == "close" then
          assert.is_nil(err)
          assert.is_truthy(tostring(aoi):find("closed", 1, true), c[1])
        else
          assert.matches("aoi is busy: called from a finalizer during a call", err)
          aoi:update()
          for i = 1, 16 do assert.are.same(brute(i), (aoi:visible(i))) end
          local views = {}
          for i = 1, 16 do
            views[i] = {}
            for _, t in ipairs(aoi:visible(i)) do views[i][t] = true end
          end
          local due, n = aoi:due()
          for k = 1, n do  -- the due pairs of watchers 1..16 are pairs they see
            local w, t = due[2 * k - 1], due[2 * k]
            if w <= 16 then assert.is_true(views[w][t]) end
          end
        end
      end
    end
  end)
end)
