-- Finalizers run inside allocations, so a query's result table can grow while a finalizer
-- queries, grows or updates the very layer (or aoi) being read. Memory must stay valid (the
-- blocks are pinned; run under `make asan` to see it) and the layer must stay consistent.
local soageo = require "soageo"

describe("when finalizers use a layer during a query", function()
  it("neither crashes nor corrupts the layer", function()
    local l = soageo.layer(16)
    for i = 1, 600 do l:set(i, (i * 37) % 400, (i * 91) % 400, 1) end
    local aoi = soageo.aoi(l)
    for i = 1, 600, 7 do aoi:watch(i, 5) end
    local next_id = 100000
    local mt = { __gc = function()
      -- grows the layer (new column block: the old one must survive the running query)
      for _ = 1, 20 do next_id = next_id + 1; l:set(next_id, next_id % 400, (next_id * 7) % 400, 1) end
      l:in_circle(25, 20, 10)
      l:pairs()
      pcall(aoi.update, aoi)  -- may refuse: the outer update is running
    end }
    collectgarbage("generational")
    for round = 1, 12 do
      for _ = 1, 50 do setmetatable({}, mt) end   -- garbage with finalizers
      local out, n = l:touch_circle(25, 20, 30)   -- result tables allocate: the GC may run
      local pairs_out, np = l:pairs()
      -- A finalizer's nested update makes this one stale: it then refuses, with a clear error.
      local ok, enter, leave, ne, nl = pcall(aoi.update, aoi)
      if ok then
        assert.is_true(#enter == 2 * ne and #leave == 2 * nl)
      else
        assert.matches("changed by a finalizer during update", enter)
      end
      assert.is_true(n >= 0 and np >= 0 and #out >= 0 and #pairs_out == 2 * np)
      if round % 4 == 0 then collectgarbage() end
    end
    collectgarbage("incremental")
    local count = 0
    for id in l:each() do count = count + 1; assert.is_truthy(l:get(id)) end
    assert.are.equal(#l, count)
    assert.is_true(count > 600)  -- the finalizers did run and grow the layer
    local _, _, ne = aoi:update()  -- and the aoi is still usable
    assert.is_true(ne >= 0)
  end)
end)
