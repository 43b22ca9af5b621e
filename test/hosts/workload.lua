-- A scripted workload over the whole API, for the C++ test hosts (oom_host, thread_host).
-- run(size, seed) returns a digest string of every result; check() verifies that every layer
-- and aoi the workload touched is consistent and usable (after an out-of-memory error too).
local soageo = require "soageo"

local W = { layers = {}, aois = {}, contacts = {}, walls = {}, histories = {} }

-- Replays flat (a, b) events onto a set of "a b" keys; false on an impossible event.
local function replay(set, adds, n_add, drops, n_drop)
  for i = 1, n_drop do
    local k = drops[2 * i - 1] .. " " .. drops[2 * i]
    if not set[k] then return false end
    set[k] = nil
  end
  for i = 1, n_add do
    local k = adds[2 * i - 1] .. " " .. adds[2 * i]
    if set[k] then return false end
    set[k] = true
  end
  return true
end

local new_rng = require("rng").new  -- the specs' generator (test/rng.lua)

local function rng(seed)
  local g = new_rng(seed)
  return function(lo, hi) return g:uniform(lo, hi) end
end

local function digest_of(acc, out, n)
  local h = acc
  for i = 1, n do h = (h * 31 + out[i]) % 1000000007 end
  return (h * 17 + n) % 1000000007
end

-- One contacts:update whose events must apply to what the last successful one said (`w`),
-- folded into the digest.
local function contacts_tick(w, h, began, ended)
  local nb, nd
  began, ended, nb, nd = w.c:update(began, ended)
  w.synced = false
  assert(replay(w.touching, began, nb, ended, nd), "contact events do not apply")
  w.synced = true
  return digest_of(digest_of(h, began, 2 * nb), ended, 2 * nd), began, ended
end

-- Shared copies of the layer and the walls under names of this state's own (states on other
-- threads share theirs meanwhile), asked what the originals were asked, then unshared.
local function shared_digest(h, size, a, walls, ids)
  local name = "workload." .. tostring(W) .. "." .. size
  soageo.share(a, name)
  soageo.share(walls, name .. ".walls")
  do
    local view <close> = assert(soageo.attach(name))
    local wview <close> = assert(soageo.attach(name .. ".walls"))
    local mine, n = a:touch_box(20, 20, 120, 90)
    local out, m = view:touch_box(20, 20, 120, 90)
    assert(m == n and #view == #a, "a shared view answers otherwise than its layer")
    for i = 1, n do assert(out[i] == mine[i], "a shared view answers otherwise than its layer") end
    h = digest_of(h, out, m)
    local seen, k = wview:visible(100, 100, view, ids)
    h = digest_of(h, seen, k)
  end
  soageo.unshare(name)
  soageo.unshare(name .. ".walls")
  return h
end

function W.run(size, seed)
  local r = rng(seed)
  local h = 7
  local a = soageo.layer(2)           -- grows several times
  W.layers[#W.layers + 1] = a
  for i = 1, size do a:set(i, r(0, 200), r(0, 200), r(0, 4), 1 + (i % 3)) end
  local ids, xs, ys, rs = {}, {}, {}, {}
  for i = 1, size do ids[i], xs[i], ys[i], rs[i] = size + i, r(0, 200), r(0, 200), r(0, 3) end
  a:set_many(ids, xs, ys, rs)
  for i = 1, size, 3 do a:move(i, r(0, 200), r(0, 200)) end
  for i = 1, size, 5 do a:remove(i) end
  local out = {}
  local n
  out, n = a:in_sector(100, 100, 1, 0.5, 80, 0.7, out); h = digest_of(h, out, n)
  out, n = a:touch_sector(100, 100, -1, 0, 60, 2.5, out, 2); h = digest_of(h, out, n)
  out, n = a:in_circle(50, 50, 40, out); h = digest_of(h, out, n)
  out, n = a:touch_box(20, 20, 120, 90, out); h = digest_of(h, out, n)
  out, n = a:touch_capsule(0, 0, 200, 200, 10, out); h = digest_of(h, out, n)
  out, n = a:in_triangle(0, 0, 200, 0, 100, 150, out); h = digest_of(h, out, n)
  out, n = a:touch_triangle(0, 0, 200, 0, 100, 150, out); h = digest_of(h, out, n)
  local ts
  out, ts, n = a:cast_segment(0, 100, 200, 100, out, {}); h = digest_of(h, out, n)
  out, n = a:in_sector_batch({ 10, 10, 1, 1, 90, 0.5, 150, 150, -1, 0, 70, 1.5 }, out); h = digest_of(h, out, 2 * n)
  -- The spatial index: its block is one more allocation that may fail; queries forced
  -- through it, then a rebuild after moves.
  a:reindex()
  a:index_mode("index")
  out, n = a:touch_box(20, 20, 60, 50, out); h = digest_of(h, out, n)
  out, n = a:nearest(100, 100, 7, nil, out); h = digest_of(h, out, n)
  h = (h * 13 + (a:cast_segment_first(0, 100, 200, 100) or 0)) % 1000000007
  for i = 2, size, 7 do a:move(size + i, r(0, 200), r(0, 200)) end
  out, n = a:in_circle_batch({ 30, 30, 20, 150, 60, 35 }, out); h = digest_of(h, out, 2 * n)
  a:index_mode("auto")
  out, n = a:pairs(out); h = digest_of(h, out, 2 * n)
  h = (h * 13 + a:pair_count()) % 1000000007
  local b = soageo.load(a:dump())     -- a snapshot round trip
  W.layers[#W.layers + 1] = b
  for i = 1, size, 4 do b:move(size + i, r(0, 200), r(0, 200)) end
  out, n = soageo.pairs_between(a, b, out); h = digest_of(h, out, 2 * n)
  out, n = a:in_box(0, 0, 60, 200, out)  -- a border strip, mirrored into c as ghosts
  local c = soageo.layer()
  W.layers[#W.layers + 1] = c
  for i = 1, size, 3 do c:set(i, r(0, 200), r(0, 200)) end
  local strip = {}
  for i = 1, n do strip[i] = out[i] end
  h = (h * 13 + c:merge(a:dump(strip), 0x80000000)) % 1000000007
  h = (h * 13 + c:remove_many(strip)) % 1000000007
  h = (h * 13 + #c) % 1000000007
  local aoi = soageo.aoi(a, { margin = 2 })
  -- What the events said so far: only updates that returned count (one that ran out of
  -- memory must have left the aoi as it was, so the next events still apply to this).
  -- `synced` is false only between an update that returned and the end of its replay (the
  -- replay allocates: running out of memory there is the workload's loss, not the aoi's).
  local wa = { aoi = aoi, seen = {}, synced = true }
  W.aois[#W.aois + 1] = wa
  for i = 2, size, 2 do if a:has(i) then aoi:watch(i, 25, i % 6 == 0 and 2 or nil) end end  -- some filter
  local cs = soageo.contacts(a)
  local wc = { c = cs, layer = a, touching = {}, synced = true }
  W.contacts[#W.contacts + 1] = wc
  local enter, leave, began, ended = {}, {}, {}, {}
  for tick = 1, 6 do
    -- From tick 4 a tenth move: the aoi's incremental update, which changes its lists in place.
    for id, x, y in a:each() do if tick <= 3 or id % 10 == tick then a:move(id, x + r(-2, 2), y + r(-2, 2)) end end
    if tick == 2 then a:set(3 * size, 1, 1, 1, 0) end  -- an entity nobody sees
    if tick >= 5 then  -- deaths, a spawn, watch and unwatch: patched into the incremental update
      a:remove(4 + tick); aoi:unwatch(2 * tick)
      a:set(3 * size + tick, r(0, 200), r(0, 200), r(0, 3)); aoi:watch(3 * size + tick, 20)
    end
    local ne, nl
    enter, leave, ne, nl = aoi:update(enter, leave)
    wa.synced = false
    assert(replay(wa.seen, enter, ne, leave, nl), "aoi events do not apply")
    wa.synced = true
    h = digest_of(h, enter, 2 * ne)
    h = digest_of(h, leave, 2 * nl)
    out, n = aoi:watchers_of(5, out); h = digest_of(h, out, n)
    h, began, ended = contacts_tick(wc, h, began, ended)
    out, n = cs:touching(7, out); h = digest_of(h, out, n)
  end
  -- History: commits (positions only, then with an entity removed and one added), plain and
  -- interpolated views. What each committed tick held is kept (recs: slots made beforehand, so
  -- recording a tick that committed allocates nothing), for check() to compare.
  local hl = soageo.layer()
  W.layers[#W.layers + 1] = hl
  local wh = { layer = hl, recs = { false, false, false, false, false, false } }
  W.histories[#W.histories + 1] = wh
  hl:history(3)
  for i = 1, size do hl:set(i, r(0, 200), r(0, 200), r(0, 2), 1 + (i % 2)) end
  for tick = 1, 6 do
    for i = tick % 2 + 1, size, 2 do
      local x, y = hl:get(i)
      if x then hl:move(i, x + r(-3, 3), y + r(-3, 3)) end
    end
    if tick == 3 then hl:remove(2); hl:set(size + 1, 5, 5, 1) end
    local rec = {}
    for id, x, y, rr, m in hl:each() do rec[#rec + 1] = { id, x, y, rr, m } end
    local t = hl:commit()
    wh.recs[t] = rec
    out, n = hl:past(math.max(1, t - 2)):touch_box(20, 20, 120, 90, out); h = digest_of(h, out, n)
    if t > 1 then
      out, n = hl:past(t - 1, 0.5):in_circle(100, 100, 50, out); h = digest_of(h, out, n)
    end
  end
  -- Contacts on a layer large enough for their incremental path (2,048 entities and up), a
  -- tenth moving each tick: its searches and its merge under every allocation failure too.
  if size >= 400 then
    local big = soageo.layer(2100)
    W.layers[#W.layers + 1] = big
    for i = 1, 2100 do big:set(i, r(0, 500), r(0, 500), r(0, 3)) end
    local cb = soageo.contacts(big)
    local wb = { c = cb, layer = big, touching = {}, synced = true }
    W.contacts[#W.contacts + 1] = wb
    for tick = 1, 3 do
      if tick > 1 then
        for id = tick, 2100, 10 do
          local x, y = big:get(id)
          big:move(id, x + r(-2, 2), y + r(-2, 2))
        end
      end
      if tick == 3 then big:remove(5); big:set(2101, r(0, 500), r(0, 500), r(0, 3)) end  -- renumbered
      h, began, ended = contacts_tick(wb, h, began, ended)
    end
  end
  -- Walls and tiles: built (the index, the cells), queried, visible's scratch and result tables.
  local coords = {}
  for _ = 1, size do
    local x, y = r(0, 200), r(0, 200)
    coords[#coords + 1], coords[#coords + 2], coords[#coords + 3], coords[#coords + 4] = x, y, x + r(-10, 10), y + r(-10, 10)
  end
  local walls = soageo.walls(coords)
  W.walls[#W.walls + 1] = walls
  local bytes = {}
  for k = 1, 32 * 32 do bytes[k] = r(0, 1) < 0.2 and "1" or "0" end
  local tiles = soageo.tiles(32, 32, 6.5, table.concat(bytes), -4, -4)
  W.walls[#W.walls + 1] = tiles
  local rays = {}
  for i = 1, 160 do rays[i] = r(0, 200) end
  local ids = {}
  for id in a:each() do ids[#ids + 1] = id end
  for _, o in ipairs({ walls, tiles }) do
    local b, nb = o:blocked_many(rays)
    for i = 1, nb do h = (h * 31 + (b[i] and 1 or 0)) % 1000000007 end
    local _, k = o:cast(0, 0, 200, 200)
    h = (h * 31 + (k or 0)) % 1000000007
    local seen, m = o:visible(100, 100, a, ids)
    h = digest_of(h, seen, m)
  end
  tiles:set(3, 3, true)
  h = shared_digest(h, size, a, walls, ids)
  return tostring(h)
end

-- Every layer: each() and get() agree, #layer counts them, a query and a snapshot work, and it
-- still accepts new entities. Every aoi still updates. Raises on any inconsistency.
function W.check()
  -- First (the checks of every layer below change them): every history holds exactly the ticks
  -- that committed, as they were, and commits the layer as it is now (a failed commit must
  -- have kept what changed since the last one).
  for _, w in ipairs(W.histories) do
    local ticks, oldest, newest = w.layer:history()
    for t = oldest or 1, newest or 0 do
      local rec = assert(w.recs[t], "a tick kept without having committed")
      local v = w.layer:past(t)
      local i = 0
      for id, x, y, rr, m in v:each() do
        i = i + 1
        local e = rec[i]
        assert(e and e[1] == id and e[2] == x and e[3] == y and e[4] == rr and e[5] == m,
          "a past tick differs from what was committed")
      end
      assert(i == #rec and #v == #rec, "a past tick lost entities")
      if t > oldest then
        local _, n = w.layer:past(t - 1, 0.5):in_circle(100, 100, 1e6)
        assert(n == #w.recs[t - 1], "an interpolated view lost entities")
      end
    end
    if ticks > 0 then
      local t = w.layer:commit()
      assert(newest == nil or t == newest + 1, "commit skipped a tick")
      local now = {}
      for id, x, y, rr, m in w.layer:each() do now[#now + 1] = table.concat({ id, x, y, rr, m }, " ") end
      local i = 0
      for id, x, y, rr, m in w.layer:past(t):each() do
        i = i + 1
        assert(now[i] == table.concat({ id, x, y, rr, m }, " "), "commit did not record the layer as it is")
      end
      assert(i == #now, "commit did not record every entity")
    end
  end
  for _, l in ipairs(W.layers) do
    local count = 0
    for id, x, y, r, m in l:each() do
      count = count + 1
      local gx, gy, gr, gm = l:get(id)
      assert(gx == x and gy == y and gr == r and gm == m, "get disagrees with each")
    end
    assert(count == #l, "#layer disagrees with each")
    local _, n = l:in_circle(100, 100, 1e6)
    assert(n == count, "a query lost entities")
    -- The index (built or not, stale or not) answers as the scan does.
    local mode = l:index_mode("index")
    local via_index, ni = l:touch_box(10, 10, 90, 120, {})
    local near, nn = l:nearest(50, 50, 5, nil, {})
    l:index_mode("scan")
    local via_scan, ns = l:touch_box(10, 10, 90, 120, {})
    local near_scan, nns = l:nearest(50, 50, 5, nil, {})
    l:index_mode(mode)
    assert(ni == ns and nn == nns, "the index and the scan disagree")
    for i = 1, ni do assert(via_index[i] == via_scan[i], "the index and the scan disagree") end
    for i = 1, nn do assert(near[i] == near_scan[i], "nearest: the index and the scan disagree") end
    assert(#soageo.load(l:dump()) == count, "snapshot lost entities")
    l:set(-1, 1, 1)
    assert(l:get(-1) == 1.0)
    assert(l:remove(-1))
  end
  -- Every aoi and contacts object: its next events apply to what its last successful
  -- update said, and the result is what it reports now (visible lists, watchers_of,
  -- touching) and, for contacts, exactly layer:pairs().
  for _, w in ipairs(W.aois) do
    local enter, leave, ne, nl = w.aoi:update()
    -- Unsynced: the workload lost what the aoi said last, so only usability is checked.
    if w.synced then assert(replay(w.seen, enter, ne, leave, nl), "aoi events do not apply after a failure") end
    local count = 0
    for _ in pairs(w.seen) do count = count + 1 end
    local listed = 0
    for k in pairs(w.synced and w.seen or {}) do
      local wid, t = k:match("(%S+) (%S+)")
      wid, t = math.tointeger(tonumber(wid)), math.tointeger(tonumber(t))
      local found = false
      for _, v in ipairs((w.aoi:visible(wid))) do found = found or v == t end
      assert(found, "visible disagrees with the events")
      found = false
      for _, v in ipairs((w.aoi:watchers_of(t))) do found = found or v == wid end
      assert(found, "watchers_of disagrees with the events")
      listed = listed + 1
    end
    assert(listed == count or not w.synced)
  end
  for _, w in ipairs(W.contacts) do
    local began, ended, nb, nd = w.c:update()
    local want, np = w.layer:pairs()
    if w.synced then
      assert(replay(w.touching, began, nb, ended, nd), "contact events do not apply after a failure")
      local count = 0
      for _ in pairs(w.touching) do count = count + 1 end
      assert(count == np, "contact events disagree with layer:pairs()")
      for i = 1, np do assert(w.touching[want[2 * i - 1] .. " " .. want[2 * i]], "a pair missing from the events") end
    end
    local degree = {}  -- and touching() agrees with the pairs for every entity
    for i = 1, 2 * np do degree[want[i]] = (degree[want[i]] or 0) + 1 end
    for id in w.layer:each() do
      local _, k = w.c:touching(id)
      assert(k == (degree[id] or 0), "touching disagrees with layer:pairs()")
    end
  end
  -- Walls and tiles: usable, and cast agrees with blocked.
  for _, o in ipairs(W.walls) do
    for i = 0, 20 do
      local t = o:cast(i * 10, 0, 200 - i * 10, 200)
      assert((t ~= nil) == o:blocked(i * 10, 0, 200 - i * 10, 200), "cast disagrees with blocked")
    end
    local l = soageo.layer()
    l:set(1, 50, 50)
    local _, m = o:visible(50, 50, l, { 1 })
    assert(m == 1, "a viewer does not see itself")
  end
  return true
end

return W
