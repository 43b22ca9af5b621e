-- A scene whose ticks raise a `bad argument` error in the middle: some checked work on a
-- random world (test/stress_world.lua keeps the plain-Lua model), then one bad call, whose
-- error leaves the tick (skynet reports it to the caller). `check` then compares the layer, its
-- queries and its aoi with the model.
local skynet = require "skynet"
local soageo = require "soageo"
local stress = require "stress_world"

local w = stress.new(tonumber((...)) or 1)

-- Each must raise `bad argument` and change nothing.
local BAD = {
  { "set with a NaN x", function() w.layer:set(1, 0 / 0, 0) end },
  { "set with a negative radius", function() w.layer:set(2, 1, 1, -1) end },
  { "move of an unknown id", function() w.layer:move(10 ^ 9, 1, 1) end },
  { "set_many with a bad last element", function() w.layer:set_many({ 1, 2, 3 }, { 1, 2, 3 }, { 1, 2, 0 / 0 }) end },
  { "in_sector with a zero direction", function() w.layer:in_sector(0, 0, 0, 0, 10, 1) end },
  { "in_box inverted", function() w.layer:in_box(10, 0, 0, 10) end },
  { "in_polygon not convex", function() w.layer:in_polygon({ 0, 0, 10, 0, 0, 10, 10, 10 }) end },
  { "nearest with k < 0", function() w.layer:nearest(0, 0, -1) end },
  { "dump of a repeated id", function() local id = w.model.list[1] or 1; w.layer:dump({ id, id }) end },
  { "merge of a tampered snapshot", function()
    local s = w.layer:dump()
    local i = #s // 2
    w.layer:merge(s:sub(1, i - 1) .. string.char((s:byte(i) + 1) % 256) .. s:sub(i + 1))
  end },
  { "remove_many with a float id", function() w.layer:remove_many({ 1, 2.5 }) end },
  { "aoi:watch with a negative view", function() w.aoi:watch(1, -5) end },
  { "aoi:update into one table twice", function() local t = {}; w.aoi:update(t, t) end },
  { "load of a foreign string", function() soageo.load("not a snapshot") end },
  { "in_sector_batch with a bad second shape", function() w.layer:in_sector_batch({ 0, 0, 1, 0, 5, 1, 0, 0, 0, 0, 5, 1 }) end },
}

local errors, accepted = {}, {}
local command = {}

function command.tick(t)
  for _ = 1, 12 do w:step() end
  local name, bad = table.unpack(BAD[(t - 1) % #BAD + 1])
  local ok, err = pcall(bad)
  if ok then
    accepted[#accepted + 1] = name
    error(name .. " raised no error")
  end
  errors[#errors + 1] = tostring(err)
  error(err, 0)  -- the rest of the tick does not run
end

function command.check()
  w:content()
  for _ = 1, 6 do w:query() end
  w:cast()
  w:nearest()
  w:pairs_check()
  w:aoi_step()
  w:snapshot()
  return w.mismatches, w.first, w.ops, errors, accepted
end

skynet.start(function()
  skynet.dispatch("lua", function(_, _, cmd, ...)
    skynet.ret(skynet.pack(command[cmd](...)))
  end)
end)
