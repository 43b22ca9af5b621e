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

-- The median of a list of numbers (the mean of the middle two for an even count); t stays as
-- it is.
function timing.median(t)
  local s = table.move(t, 1, #t, 1, {})
  table.sort(s)
  return #s % 2 == 1 and s[(#s + 1) // 2] or (s[#s // 2] + s[#s // 2 + 1]) / 2
end

-- Contenders timed in turn, round after round, so that a slow moment of a loaded machine falls
-- on all of them; each timed run follows an untimed run of the same contender, so that it finds
-- its data in the caches as it would in repetitions of its own, not where the other contenders
-- left them. A contender is f, or { iters, f } when f makes iters calls: f(round) runs it once,
-- round < 0 for the untimed run. The median over `rounds` of each one's seconds per call.
function timing.alternating(rounds, contenders)
  local t = {}
  for c = 1, #contenders do t[c] = {} end
  for r = 1, rounds do
    for c, k in ipairs(contenders) do
      local iters, f = 1, k
      if type(k) == "table" then iters, f = k[1], k[2] end
      f(-r)
      local t0 = clock()
      f(r)
      t[c][r] = (clock() - t0) / iters
    end
  end
  for c = 1, #contenders do t[c] = timing.median(t[c]) end
  return t
end

-- `q` small boxes (side `size`) drawn at random in a world of side `side`, and run(obj), which
-- asks obj:touch_box of every one (into one reused table) and returns the hits, then the boxes'
-- corners bx, by: the small queries a view is compared on against the layer it reads.
function timing.small_boxes(q, side, size)
  local bx, by, out = {}, {}, {}
  for i = 1, q do bx[i], by[i] = math.random() * (side - size), math.random() * (side - size) end
  return function(obj)
    local touch_box = obj.touch_box
    local hits = 0
    for i = 1, q do
      local _, k = touch_box(obj, bx[i], by[i], bx[i] + size, by[i] + size, out)
      hits = hits + k
    end
    return hits
  end, bx, by
end

return timing
