-- float32 arithmetic in pure Lua: every operation rounds its double result to the nearest
-- float. For + - * / and sqrt on float operands this equals native float32 arithmetic exactly
-- (a double has more than 2*24+2 bits), so the references below match the kernels bit for bit.
local spack, sunpack = string.pack, string.unpack

local function f32(v)
  return (sunpack("f", spack("f", v)))
end

return { f32 = f32 }
