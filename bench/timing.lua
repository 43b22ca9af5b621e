-- What the Lua benchmarks share: the best-of timing harness, in CPU time (os.clock). Every
-- figure that matters is a ratio of two timings taken in the same process.
local clock = os.clock

local timing = {}

-- The fastest of `reps` runs of `iters` calls of f, in seconds per call: the run least
-- disturbed by the rest of the machine. Warm-up, if any, is the caller's.
function timing.best_of(reps, iters, f)
  local best = math.huge
  for _ = 1, reps do
    local t0 = clock()
    for _ = 1, iters do f() end
    best = math.min(best, (clock() - t0) / iters)
  end
  return best
end

-- The median of `reps` runs of `iters` calls of f, in seconds per call: what a typical call
-- costs when the machine is shared, less swayed by one lucky run than best_of.
function timing.median_of(reps, iters, f)
  local runs = {}
  for r = 1, reps do
    local t0 = clock()
    for _ = 1, iters do f() end
    runs[r] = (clock() - t0) / iters
  end
  table.sort(runs)
  return runs[(reps + 1) // 2]
end

return timing
