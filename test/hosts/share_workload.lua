-- The shared-objects part of thread_host: one writer publishes versions of a layer and of walls
-- under fixed names while readers on other threads attach, query, hold a few versions and
-- release them. Version v is always built from seed v, so a reader checks what a view answers
-- against a private layer built from its version's seed (memoised per version).
local soageo = require "soageo"
local new_rng = require("rng").new

local S = {}
local N = 600
local LAYER, WALLS = "threads.share.layer", "threads.share.walls"

local function build(seed)
  local r = new_rng(seed)
  local l = soageo.layer()
  for id = 1, N do l:set(id, r:uniform(0, 300), r:uniform(0, 300), r:uniform(0, 4), r:int(1, 3)) end
  local coords = {}
  for i = 1, 80 do
    local x, y = r:uniform(0, 300), r:uniform(0, 300)
    coords[4 * i - 3], coords[4 * i - 2], coords[4 * i - 1], coords[4 * i] = x, y, x + r:uniform(-30, 30), y + r:uniform(-30, 30)
  end
  return l, soageo.walls(coords)
end

-- A digest of queries over a layer (or view) and walls (or view).
local function digest(l, w)
  local acc, out = {}, {}
  local r = new_rng(7)
  for _ = 1, 20 do
    local x, y = r:uniform(0, 300), r:uniform(0, 300)
    local _, n = l:touch_box(x, y, x + 40, y + 40, out)
    acc[#acc + 1] = n .. ":" .. (out[1] or "-")
    _, n = l:nearest(x, y, 5, nil, out)
    acc[#acc + 1] = n .. ":" .. table.concat(out, ",", 1, n)
    acc[#acc + 1] = tostring(w:blocked(x, y, 150, 150))
    acc[#acc + 1] = tostring(w:cast(x, y, 300 - x, 300 - y))
  end
  local ids = {}
  for i = 1, 50 do ids[i] = i end
  local _, seen = w:visible(150, 150, l, ids)
  acc[#acc + 1] = seen .. ":" .. #l
  return table.concat(acc, ";")
end

-- Publishes versions 1..versions of both names; returns "ok" or an error.
function S.writer(versions)
  for v = 1, versions do
    local l, w = build(v)
    local got = soageo.share(l, LAYER)
    if got ~= v then return "layer version " .. tostring(got) .. ", expected " .. v end
    if soageo.share(w, WALLS) ~= v then return "walls version, expected " .. v end
    l:close()
    w:close()
  end
  return "ok"
end

-- Attaches and checks until it has seen version `last` `rounds` times; holds up to 3 views.
function S.reader(last, seed)
  local want, held = {}, {}
  local r = new_rng(seed)
  local seen_last, checks = 0, 0
  local deadline = os.time() + 120  -- a writer that failed publishes no last version
  while seen_last < 3 do
    if os.time() > deadline then return "gave up waiting for version " .. last end
    local lv = soageo.attach(LAYER)
    local wv = soageo.attach(WALLS)
    if lv and wv then
      local v = math.min(lv:version(), wv:version())
      -- Both at the same version to compare: the writer publishes the layer first.
      if lv:version() == wv:version() then
        if not want[v] then
          local l, w = build(v)
          want[v] = digest(l, w)
        end
        if digest(lv, wv) ~= want[v] then return "version " .. v .. ": answers differ" end
        checks = checks + 1
        if v == last then seen_last = seen_last + 1 end
      end
      held[#held + 1] = { lv, wv }
      if #held > 3 or r:int(0, 1) == 0 then
        local old = table.remove(held, 1)
        old[1]:close()
        old[2]:close()
      end
    end
  end
  for _, h in ipairs(held) do h[1]:close(); h[2]:close() end
  collectgarbage()
  return "ok " .. checks
end

-- After every thread: nothing holds the newest versions but the registry.
function S.check(last)
  for _, e in ipairs(soageo.shared()) do
    if e.name == LAYER or e.name == WALLS then
      if e.version ~= last or e.holders ~= 0 then
        return ("%s: version %d, %d holders"):format(e.name, e.version, e.holders)
      end
    end
  end
  if not soageo.unshare(LAYER) or not soageo.unshare(WALLS) then return "nothing to unshare" end
  return "ok"
end

return S
