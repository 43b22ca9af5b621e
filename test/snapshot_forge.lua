-- Builds snapshot strings by hand (any content, with a valid checksum), so specs can reach the
-- content checks behind the checksum: duplicate ids, NaN positions, negative radii.
-- The checksum is csrc/core/snapshot.cpp's, in Lua 5.4 integer arithmetic (wraps mod 2^64).
local forge = {}

local P1, P2, P3 = 0x9e3779b185ebca87, 0xc2b2ae3d27d4eb4f, 0x165667b19e3779f9

local function rotl(v, k) return (v << k) | (v >> (64 - k)) end

function forge.checksum(s)
  local size = #s
  local a, b, c, d = P1 + P2, P2, 0, 0 - P1
  local i = 1
  local function w(at) return (string.unpack("<i8", s, at)) end
  while i + 31 <= size do
    a = rotl(a + w(i) * P2, 31) * P1
    b = rotl(b + w(i + 8) * P2, 31) * P1
    c = rotl(c + w(i + 16) * P2, 31) * P1
    d = rotl(d + w(i + 24) * P2, 31) * P1
    i = i + 32
  end
  local h = rotl(a, 1) + rotl(b, 7) + rotl(c, 12) + rotl(d, 18) + size
  while i + 7 <= size do
    h = rotl(h ~ (rotl(w(i) * P2, 31) * P1), 27) * P1 + P3
    i = i + 8
  end
  while i <= size do
    h = rotl(h ~ (s:byte(i) * P1), 11) * P2
    i = i + 1
  end
  h = h ~ (h >> 33)
  h = h * P2
  h = h ~ (h >> 29)
  h = h * P3
  return h ~ (h >> 32)
end

-- rows: { {id, x, y, r, mask}, ... } -> a sealed snapshot string (floats packed as float32).
function forge.snapshot(rows)
  local n = #rows
  local parts = { "SGEO", string.pack("<I2I2I4I4", 1, 0, n, 0) }
  for _, row in ipairs(rows) do parts[#parts + 1] = string.pack("<i8", row[1]) end
  for col = 2, 4 do
    for _, row in ipairs(rows) do parts[#parts + 1] = string.pack("<f", row[col]) end
  end
  for _, row in ipairs(rows) do parts[#parts + 1] = string.pack("<I4", row[5]) end
  local body = table.concat(parts)
  return body .. string.pack("<i8", forge.checksum(body))
end

-- A string with its checksum recomputed (after a byte was changed on purpose).
function forge.reseal(s)
  local body = s:sub(1, #s - 8)
  return body .. string.pack("<i8", forge.checksum(body))
end

return forge
