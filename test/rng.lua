-- A seeded generator for specs, independent of math.random's implementation.
local rng = {}
rng.__index = rng

function rng.new(seed)
  return setmetatable({ s = (seed or 1) & 0x7fffffff }, rng)
end

-- Park-Miller "minimal standard", with 64-bit integers: repeatable everywhere.
function rng:next()
  self.s = (self.s * 48271) % 0x7fffffff
  return self.s
end

function rng:uniform(lo, hi)
  return lo + (hi - lo) * (self:next() / 0x7fffffff)
end

function rng:int(lo, hi)
  return lo + self:next() % (hi - lo + 1)
end

return rng
