-- soageo: geometry queries over a native struct-of-arrays entity store.
-- The hot paths are methods of the layer userdata and go straight into C; this file only
-- names the module's functions and documents them (see README.md for the full reference).
local core = require "soageo.core"

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
}

_ENV = nil

return soageo
