-- Objects dropped without close() are reclaimed: every block of a layer, an aoi or a contacts
-- object is a userdata the collector counts, so it paces itself by them and frees them with
-- their owner. 1,000 layers of 10,000 entities (about a megabyte each), each with an aoi and a
-- contacts object that have run an update, are made and dropped; the peak resident memory of
-- the process (VmHWM, Linux) may grow by at most 64 MB over it. Under memcheck (SOAGEO_QUICK) 100
-- of them; under AddressSanitizer, whose quarantine keeps freed memory, the objects are still
-- made and dropped (every access checked) but the peak is not bounded.
local soageo = require "soageo"
local quick = require "quick"

local function peak_kb()
  local f = assert(io.open("/proc/self/status", "r"), "needs /proc/self/status (Linux)")
  local s = f:read("a")
  f:close()
  local kb = assert(s:match("VmHWM:%s*(%d+) kB"), "VmHWM in /proc/self/status")
  return tonumber(kb)
end

describe("when layers, aois and contacts objects are dropped without close()", function()
  it("returns their memory: the peak resident memory grows by at most 64 MB over 1,000 of them", function()
    local n = 10000
    local ids, xs, ys, rs = {}, {}, {}, {}
    for i = 1, n do ids[i], xs[i], ys[i], rs[i] = i, (i % 100) * 10.0, (i // 100) * 10.0, 6 end
    local function one()
      local layer = soageo.layer()
      layer:set_many(ids, xs, ys, rs)
      local aoi = soageo.aoi(layer)
      for id = 1, n, 100 do aoi:watch(id, 15) end
      local c = soageo.contacts(layer)
      local _, _, entered = aoi:update()
      local _, _, began = c:update()
      return #layer, entered, began
    end
    local size, entered, began = one()  -- the first one's peak is the baseline
    collectgarbage()
    local before = peak_kb()
    for _ = 1, quick(1000, 100) do
      local s, e, b = one()
      assert(s == size and e == entered and b == began)
    end
    local grown_mb = (peak_kb() - before) / 1024
    assert.is_true(size == n and entered > 0 and began > 0)
    local asan = (os.getenv("LD_PRELOAD") or ""):find("libasan", 1, true) ~= nil
    assert.is_true(asan or grown_mb <= 64, ("peak resident memory grew by %.1f MB"):format(grown_mb))
  end)
end)
