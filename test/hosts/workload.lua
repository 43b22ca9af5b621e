-- A scripted workload over the whole API, for the C++ test hosts (oom_host, thread_host).
-- run(size, seed) returns a digest string of every result; check() verifies that every layer
-- and aoi the workload touched is consistent and usable (after an out-of-memory error too).
local soageo = require "soageo"

local W = { layers = {}, aois = {} }

local function rng(seed)
  local s = seed
  return function(lo, hi)
    s = (s * 48271) % 0x7fffffff
    return lo + (hi - lo) * (s / 0x7fffffff)
  end
end

local function digest_of(acc, out, n)
  local h = acc
  for i = 1, n do h = (h * 31 + out[i]) % 1000000007 end
  return (h * 17 + n) % 1000000007
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
  W.aois[#W.aois + 1] = aoi
  for i = 2, size, 2 do if a:has(i) then aoi:watch(i, 25) end end
  local enter, leave = {}, {}
  for _ = 1, 3 do
    for id, x, y in a:each() do a:move(id, x + r(-2, 2), y + r(-2, 2)) end
    local ne, nl
    enter, leave, ne, nl = aoi:update(enter, leave)
    h = digest_of(h, enter, 2 * ne)
    h = digest_of(h, leave, 2 * nl)
  end
  return tostring(h)
end

-- Every layer: each() and get() agree, #layer counts them, a query and a snapshot work, and it
-- still accepts new entities. Every aoi still updates. Raises on any inconsistency.
function W.check()
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
    assert(#soageo.load(l:dump()) == count, "snapshot lost entities")
    l:set(-1, 1, 1)
    assert(l:get(-1) == 1.0)
    assert(l:remove(-1))
  end
  for _, a in ipairs(W.aois) do a:update() end
  return true
end

return W
