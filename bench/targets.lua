-- The targets we set ourselves, read from what the benchmark programs print: bench/report.lua
-- puts a table of them, with the verdict of that run, at the top of each machine's section of
-- doc/benchmarks.md. A target names the program that prints its figures, what it promises
-- (op and limit), and how to find each figure in that program's output: a Lua pattern whose
-- capture `n` (default 1) is the figure, or a function of the output returning the figures.
-- A figure that is not found makes the verdict "not printed", never "met".

local N = "([%d.]+)"  -- a figure

-- The smallest value of column `col` (numbers counted from 1) over the rows of `text` that
-- start with `prefix` (after leading blanks), or nil.
local function column_min(text, prefix, col)
  local best
  for line in text:gmatch("[^\n]+") do
    local rest = line:match("^%s*" .. prefix .. "%s+(.*)$")
    if rest then
      local k = 0
      for v in rest:gmatch("[%d.]+") do
        k = k + 1
        if k == col then
          v = tonumber(v)
          if v and (not best or v < best) then best = v end
          break
        end
      end
    end
  end
  return best
end

-- From bench/bench_index_lua.lua's small-query table: (index, scan, Lua grid, vs scan, vs grid, hits).
local function small_queries(col, sizes)
  return function(text)
    local figures = {}
    for _, size in ipairs(sizes) do
      figures[#figures + 1] = { size[2], column_min(text, size[1] .. "%s+%a[%w_]*%s+%d+", col) }
    end
    return figures
  end
end

return {
  {
    program = "bench/bench_pairs_lua.lua",
    what = "`contacts:update` at least 20x faster than a plain-Lua diff of two `layer:pairs()` lists",
    op = ">=", limit = 20, unit = "x",
    figures = {
      { "10,000 all move", "contacts uniform 10,000 in 2000x2000, all move [^\n]-%(" .. N .. "x contacts" },
      { "10,000 a tenth", "contacts uniform 10,000 in 2000x2000, 10%% move [^\n]-%(" .. N .. "x contacts" },
      { "100,000 all move", "contacts uniform 100,000 in 6325x6325, all move [^\n]-%(" .. N .. "x contacts" },
      { "100,000 a tenth", "contacts uniform 100,000 in 6325x6325, 10%% move [^\n]-%(" .. N .. "x contacts" },
    },
  },
  {
    program = "bench/bench_pairs_lua.lua",
    what = "`contacts:update` within 1.5x of `layer:pairs()` when all move",
    op = "<=", limit = 1.5, unit = "x",
    figures = {
      { "10,000", "contacts uniform 10,000 in 2000x2000, all move [^\n]-%(" .. N .. "x pairs%)" },
      { "100,000", "contacts uniform 100,000 in 6325x6325, all move [^\n]-%(" .. N .. "x pairs%)" },
    },
  },
  {
    program = "bench/bench_pairs_lua.lua",
    what = "`contacts:update` within 0.3x of `layer:pairs()` when a tenth move (with deaths and spawns too)",
    op = "<=", limit = 0.3, unit = "x",
    figures = {
      { "10,000", "contacts uniform 10,000 in 2000x2000, 10%% move [^\n]-%(" .. N .. "x pairs%)" },
      { "100,000", "contacts uniform 100,000 in 6325x6325, 10%% move [^\n]-%(" .. N .. "x pairs%)" },
      { "10,000, 1 dies, 1 spawns", "contacts 10,000, 10%% move, 1 dies, 1 spawns[^\n]-%(" .. N .. "x pairs%)" },
      { "100,000, 16 die, 16 spawn", "contacts 100,000, 10%% move, 16 die, 16 spawn[^\n]-%(" .. N .. "x pairs%)" },
    },
  },
  {
    program = "bench/bench_pairs_lua.lua",
    what = "with a tenth moving, an AOI update at most 0.25x the all-moving one",
    op = "<=", limit = 0.25, unit = "x",
    figures = {
      { "10,000 uniform", "aoi   uniform 10,000: 10%% moving   all moving[^\n]-10%% moving [%d.]+ ms %(" .. N .. "x%)" },
      { "2,000 crowded", "aoi   crowded 2,000: 10%% moving[^\n]-10%% moving [%d.]+ ms %(" .. N .. "x%)" },
    },
  },
  {
    program = "bench/bench_pairs_lua.lua",
    what = "with a tenth moving, an AOI update within 0.6 ms at 10,000 uniform",
    op = "<=", limit = 0.6, unit = " ms",
    figures = { { "10,000 uniform", "aoi   uniform 10,000: 10%% moving   all moving[^\n]-10%% moving " .. N .. " ms" } },
  },
  {
    program = "bench/bench_pairs_lua.lua",
    what = "with a tenth moving, an AOI update within 0.5 ms at 2,000 crowded",
    op = "<=", limit = 0.5, unit = " ms",
    figures = { { "2,000 crowded", "aoi   crowded 2,000: 10%% moving[^\n]-10%% moving " .. N .. " ms" } },
  },
  {
    program = "bench/bench_pairs_lua.lua",
    what = "`aoi:watchers_of` within 1 us",
    op = "<=", limit = 1, unit = " us",
    figures = { { "10,000 uniform", "watchers_of " .. N .. " us per call" } },
  },
  {
    program = "bench/bench_pairs_lua.lua",
    what = "the update that keeps `watchers_of` current within 1.15x of the update",
    op = "<=", limit = 1.15, unit = "x",
    figures = { { "10,000 uniform", "update %+ inversion [%d.]+ ms %(" .. N .. "x%)" } },
  },
  {
    program = "bench/bench_pairs_lua.lua",
    what = "AOI masks within 1.1x of the unfiltered update",
    op = "<=", limit = 1.1, unit = "x",
    figures = {
      { "10,000 uniform", "aoi   uniform 10,000: masks[^\n]-masks [%d.]+ ms %(" .. N .. "x%)" },
      { "2,000 crowded", "aoi   crowded 2,000: masks[^\n]-masks [%d.]+ ms %(" .. N .. "x%)" },
    },
  },
  {
    program = "build/bench_pairs",
    what = "`layer:pairs()` at 1,000,000 at least 3x one sweep of the whole layer (natively)",
    op = ">=", limit = 3, unit = "x",
    figures = { { "1,000,000 uniform", "uniform 1,000,000 in 20000x20000: 1000000 boxes.-layer:pairs natively[^\n]- " .. N .. "x" } },
  },
  {
    program = "build/bench_index",
    what = "the index rebuilt after every entity moved, at most 10 ns an entity",
    op = "<=", limit = 10, unit = " ns",
    figures = {
      { "100,000", "%f[%d]100000 entities: full build[^\n]-rebuild after all moved %(<= 2 units%)%s+" .. N .. " ns" },
      { "1,000,000", "%f[%d]1000000 entities: full build[^\n]-rebuild after all moved %(<= 2 units%)%s+" .. N .. " ns" },
    },
  },
  {
    program = "build/bench_index",
    what = "the index's upkeep a tick when every entity moves, rebuilds included, at most 10 ns an entity",
    op = "<=", limit = 10, unit = " ns",
    figures = {
      { "100,000", "%f[%d]100000 entities: full build.-upkeep per tick of such moves[^\n]-: " .. N .. " ns/entity a tick" },
      { "1,000,000", "%f[%d]1000000 entities: full build.-upkeep per tick of such moves[^\n]-: " .. N .. " ns/entity a tick" },
    },
  },
  {
    program = "bench/bench_index_lua.lua",
    what = "a small query at least 20x faster than the plain-Lua grid (the slowest of five shapes)",
    op = ">=", limit = 20, unit = "x",
    figures = small_queries(5, { { "100000", "100,000" }, { "1000000", "1,000,000" } }),
  },
  {
    program = "bench/bench_index_lua.lua",
    what = "a small query at least 3x, 15x and 100x faster than the scan at 10,000, 100,000 and 1,000,000",
    op = ">=", limits = { 3, 15, 100 }, unit = "x",
    figures = small_queries(4, { { "10000", "10,000" }, { "100000", "100,000" }, { "1000000", "1,000,000" } }),
  },
  {
    program = "bench/bench_index_lua.lua",
    what = "after every entity moved, one small query at most 1.1x the scan (its queries, the whole tick, the mean)",
    op = "<=", limit = 1.1, unit = "x",
    figures = {
      { "queries", "\n1%s+[%d.]+ ms%s+[%d.]+ ms%s+[%d.]+x%s+[%d.]+ ms%s+[%d.]+ ms%s+" .. N .. "x" },
      { "tick", "\n1%s+[%d.]+ ms%s+[%d.]+ ms%s+" .. N .. "x" },
      { "mean", "\n1%s+[%d.]+ ms%s+[%d.]+ ms%s+[%d.]+x%s+[%d.]+ ms%s+[%d.]+ ms%s+[%d.]+x%s+" .. N .. "x" },
    },
  },
  {
    program = "bench/bench_index_lua.lua",
    what = "1,000 small queries after every entity moved at least 10x faster than scanning (100,000)",
    op = ">=", limit = 10, unit = "x",
    figures = function(text)
      local auto, scan = text:match("\n1000%s+[%d.]+ ms%s+[%d.]+ ms%s+[%d.]+x%s+" .. N .. " ms%s+" .. N .. " ms")
      auto, scan = tonumber(auto), tonumber(scan)
      return { { "100,000", auto and scan and auto > 0 and math.floor(scan / auto * 10 + 0.5) / 10 or nil } }
    end,
  },
  {
    program = "bench/bench_index_lua.lua",
    what = "a whole-world box, and the 1000 sectors x 100,000 points batch, at most 1.1x the scan",
    op = "<=", limit = 1.1, unit = "x",
    figures = {
      { "whole-world box", "in_box over the whole world[^\n]-ratio " .. N .. "x" },
      { "batch", "in_sector_batch 1000 sectors x 100,000 points[^\n]-ratio " .. N .. "x" },
    },
  },
  {
    program = "bench/bench_index_lua.lua",
    what = "`cast_segment_first` at 1,000,000 and `nearest` (k = 1, 8) at 100,000 within 2 us",
    op = "<=", limit = 2, unit = " us",
    figures = {
      { "cast, 1,000,000", "%f[%d]1000000 entities: cast_segment_first " .. N .. " us" },
      { "nearest k=1, 100,000", "%f[%d]100000 entities: cast_segment_first[^\n]-nearest k=1 " .. N .. " us" },
      { "nearest k=8, 100,000", "%f[%d]100000 entities: cast_segment_first[^\n]-k=8 " .. N .. " us" },
    },
  },
  {
    program = "bench/bench_moves_lua.lua",
    what = "`layer:move` at most twice a plain Lua array update at 100,000 and 1,000,000",
    op = "<=", limit = 2, unit = "x",
    figures = {
      { "100,000", "\n%s*100000%s+[%d.]+%s+[%d.]+%s+" .. N .. "x" },
      { "1,000,000", "\n%s*1000000%s+[%d.]+%s+[%d.]+%s+" .. N .. "x" },
    },
  },
  {
    program = "bench/bench_moves_lua.lua",
    what = "`move_many` at most 40 ns an entity at 1,000,000",
    op = "<=", limit = 40, unit = " ns",
    figures = { { "1,000,000", "\n%s*1000000%s+[%d.]+%s+[%d.]+%s+[%d.]+x%s+[%d.]+%s+[%d.]+x%s+[%d.]+%s+[%d.]+x%s+"
      .. N .. "%s+[%d.]+x" } },
  },
  {
    program = "build/bench_shapes",
    what = "every skill-shape kernel's own target over the scalar reference (`target >= Nx` lines)",
    verdicts = "target >= [%d.]+x (%a+)",
  },
  {
    program = "bench/bench_shapes_lua.lua",
    what = "every skill shape from Lua at least 100x a plain Lua loop (`target >= 100x` lines)",
    verdicts = "target >= [%d.]+x (%a+)",
  },
}
