// libFuzzer: soageo.load on arbitrary bytes, through the Lua binding in an embedded Lua 5.4.
// A string is either rejected with a Lua error or gives a layer that then behaves (iterate,
// query, dump again: the dump must load back equal). Half the inputs are mutated real
// snapshots with a fixed checksum, so the content checks behind the checksum get exercised.
#include <cstdint>
#include <string>

#include "probe.hpp"

namespace {

const char* kProbe = R"(
core = require 'soageo.core'
function probe(bytes)
  local ok, l = pcall(core.load, bytes)
  if not ok then return end
  local n = 0
  for id in l:each() do n = n + 1; assert(l:get(id)) end
  assert(n == #l)
  local _, k = l:in_circle(0, 0, 1e30)
  local d = l:dump()
  assert(core.load(d):dump() == d)
  l:pairs()
end
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    lua_State* L = fuzz::probe_state(kProbe);
    std::string bytes(reinterpret_cast<const char*>(data), size);
    if (size > 1 && (data[0] & 1)) fuzz::reseal(bytes);
    lua_getglobal(L, "probe");
    lua_pushlstring(L, bytes.data(), bytes.size());
    fuzz::run_probe(L, 1);  // raises only when a loaded layer misbehaved
    return 0;
}
