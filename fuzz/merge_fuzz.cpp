// libFuzzer: layer:merge, layer:dump(ids) and layer:remove_many on arbitrary bytes, through the
// Lua binding in an embedded Lua 5.4. merge is all or nothing: a rejected string leaves the
// layer byte for byte as it was; an accepted one leaves every entity of the snapshot in the
// layer with its values (mask bits set and cleared as asked) and the others untouched. The
// same bytes, read as ids, drive dump(ids) (an error exactly when an id is unknown or repeated;
// else a snapshot of those ids in order) and remove_many (the count of distinct known ids).
// Half the inputs get a valid checksum, so the content checks behind it are reached.
#include <cstdint>
#include <string>

#include "probe.hpp"

namespace {

const char* kProbe = R"(
core = require 'soageo.core'
local function rows(l)
  local t = {}
  for id, x, y, r, m in l:each() do t[id] = { x, y, r, m } end
  return t
end
local function base()
  local l = core.layer()
  for i = 1, 40 do l:set(i, i * 0.25, -i, i % 3, i * 977) end
  return l
end
function probe(bytes, set, clear)
  local l = base()
  local before, old = l:dump(), rows(l)
  local ok, fresh = pcall(l.merge, l, bytes, set, clear)
  if not ok then
    assert(l:dump() == before, "rejected merge changed the layer")
  else
    local src = core.load(bytes)  -- merge accepted it, so load must too
    local now, want, n = rows(l), old, 0
    for id, x, y, r, m in src:each() do
      if not old[id] then n = n + 1 end
      want[id] = { x, y, r, (m & ~clear) | set }
    end
    assert(fresh == n, "merge counted new ids wrongly")
    for id, v in pairs(want) do
      local g = now[id]
      assert(g and g[1] == v[1] and g[2] == v[2] and g[3] == v[3] and g[4] == v[4], "merged entity differs")
    end
    local count = 0
    for _ in pairs(now) do count = count + 1 end
    local wcount = 0
    for _ in pairs(want) do wcount = wcount + 1 end
    assert(count == wcount and #l == count, "merge left extra entities")
  end
  -- The bytes as ids in 0..63 (1..40 exist): a partial dump and a removal.
  local ids, seen, bad = {}, {}, false
  for i = 1, math.min(#bytes, 48) do
    local id = bytes:byte(i) % 64
    ids[#ids + 1] = id
    if seen[id] or not old[id] then bad = true end
    seen[id] = true
  end
  local m = base()
  local okd, s = pcall(m.dump, m, ids)
  assert(okd == not bad, "dump(ids) accepted a bad list or rejected a good one")
  if okd then
    local k = 0
    for id, x, y, r, mask in core.load(s):each() do
      k = k + 1
      assert(id == ids[k])
      local a, b, c, d = m:get(id)
      assert(a == x and b == y and c == r and d == mask)
    end
    assert(k == #ids)
  end
  local distinct = 0
  for id in pairs(seen) do if id >= 1 and id <= 40 then distinct = distinct + 1 end end
  assert(m:remove_many(ids) == distinct and #m == 40 - distinct, "remove_many count")
end
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    lua_State* L = fuzz::probe_state(kProbe);
    if (size < 2) return 0;
    // Byte 0 picks the mask bits merge sets and clears; the rest is the snapshot.
    uint32_t set = (data[0] & 2) ? 0x80000000u : 0u, clear = (data[0] & 4) ? 0x40000001u : 0u;
    std::string bytes(reinterpret_cast<const char*>(data + 1), size - 1);
    if (data[0] & 1) fuzz::reseal(bytes);
    lua_getglobal(L, "probe");
    lua_pushlstring(L, bytes.data(), bytes.size());
    lua_pushinteger(L, set);
    lua_pushinteger(L, clear);
    fuzz::run_probe(L, 3);
    return 0;
}
