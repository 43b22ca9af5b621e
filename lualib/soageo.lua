-- soageo: geometry queries over a native struct-of-arrays entity store.
-- The hot paths are methods of the layer userdata and go straight into C; this file only
-- names the module's functions and documents them (see doc/manual.md for the full reference).
local core = require "soageo.core"
local type, error = type, error

local soageo = {
  _VERSION = "0.2.0",       -- equal to the rockspec version (test/version_spec.lua)
  layer = core.layer,        -- soageo.layer([capacity]) -> layer
  arch = core.arch,          -- SIMD target this Lua state uses
  archs = core.archs,        -- targets this CPU runs, scalar first
  use_arch = core.use_arch,  -- switch this Lua state's target (tests); returns the previous name
  load = core.load,          -- soageo.load(snapshot) -> layer (see layer:dump())
  aoi = core.aoi,            -- soageo.aoi(layer [, {margin = m}]) -> aoi
  contacts = core.contacts,  -- soageo.contacts(layer) -> contacts: began/ended overlaps per update
  walls = core.walls,        -- soageo.walls(coords) -> walls: static segments {x0, y0, x1, y1, ...}
  tiles = core.tiles,        -- soageo.tiles(cols, rows, cell, blocked [, x0, y0]) -> tiles
  pairs_between = core.pairs_between,  -- (layer_a, layer_b [, out]) -> out, n: overlapping (id in a, id in b)
  share = core.share,        -- soageo.share(layer | walls | tiles, name) -> version: a frozen copy for the process
  attach = core.attach,      -- soageo.attach(name) -> read-only view | nil, message
  version = core.version,    -- soageo.version(name) -> newest version | nil
  unshare = core.unshare,    -- soageo.unshare(name) -> boolean
  shared = core.shared,      -- soageo.shared() -> {{name, kind, version, bytes, holders}, ...}
}

-- soageo.outline(ring [, out]) -> out: the edges of the closed ring {x1, y1, ..., xn, yn} as
-- walls coordinates (x1, y1, x2, y2, x2, y2, x3, y3, ..., xn, yn, x1, y1), appended to out. A
-- ring written closed (its last vertex its first again, as GeoJSON writes one) gives the same
-- edges: the repeated vertex would only add a wall of zero length.
function soageo.outline(ring, out)
  if type(ring) ~= "table" then error("bad argument #1 to 'outline' (table expected, got " .. type(ring) .. ")", 2) end
  if out ~= nil and type(out) ~= "table" then
    error("bad argument #2 to 'outline' (table or nil expected, got " .. type(out) .. ")", 2)
  end
  local n = #ring
  if n % 2 ~= 0 then error("bad argument #1 to 'outline' (ring must hold x, y pairs)", 2) end
  if n >= 4 and ring[n - 1] == ring[1] and ring[n] == ring[2] then n = n - 2 end
  out = out or {}
  local k = #out
  for i = 1, n - 1, 2 do
    local j = i + 2 > n and 1 or i + 2
    out[k + 1], out[k + 2], out[k + 3], out[k + 4] = ring[i], ring[i + 1], ring[j], ring[j + 1]
    k = k + 4
  end
  return out
end

_ENV = nil

return soageo
