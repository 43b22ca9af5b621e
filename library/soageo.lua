---@meta soageo
-- LuaLS / EmmyLua definitions of soageo (types only: nothing here runs). Point your editor
-- at this directory, e.g. in .luarc.json: { "workspace.library": ["<path>/library"] }.
-- The full reference is doc/manual.md; test/types_spec.lua keeps this file and the module
-- in step (every function exported at run time is defined here, and nothing more).

---Geometry queries, pairs and area of interest over a native struct-of-arrays entity store.
---@class soageo
---@field _VERSION string the module's version, equal to the rockspec's ("0.2.0")
local soageo = {}

---A reusable result table: ids (or flat pairs) in `[1..n]`, entries after `n` cleared.
---@alias soageo.out integer[]

---A new empty layer; it grows by doubling past `capacity`.
---@param capacity? integer initial slots, in [0, 2^28] ([0, 2^24] on 32-bit hosts; default 0)
---@return soageo.layer
function soageo.layer(capacity) end

---The SIMD target this Lua state uses ("scalar", "sse2", "avx2", "avx512" or "neon").
---@return string
function soageo.arch() end

---The targets this CPU runs, scalar first.
---@return string[]
function soageo.archs() end

---Switches this Lua state (only) to another SIMD target; for tests.
---@param name string a name from soageo.archs()
---@return string previous the target used until now
function soageo.use_arch(name) end

---Rebuilds a layer from a `layer:dump()` string (same ids, values and order).
---@param snapshot string
---@return soageo.layer
function soageo.load(snapshot) end

---An area of interest over a layer's entities; it keeps the layer alive.
---@param layer soageo.layer
---@param options? {margin?: number} margin: hysteresis distance added before a leave (default 0); other keys raise
---@return soageo.aoi
function soageo.aoi(layer, options) end

---Contact events over a layer's boxes (centre +- r, touching counts); it keeps the layer alive.
---@param layer soageo.layer
---@return soageo.contacts
function soageo.contacts(layer) end

---An immutable set of closed wall segments {x0, y0, x1, y1, ...} (float32) with its own index.
---@param coords number[] flat, 4 numbers per wall; a wall with equal ends is a point
---@return soageo.walls
function soageo.walls(coords) end

---A tile map: cols x rows closed square cells of side `cell` from (x0, y0), outside free.
---@param cols integer in [0, 2^24]
---@param rows integer in [0, 2^24]; cols * rows at most 2^28
---@param cell number > 0
---@param blocked string cols * rows bytes, '1' blocked, '0' free; byte k + 1 is col k % cols, row k // cols
---@param x0? number default 0
---@param y0? number default 0
---@return soageo.tiles
function soageo.tiles(cols, rows, cell, blocked, x0, y0) end

---The edges of the closed ring {x1, y1, ..., xn, yn} as walls coords, appended to out.
---@param ring number[]
---@param out? number[]
---@return number[] out
function soageo.outline(ring, out) end

---Every pair (id in a, id in b) whose boxes (centre +- r) overlap, touching counts; sorted.
---@param layer_a soageo.layer|soageo.past_view|soageo.shared_layer a layer, or a view of one (a past tick, a shared copy)
---@param layer_b soageo.layer|soageo.past_view|soageo.shared_layer must be another object than layer_a
---@param out? soageo.out flat {a1, b1, a2, b2, ...}
---@return soageo.out out
---@return integer n number of pairs
function soageo.pairs_between(layer_a, layer_b, out) end

---Publishes a frozen copy of a layer, walls or tiles (with a built index) under `name` for
---every Lua state of the process; sharing again publishes the next version (1, 2, ...).
---@param object soageo.layer|soageo.walls|soageo.tiles not a view
---@param name string 1 to 255 bytes; a name keeps the kind it was first shared as
---@return integer version
function soageo.share(object, name) end

---A read-only view of the newest version under `name`, or nil and a message when none is.
---@param name string
---@return soageo.shared_layer|soageo.shared_walls|soageo.shared_tiles|nil view
---@return string? message
function soageo.attach(name) end

---The newest version published under `name` (cheap, for polling), or nil.
---@param name string
---@return integer|nil version
function soageo.version(name) end

---Drops the registry's hold on `name`'s newest version (views keep theirs); false when none.
---@param name string
---@return boolean
function soageo.unshare(name) end

---Every name with a version published: {name, kind, version, bytes, holders}, in name order.
---@return {name: string, kind: string, version: integer, bytes: integer, holders: integer}[]
function soageo.shared() end

---A dense struct-of-arrays store of entities: integer id, x, y, radius, 32 mask bits.
---`#layer` is the entity count; `<close>` and the garbage collector call `close`.
---@class soageo.layer
---@operator len: integer
local layer = {}

---Inserts or updates an entity (x, y, r stored as float32).
---@param id integer any 64-bit integer (floats such as 2.0 are rejected)
---@param x number
---@param y number
---@param r? number radius >= 0 (default 0)
---@param mask? integer filter bits in [0, 0xffffffff] (default 1)
function layer:set(id, x, y, r, mask) end

---Moves a known entity; an error if the id is unknown.
---@param id integer
---@param x number
---@param y number
function layer:move(id, x, y) end

---Removes an entity (swap-remove, O(1)).
---@param id integer
---@return boolean removed true if it was there
function layer:remove(id) end

---An entity's stored (float32-rounded) values, or nil.
---@param id integer
---@return number? x
---@return number? y
---@return number? r
---@return integer? mask
function layer:get(id) end

---Whether the layer holds this id.
---@param id integer
---@return boolean
function layer:has(id) end

---Removes every entity, keeps the memory.
function layer:clear() end

---Batch `set` from Lua arrays of equal length; all-or-nothing.
---@param ids integer[]
---@param xs number[]
---@param ys number[]
---@param rs? number[]
---@param masks? integer[]
function layer:set_many(ids, xs, ys, rs, masks) end

---Batch `move` of known ids from Lua arrays of equal length (a repeated id ends at its last
---position); all-or-nothing: an unknown id or a non-finite x/y raises and changes nothing.
---@param ids integer[]
---@param xs number[]
---@param ys number[]
function layer:move_many(ids, xs, ys) end

---Slots allocated.
---@return integer
function layer:capacity() end

---Frees the columns now; idempotent (also `__gc` and `__close`).
function layer:close() end

---Iterates every entity: `for id, x, y, r, mask in layer:each() do`. Moves and updates are
---allowed inside the loop; after an id is added or removed the next step raises.
---@return fun(): integer, number, number, number, integer
function layer:each() end

---The layer (or only the listed ids, in list order) as a compact checksummed string.
---@param ids? integer[] ids of the layer, each once
---@return string
function layer:dump(ids) end

---Inserts or updates every entity of a snapshot, all or nothing; mask = (mask & ~clear) | set.
---@param snapshot string a layer:dump() string
---@param set? integer mask bits set on every merged entity (default 0)
---@param clear? integer mask bits cleared on every merged entity (default 0)
---@return integer new how many ids were not in the layer
function layer:merge(snapshot, set, clear) end

---Removes the listed ids (unknown ones are skipped); all ids are checked first.
---@param ids integer[]
---@return integer removed how many were there
function layer:remove_many(ids) end

---Brings the spatial index up to date now (optional: queries do it when it pays).
function layer:reindex() end

---Forces the scan or the index, or returns to choosing by cost; with no argument, reads it.
---@param mode? "auto"|"scan"|"index"
---@return "auto"|"scan"|"index" previous
function layer:index_mode(mode) end

---How the layer's queries ran so far: `indexed` and `scanned` (queries by path: each shape of a
---batch, each cast, each nearest with k > 0), `builds` (the index's cells made anew) and
---`refreshes` (refreshes after moves that kept them).
---@param t? table
---@return { indexed: integer, scanned: integer, builds: integer, refreshes: integer }
function layer:stats(t) end

---The k entities whose centres are closest, nearest first, ties by ascending id.
---@param x number
---@param y number
---@param k integer >= 0
---@param max_dist? number only centres with d2 < max_dist^2
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:nearest(x, y, k, max_dist, out, mask) end

---Ids whose centre is strictly inside the sector (apex, direction, radius, half-angle).
---@param x number apex
---@param y number apex
---@param dx number direction (any non-zero vector)
---@param dy number direction
---@param radius number >= 0
---@param half_angle number radians in (0, pi]; > pi/2 is reflex, pi the full disk
---@param out? soageo.out
---@param mask? integer keep entities with entity_mask & mask ~= 0
---@return soageo.out out
---@return integer n
function layer:in_sector(x, y, dx, dy, radius, half_angle, out, mask) end

---Ids whose disk touches the sector (closed: tangent counts).
---@param x number
---@param y number
---@param dx number
---@param dy number
---@param radius number
---@param half_angle number
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_sector(x, y, dx, dy, radius, half_angle, out, mask) end

---Ids whose centre is strictly inside the circle.
---@param x number
---@param y number
---@param radius number
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:in_circle(x, y, radius, out, mask) end

---Ids whose disk touches the circle (closed).
---@param x number
---@param y number
---@param radius number
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_circle(x, y, radius, out, mask) end

---Ids whose centre is in the axis-aligned box (closed: edges inside).
---@param minx number
---@param miny number
---@param maxx number >= minx
---@param maxy number >= miny
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:in_box(minx, miny, maxx, maxy, out, mask) end

---Ids whose disk touches the axis-aligned box (closed).
---@param minx number
---@param miny number
---@param maxx number
---@param maxy number
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_box(minx, miny, maxx, maxy, out, mask) end

---Ids whose disk comes within `radius` of the segment (a blade sweep; closed).
---@param x0 number
---@param y0 number
---@param x1 number
---@param y1 number
---@param radius number
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_capsule(x0, y0, x1, y1, radius, out, mask) end

---Ids whose centre is in the triangle (closed, either winding, decided exactly).
---@param ax number
---@param ay number
---@param bx number
---@param by number
---@param cx number
---@param cy number
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:in_triangle(ax, ay, bx, by, cx, cy, out, mask) end

---Ids whose disk touches the triangle (closed).
---@param ax number
---@param ay number
---@param bx number
---@param by number
---@param cx number
---@param cy number
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_triangle(ax, ay, bx, by, cx, cy, out, mask) end

---Ids whose centre is in the oriented rectangle: from (x, y), `length` along (dx, dy) (any
---non-zero direction, normalised for you) and `half_width` to each side (closed).
---@param x number
---@param y number
---@param dx number
---@param dy number
---@param length number >= 0
---@param half_width number >= 0
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:in_rect(x, y, dx, dy, length, half_width, out, mask) end

---Ids whose disk touches the oriented rectangle (closed).
---@param x number
---@param y number
---@param dx number
---@param dy number
---@param length number >= 0
---@param half_width number >= 0
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_rect(x, y, dx, dy, length, half_width, out, mask) end

---Ids whose centre is in the ring: inner^2 <= d^2 < outer^2 (inner edge in, outer edge out).
---@param x number
---@param y number
---@param inner number >= 0
---@param outer number >= inner
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:in_ring(x, y, inner, outer, out, mask) end

---Ids whose disk overlaps the closed annulus.
---@param x number
---@param y number
---@param inner number >= 0
---@param outer number >= inner
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_ring(x, y, inner, outer, out, mask) end

---Ids whose centre is in the convex polygon (closed, either winding, decided exactly).
---@param coords number[] {x1, y1, x2, y2, ...}: 3 to 64 vertices
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:in_polygon(coords, out, mask) end

---Ids whose disk touches the convex polygon (closed).
---@param coords number[] {x1, y1, x2, y2, ...}: 3 to 64 vertices
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_polygon(coords, out, mask) end

---Every entity box (centre +- r) the segment touches, ordered by entry parameter t, then id.
---@param x0 number
---@param y0 number
---@param x1 number
---@param y1 number
---@param ids? integer[] reused id table
---@param ts? number[] reused t table (another table than ids)
---@param mask? integer
---@return integer[] ids
---@return number[] ts entry parameters in [0, 1]
---@return integer n
function layer:cast_segment(x0, y0, x1, y1, ids, ts, mask) end

---The nearest box the segment touches: its id and entry parameter t, or nil.
---@param x0 number
---@param y0 number
---@param x1 number
---@param y1 number
---@param mask? integer
---@return integer? id
---@return number? t
function layer:cast_segment_first(x0, y0, x1, y1, mask) end

---Many sectors (6 numbers each, flat) in one call: flat (shape_index, id) pairs, shape by shape.
---@param params number[] {x, y, dx, dy, radius, half_angle, ...}
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n number of (shape, id) pairs
function layer:in_sector_batch(params, out, mask) end

---Many sectors, disk-overlap test (6 numbers each).
---@param params number[]
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_sector_batch(params, out, mask) end

---Many circles, point test (3 numbers each: x, y, radius).
---@param params number[]
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:in_circle_batch(params, out, mask) end

---Many circles, disk-overlap test (3 numbers each).
---@param params number[]
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_circle_batch(params, out, mask) end

---Many boxes, point test (4 numbers each: minx, miny, maxx, maxy).
---@param params number[]
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:in_box_batch(params, out, mask) end

---Many boxes, disk-overlap test (4 numbers each).
---@param params number[]
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_box_batch(params, out, mask) end

---Many capsules (5 numbers each: x0, y0, x1, y1, radius).
---@param params number[]
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_capsule_batch(params, out, mask) end

---Many triangles, point test (6 numbers each: ax, ay, bx, by, cx, cy).
---@param params number[]
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:in_triangle_batch(params, out, mask) end

---Many triangles, disk-overlap test (6 numbers each).
---@param params number[]
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_triangle_batch(params, out, mask) end

---Many oriented rectangles, point test (6 numbers each: x, y, dx, dy, length, half_width).
---@param params number[]
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:in_rect_batch(params, out, mask) end

---Many oriented rectangles, disk-overlap test (6 numbers each).
---@param params number[]
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_rect_batch(params, out, mask) end

---Many rings, point test (4 numbers each: x, y, inner, outer).
---@param params number[]
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:in_ring_batch(params, out, mask) end

---Many rings, disk-overlap test (4 numbers each).
---@param params number[]
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_ring_batch(params, out, mask) end

---Many convex polygons, point test: a table of coordinate tables.
---@param polygons number[][] {{x1, y1, ...}, {x1, y1, ...}, ...}
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:in_polygon_batch(polygons, out, mask) end

---Many convex polygons, disk-overlap test.
---@param polygons number[][] {{x1, y1, ...}, {x1, y1, ...}, ...}
---@param out? soageo.out
---@param mask? integer
---@return soageo.out out
---@return integer n
function layer:touch_polygon_batch(polygons, out, mask) end

---Every pair of entities whose boxes (centre +- r) overlap, touching counts; a < b, sorted.
---@param out? soageo.out flat {a1, b1, a2, b2, ...}
---@return soageo.out out
---@return integer n number of pairs
function layer:pairs(out) end

---The number of overlapping pairs, without building the list.
---@return integer
function layer:pair_count() end

---Keeps the last `ticks` committed states of the layer (0: off, drops them); says what it keeps.
---@param ticks? integer in [0, 64]; absent: only asks
---@return integer ticks how many ticks it keeps
---@return integer|nil oldest the oldest tick kept (nil: none)
---@return integer|nil newest the newest tick committed (nil: none kept)
function layer:history(ticks) end

---Records the layer as it is now (positions, radii, masks, ids) under the next tick (1, 2, ...).
---@return integer tick
function layer:commit() end

---A read-only view of the layer as committed at `tick`, or between `tick` and `tick + 1`.
---@param tick integer a tick the history keeps
---@param alpha? number in [0, 1] (default 0); 0 at the newest tick
---@return soageo.past_view
function layer:past(tick, alpha) end

---A layer as committed at a past tick (layer:past): it answers every query a layer answers,
---its mutating methods raise "layer is read-only: a past tick", and every call raises once
---its tick has left the history. It keeps its layer alive.
---@class soageo.past_view : soageo.layer
local past_view = {}

---The tick and alpha this view shows.
---@return integer tick
---@return number alpha
function past_view:tick() end

---A view of a shared layer (soageo.attach): it answers every query a layer answers, from the
---process's frozen copy; its mutating methods (and `reindex`) raise "layer is read-only:
---shared as 'name'". close() it when done: it keeps its version alive until then.
---@class soageo.shared_layer : soageo.layer
local shared_layer = {}

---The version this view holds.
---@return integer
function shared_layer:version() end

---Area of interest: watchers with a view radius, enter/leave events per update.
---`<close>` and the garbage collector call `close`.
---@class soageo.aoi
local aoi = {}

---Interest options of a watcher (`aoi:watch`): a cap on its view, and a schedule of due pairs.
---@class soageo.interest_options
---@field max? integer sees at most this many targets (the nearest), beyond the always-seen and pinned ones
---@field always? integer layer-mask bits of targets seen beyond the cap (default 0)
---@field band? number a pair's period grows by 1 every `band` of distance (default: period 1)
---@field max_period? integer the longest period, in updates (default 8)
---@field budget? integer at most this many due pairs listed an update

---Adds a watcher (an entity id of the layer) or changes its view radius, filter and options.
---@param id integer
---@param view_radius number >= 0
---@param mask? integer sees only targets whose layer mask shares a bit (default: every bit)
---@param options? soageo.interest_options caps and schedule (none: every target in view, every pair due)
function aoi:watch(id, view_radius, mask, options) end

---Keeps `target` in watcher's capped view while it is in view, beyond the cap.
---@param watcher integer
---@param target integer
function aoi:pin(watcher, target) end

---Ends a pin.
---@param watcher integer
---@param target integer
---@return boolean was_pinned
function aoi:unpin(watcher, target) end

---The (watcher, target) pairs due a state update at the last update, flat, sorted by watcher, then target.
---@param out? soageo.out
---@return soageo.out out
---@return integer n pairs
function aoi:due(out) end

---Removes a watcher.
---@param id integer
---@return boolean was_watcher
function aoi:unwatch(id) end

---Everything that changed since the last update, as flat sorted (watcher, target) pairs.
---@param enter? soageo.out
---@param leave? soageo.out another table than enter
---@return soageo.out enter
---@return soageo.out leave
---@return integer n_enter
---@return integer n_leave
function aoi:update(enter, leave) end

---What watcher `id` saw at the last update, ids ascending.
---@param id integer
---@param out? soageo.out
---@return soageo.out out
---@return integer n
function aoi:visible(id, out) end

---The watchers that saw `id` at the last update, ascending ("who sees me").
---@param id integer
---@param out? soageo.out
---@return soageo.out out
---@return integer n
function aoi:watchers_of(id, out) end

---The number of watchers.
---@return integer
function aoi:watchers() end

---How the updates have run so far: counters `full`, `incremental` (committed updates by path),
---`inversion_builds` and `inversion_follows` (how watchers_of's inverted lists were kept),
---`interest_chosen` and `interest_kept` (special watchers' views chosen anew or kept),
---`interest_narrowed` and `interest_widened` (capped watchers scanned only as far as their caps
---need, and those scanned again out to their views).
---@param t? table
---@return { full: integer, incremental: integer, inversion_builds: integer, inversion_follows: integer, interest_chosen: integer, interest_kept: integer, interest_narrowed: integer, interest_widened: integer }
function aoi:stats(t) end

---Frees the aoi now; idempotent (also `__gc` and `__close`).
function aoi:close() end

---@class soageo.contacts
local contacts = {}

---The box pairs that began and stopped overlapping since the last update, as flat sorted
---(a, b) pairs with a < b: the difference of two successive layer:pairs().
---@param began? soageo.out
---@param ended? soageo.out another table than began
---@return soageo.out began
---@return soageo.out ended
---@return integer n_began
---@return integer n_ended
function contacts:update(began, ended) end

---The ids whose boxes overlapped `id`'s at the last update, ascending.
---@param id integer
---@param out? soageo.out
---@return soageo.out out
---@return integer n
function contacts:touching(id, out) end

---How many updates took each path: t.full (a sweep of the layer) and t.incremental (searches
---around the changed boxes only); t.grids: the grids the incremental path built.
---@param t? table filled and returned
---@return {full: integer, incremental: integer, grids: integer}
function contacts:stats(t) end

---Frees the object now; idempotent (also `__gc` and `__close`).
function contacts:close() end

---Static wall segments (soageo.walls); `#walls` is their count.
---@class soageo.walls
---@operator len: integer
local walls = {}

---The closed segment (x0, y0)-(x1, y1) meets a wall (touching counts; a zero-length one is a point).
---@param x0 number
---@param y0 number
---@param x1 number
---@param y1 number
---@return boolean
function walls:blocked(x0, y0, x1, y1) end

---The first contact along the segment: t in [0, 1] and the wall number, ties to the lowest; or nil.
---@param x0 number
---@param y0 number
---@param x1 number
---@param y1 number
---@return number? t
---@return integer? number
function walls:cast(x0, y0, x1, y1) end

---`blocked` for every 4 numbers of coords: one boolean each.
---@param coords number[]
---@param out? boolean[]
---@return boolean[] out
---@return integer n
function walls:blocked_many(coords, out) end

---The entries of ids[1..n] whose entity centre is seen from (x, y), in order; open at both ends.
---@param x number
---@param y number
---@param layer soageo.layer|soageo.past_view|soageo.shared_layer where the ids stand (a past view: as at its tick)
---@param ids integer[] every id must be in the layer
---@param n? integer in [0, #ids] (default #ids)
---@param out? integer[] may be ids itself
---@return integer[] out
---@return integer m
function walls:visible(x, y, layer, ids, n, out) end

---Wall i's stored float32 ends.
---@param i integer in [1, #walls]
---@return number x0
---@return number y0
---@return number x1
---@return number y1
function walls:get(i) end

---Frees it now; idempotent (also `__gc` and `__close`).
function walls:close() end

---A view of shared walls (soageo.attach): every walls query, from the process's frozen copy.
---@class soageo.shared_walls : soageo.walls
local shared_walls = {}

---The version this view holds.
---@return integer
function shared_walls:version() end

---A tile map of closed square cells (soageo.tiles).
---@class soageo.tiles
local tiles = {}

---The closed segment (x0, y0)-(x1, y1) meets a blocked cell (touching counts; a zero-length one is a point).
---@param x0 number
---@param y0 number
---@param x1 number
---@param y1 number
---@return boolean
function tiles:blocked(x0, y0, x1, y1) end

---The first contact along the segment: t in [0, 1] and the cell (row * cols + col + 1) number, ties to the lowest; or nil.
---@param x0 number
---@param y0 number
---@param x1 number
---@param y1 number
---@return number? t
---@return integer? number
function tiles:cast(x0, y0, x1, y1) end

---`blocked` for every 4 numbers of coords: one boolean each.
---@param coords number[]
---@param out? boolean[]
---@return boolean[] out
---@return integer n
function tiles:blocked_many(coords, out) end

---The entries of ids[1..n] whose entity centre is seen from (x, y), in order; open at both ends.
---@param x number
---@param y number
---@param layer soageo.layer|soageo.past_view|soageo.shared_layer where the ids stand (a past view: as at its tick)
---@param ids integer[] every id must be in the layer
---@param n? integer in [0, #ids] (default #ids)
---@param out? integer[] may be ids itself
---@return integer[] out
---@return integer m
function tiles:visible(x, y, layer, ids, n, out) end

---Opens or closes one cell (a door).
---@param col integer in [0, cols)
---@param row integer in [0, rows)
---@param blocked boolean
function tiles:set(col, row, blocked) end

---Frees it now; idempotent (also `__gc` and `__close`).
function tiles:close() end

---A view of shared tiles (soageo.attach): every tiles query; `set` raises "tiles is
---read-only: shared as 'name'".
---@class soageo.shared_tiles : soageo.tiles
local shared_tiles = {}

---The version this view holds.
---@return integer
function shared_tiles:version() end

return soageo
