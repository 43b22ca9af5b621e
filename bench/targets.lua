-- The targets we set ourselves, read from what the benchmark programs print: bench/report.lua
-- puts a table of them, with the verdict of that run, at the top of each machine's section of
-- doc/benchmarks.md (bench/report_doc.lua judges them).
--
-- One target per unindented line, `program | promise | what`, the promise `<= limit unit` or
-- `>= limit unit` (limits per figure separated by ` / `) or `as printed`. Its figures follow,
-- indented, `label | how`, where how is one of
--   a Lua pattern in which {N} is the figure (\n stands for a newline);
--   `=min C P`: the smallest number in column C of the rows that start with pattern P;
--   `=ratio` and a pattern with two {N}: the second divided by the first;
--   `=verdicts` and a pattern capturing the word after each `target >= Nx` the program prints
--   (the target is met when every such word is "met").
-- A figure that is not found makes the verdict "not printed", never "met".
return [[
bench/bench_pairs_lua.lua | >= 20x | `contacts:update` at least 20x faster than a plain-Lua diff of two `layer:pairs()` lists
  10,000 all move | contacts uniform 10,000 in 2000x2000, all move [^\n]-%({N}x contacts
  10,000 a tenth | contacts uniform 10,000 in 2000x2000, 10%% move [^\n]-%({N}x contacts
  100,000 all move | contacts uniform 100,000 in 6325x6325, all move [^\n]-%({N}x contacts
  100,000 a tenth | contacts uniform 100,000 in 6325x6325, 10%% move [^\n]-%({N}x contacts
bench/bench_pairs_lua.lua | <= 1.5x | `contacts:update` within 1.5x of `layer:pairs()` when all move
  10,000 | contacts uniform 10,000 in 2000x2000, all move [^\n]-%({N}x pairs%)
  100,000 | contacts uniform 100,000 in 6325x6325, all move [^\n]-%({N}x pairs%)
bench/bench_pairs_lua.lua | <= 0.3x | `contacts:update` within 0.3x of `layer:pairs()` when a tenth move (with deaths and spawns too)
  10,000 | contacts uniform 10,000 in 2000x2000, 10%% move [^\n]-%({N}x pairs%)
  100,000 | contacts uniform 100,000 in 6325x6325, 10%% move [^\n]-%({N}x pairs%)
  10,000 with 1 death and 1 spawn | contacts 10,000, 10%% move, 1 dies, 1 spawns[^\n]-%({N}x pairs%)
  100,000 with 16 deaths and 16 spawns | contacts 100,000, 10%% move, 16 die, 16 spawn[^\n]-%({N}x pairs%)
bench/bench_pairs_lua.lua | <= 0.25x | with a tenth moving, an AOI update at most 0.25x the all-moving one
  10,000 uniform | aoi   uniform 10,000: 10%% moving   all moving[^\n]-10%% moving [%d.]+ ms %({N}x%)
  2,000 crowded | aoi   crowded 2,000: 10%% moving[^\n]-10%% moving [%d.]+ ms %({N}x%)
bench/bench_pairs_lua.lua | <= 0.6 ms | with a tenth moving, an AOI update within 0.6 ms at 10,000 uniform
  10,000 uniform | aoi   uniform 10,000: 10%% moving   all moving[^\n]-10%% moving {N} ms
bench/bench_pairs_lua.lua | <= 0.5 ms | with a tenth moving, an AOI update within 0.5 ms at 2,000 crowded
  2,000 crowded | aoi   crowded 2,000: 10%% moving[^\n]-10%% moving {N} ms
bench/bench_pairs_lua.lua | <= 1 us | `aoi:watchers_of` within 1 us
  10,000 uniform | watchers_of {N} us per call
bench/bench_pairs_lua.lua | <= 1.15x | the update that keeps `watchers_of` current within 1.15x of the update
  10,000 uniform | update %+ inversion [%d.]+ ms %({N}x%)
bench/bench_pairs_lua.lua | <= 1.1x | AOI masks within 1.1x of the unfiltered update
  10,000 uniform | aoi   uniform 10,000: masks[^\n]-masks [%d.]+ ms %({N}x%)
  2,000 crowded | aoi   crowded 2,000: masks[^\n]-masks [%d.]+ ms %({N}x%)
build/bench_pairs | >= 3x | `layer:pairs()` at 1,000,000 at least 3x one sweep of the whole layer (natively)
  1,000,000 uniform | uniform 1,000,000 in 20000x20000: 1000000 boxes.-layer:pairs natively[^\n]- {N}x
build/bench_index | <= 10 ns | the index rebuilt after every entity moved, at most 10 ns an entity
  100,000 | %f[%d]100000 entities: full build[^\n]-rebuild after all moved %(<= 2 units%)%s+{N} ns
  1,000,000 | %f[%d]1000000 entities: full build[^\n]-rebuild after all moved %(<= 2 units%)%s+{N} ns
build/bench_index | <= 10 ns | the index's upkeep a tick when every entity moves, rebuilds included, at most 10 ns an entity
  100,000 | %f[%d]100000 entities: full build.-upkeep per tick of such moves[^\n]-: {N} ns/entity a tick
  1,000,000 | %f[%d]1000000 entities: full build.-upkeep per tick of such moves[^\n]-: {N} ns/entity a tick
bench/bench_index_lua.lua | >= 20x | a small query at least 20x faster than the plain-Lua grid (the slowest of five shapes)
  100,000 | =min 5 100000%s+%a[%w_]*%s+%d+
  1,000,000 | =min 5 1000000%s+%a[%w_]*%s+%d+
bench/bench_index_lua.lua | >= 3x / 15x / 100x | a small query at least 3x, 15x and 100x faster than the scan at 10,000, 100,000 and 1,000,000
  10,000 | =min 4 10000%s+%a[%w_]*%s+%d+
  100,000 | =min 4 100000%s+%a[%w_]*%s+%d+
  1,000,000 | =min 4 1000000%s+%a[%w_]*%s+%d+
bench/bench_index_lua.lua | <= 1.1x | after every entity moved, one small query at most 1.1x the scan (its queries, the whole tick, the mean)
  queries | \n1%s+[%d.]+ ms%s+[%d.]+ ms%s+[%d.]+x%s+[%d.]+ ms%s+[%d.]+ ms%s+{N}x
  tick | \n1%s+[%d.]+ ms%s+[%d.]+ ms%s+{N}x
  mean | \n1%s+[%d.]+ ms%s+[%d.]+ ms%s+[%d.]+x%s+[%d.]+ ms%s+[%d.]+ ms%s+[%d.]+x%s+{N}x
bench/bench_index_lua.lua | >= 10x | 1,000 small queries after every entity moved at least 10x faster than scanning (100,000)
  100,000 | =ratio \n1000%s+[%d.]+ ms%s+[%d.]+ ms%s+[%d.]+x%s+{N} ms%s+{N} ms
bench/bench_index_lua.lua | <= 1.1x | a whole-world box, and the 1000 sectors x 100,000 points batch, at most 1.1x the scan
  whole-world box | in_box over the whole world[^\n]-ratio {N}x
  batch | in_sector_batch 1000 sectors x 100,000 points[^\n]-ratio {N}x
bench/bench_index_lua.lua | <= 2 us | `cast_segment_first` at 1,000,000 and `nearest` (k = 1, 8) at 100,000 within 2 us
  cast at 1,000,000 | %f[%d]1000000 entities: cast_segment_first {N} us
  nearest k=1 at 100,000 | %f[%d]100000 entities: cast_segment_first[^\n]-nearest k=1 {N} us
  nearest k=8 at 100,000 | %f[%d]100000 entities: cast_segment_first[^\n]-k=8 {N} us
bench/bench_moves_lua.lua | <= 2x | `layer:move` at most twice a plain Lua array update at 100,000 and 1,000,000
  100,000 | \n%s*100000%s+[%d.]+%s+[%d.]+%s+{N}x
  1,000,000 | \n%s*1000000%s+[%d.]+%s+[%d.]+%s+{N}x
bench/bench_moves_lua.lua | <= 40 ns | `move_many` at most 40 ns an entity at 1,000,000
  1,000,000 | \n%s*1000000%s+[%d.]+%s+[%d.]+%s+[%d.]+x%s+[%d.]+%s+[%d.]+x%s+[%d.]+%s+[%d.]+x%s+{N}%s+[%d.]+x
build/bench_shapes | as printed | every skill-shape kernel at its own speed-up over the scalar reference (`target >= Nx` lines)
  kernels | =verdicts target >= [%d.]+x (%a+)
bench/bench_shapes_lua.lua | as printed | every skill shape from Lua at least 100x a plain Lua loop (`target >= 100x` lines)
  from Lua | =verdicts target >= [%d.]+x (%a+)
bench/bench_walls_lua.lua | >= 25x | `walls:blocked` at 100,000 segments at least 25x a plain-Lua segment grid
  100,000 segments | %f[%d]100000%s+[%d.]+%s+[%d.]+%s+{N}x
bench/bench_walls_lua.lua | <= 1.5x | `walls:blocked` at 100,000 segments within 1.5x of the same at 1,000 (its cost follows the ray)
  100,000 / 1,000 | walls:blocked at 100,000 segments / at 1,000: {N}x
bench/bench_walls_lua.lua | >= 8x | `tiles:blocked` on 1024 x 1024 tiles at least 8x a plain-Lua DDA walk
  1024 x 1024 | tiles 1024 x 1024 [^\n]-: {N}x
bench/bench_walls_lua.lua | <= 0.6x | `walls:visible` of the ~50 ids of an `in_circle` at most 0.6x one `walls:blocked` per id
  ~50 ids | walls:visible of [^\n]-: {N}x
bench/bench_walls_lua.lua | <= 30 ms | building 100,000 walls within 30 ms
  100,000 segments | soageo.walls of 100,000 segments: {N} ms
bench/bench_history_lua.lua | <= 1.1x | `layer:move` with history on at most 1.1x without
  1,000,000 | with history%(16%): {N}x
bench/bench_history_lua.lua | <= 0.3x | `commit` after a tenth moved at most 0.3x the time of those moves
  1,000,000 | commit after a tenth moved: [%d.]+ ms, {N}x
bench/bench_history_lua.lua | <= 2x | `commit` after all moved at most 2x a copy of the x and y columns
  1,000,000 | commit after all moved: [%d.]+ ms; a copy[^\n]-; {N}x
bench/bench_history_lua.lua | <= 3x | a small query on a view 10 ticks back at most 3x the same on the present layer
  100,000 | view 10 ticks back [%d.]+ us: {N}x
bench/bench_interest_lua.lua | <= 1.3x | a capped AOI update at most 1.3x the uncapped one (uniform)
  10,000 uniform | interest uniform     10000 [^\n]-%({N}x%)
bench/bench_interest_lua.lua | <= 1.5x | a capped AOI update at most 1.5x the uncapped one (crowded)
  2,000 crowded | interest crowded      2000 [^\n]-%({N}x%)
bench/bench_interest_lua.lua | <= 1.5x | `aoi:due` at most 1.5x `table.move` copying as many integers
  10,000 uniform | interest uniform    due:[^\n]-%({N}x%)
  2,000 crowded | interest crowded    due:[^\n]-%({N}x%)
bench/bench_share_lua.lua | <= 1.2x | a small query on a shared view at most 1.2x the same on the private layer
  1,000,000 | touch_box 40 x 40 at 1000000 entities [^\n]-: {N}x
bench/bench_share_lua.lua | <= 1x | `soageo.share` of a layer at most one `layer:dump` plus one index build
  1,000,000, index built | soageo.share, index built: [%d.]+ ms: {N}x
bench/bench_share_lua.lua | <= 5 us | `soageo.attach` (with `view:close`) under 5 us
  attach + close | soageo.attach %+ view:close: {N} us
]]
