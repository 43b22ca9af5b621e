-- Plain-Lua references for interest management: the capped views (from the uncapped ones that
-- pairs_reference computes) and the schedule of due pairs, each rule written out as the manual
-- states it, in the AOI's float32 arithmetic.
local f32 = require("float32").f32
local ref = {}

-- The float32 d2 the AOI computes between watcher w and target t (ids of the layer).
function ref.d2(layer, w, t)
  local wx, wy = layer:get(w)
  local tx, ty = layer:get(t)
  local dx, dy = f32(tx - wx), f32(ty - wy)
  return f32(f32(dx * dx) + f32(dy * dy))
end

-- min(max_period, 1 + k), k the largest integer with (k * band)^2 <= d2 (in double).
function ref.period(opt, d2)
  if not opt.band then return 1 end
  local b, cap = opt.band, opt.max_period or 8
  local k = 0
  while k + 1 < cap and ((k + 1) * b) ^ 2 <= d2 do k = k + 1 end
  return math.min(cap, 1 + k)
end

local function special(opt) return opt and (opt.max or opt.band or opt.budget) and true or false end
ref.special = special

-- The capped views: uncapped[w] = { [t] = true } (what the AOI sees), opts[w] the options of
-- watcher w (nil: none), pins[w] = { [t] = true }, before[w] the capped views of the last update.
-- Returns the views every watcher has after the caps.
function ref.capped(layer, uncapped, opts, pins, margin, before)
  local masks = {}
  for id, _, _, _, m in layer:each() do masks[id] = m end
  local out = {}
  for w, set in pairs(uncapped) do
    local opt = opts[w]
    if not (opt and opt.max) then
      out[w] = set
    else
      local view, rest = {}, {}
      local pinned, was = pins[w] or {}, before[w] or {}
      for t in pairs(set) do
        if masks[t] & (opt.always or 0) ~= 0 or pinned[t] then
          view[t] = true
        else
          local d2 = ref.d2(layer, w, t)
          local key = d2
          if margin > 0 then
            key = f32(math.sqrt(d2))
            if was[t] then key = f32(key - f32(margin)) end
          end
          rest[#rest + 1] = { key, d2, t }
        end
      end
      table.sort(rest, function(a, b)
        if a[1] ~= b[1] then return a[1] < b[1] end
        if a[2] ~= b[2] then return a[2] < b[2] end
        return a[3] < b[3]
      end)
      for i = 1, math.min(opt.max, #rest) do view[rest[i][3]] = true end
      out[w] = view
    end
  end
  return out
end

-- A schedule: state[w][t] = { deadline, last, period, listed } for each special watcher.
-- Advances it to update u given the views after the caps; returns the due pairs as a set
-- due[w][t] (every pair of a watcher without options).
function ref.schedule(layer, views, opts, state, u)
  local due = {}
  for w, view in pairs(views) do
    local opt = opts[w]
    due[w] = {}
    if not special(opt) then
      for t in pairs(view) do due[w][t] = true end
      state[w] = nil
    else
      local old, st = state[w] or {}, {}
      for t in pairs(view) do
        local d2 = ref.d2(layer, w, t)
        local p = ref.period(opt, d2)
        local q = old[t]
        if q then
          if p ~= q.period and q.listed then q.deadline = math.min(q.deadline, q.last + p) end
        else
          q = { deadline = u, last = 0, listed = false }
        end
        q.period, q.d2, q.t = p, d2, t
        st[t] = q
      end
      state[w] = st
      local list = {}
      for _, q in pairs(st) do if q.deadline <= u then list[#list + 1] = q end end
      table.sort(list, function(a, b)
        if a.deadline ~= b.deadline then return a.deadline < b.deadline end
        if a.d2 ~= b.d2 then return a.d2 < b.d2 end
        return a.t < b.t
      end)
      if opt.budget then for i = #list, opt.budget + 1, -1 do list[i] = nil end end
      local first = {}
      for _, q in ipairs(list) do
        due[w][q.t] = true
        if q.listed then q.deadline, q.last = u + q.period, u else first[#first + 1] = q end
      end
      -- First listings: the offset s in [1, p] where the fewest of the watcher's pairs of
      -- period p are due, the smallest such s; one pair after the other, by id.
      table.sort(first, function(a, b) return a.t < b.t end)
      for _, q in ipairs(first) do
        local best, best_n = nil, math.huge
        for s = 1, q.period do
          local n = 0
          for _, o in pairs(st) do
            if o.listed and o.period == q.period and o.deadline == u + s then n = n + 1 end
          end
          if n < best_n then best, best_n = s, n end
          if n == 0 then break end
        end
        q.deadline, q.last, q.listed = u + best, u, true
      end
    end
  end
  for w in pairs(state) do if not views[w] then state[w] = nil end end
  return due
end

return ref
