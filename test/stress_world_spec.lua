-- test/stress_world.lua, the random world that `make test-skynet` runs in 8 skynet services at
-- once, here on plain Lua: its answers agree with the references, and it does catch a layer
-- that went wrong.
local stress = require "stress_world"
local quick = require "quick"
local long = require "long"

describe("the stress world", function()
  it("runs every kind of operation with every answer equal to the reference", function()
    local w = stress.new(7)
    for _ = 1, quick(long(1500, 15000), 300) do w:step() end
    assert.are.equal(nil, w.first)
    assert.are.equal(0, w.mismatches)
    assert.is_true(w.kinds.in_sector > 0 and w.kinds.touch_polygon_batch > 0 and w.kinds.aoi_update > 0)
  end)

  it("reports a layer changed behind its model's back", function()
    local w = stress.new(8)
    for _ = 1, 50 do w:step() end
    assert.are.equal(0, w.mismatches)
    -- One entity moves by a tenth of a unit in the layer only: queries, pairs, snapshots and
    -- the content check must notice.
    local id = w.model.list[1]
    local x, y = w.layer:get(id)
    w.layer:move(id, x + 0.1, y)
    local steps = 0
    while w.mismatches == 0 and steps < 2000 do w:step(); steps = steps + 1 end
    assert.is_true(w.mismatches > 0)
    assert.is_truthy(w.first)
  end)
end)
