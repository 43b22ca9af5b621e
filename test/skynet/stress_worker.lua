-- One stress service: test/stress_world.lua for a given time, yielding now and then so the
-- worker threads interleave services; answers with what it did.
local skynet = require "skynet"
local stress = require "stress_world"

skynet.start(function()
  skynet.dispatch("lua", function(_, _, seed, seconds)
    local w = stress.new(seed)
    local start = skynet.now()
    local deadline = start + seconds * 100  -- centiseconds
    while skynet.now() < deadline do
      for _ = 1, 20 do w:step() end
      skynet.yield()
    end
    skynet.ret(skynet.pack(w.ops, w.mismatches, w.first, w.kinds, (skynet.now() - start) / 100, #w.layer))
  end)
end)
