-- skynet.memlimit against a growing layer: the growth past the limit is a Lua error (not a
-- crash), the layer keeps all it held before, and the service keeps answering and working.
local skynet = require "skynet"
local check = require "check"

skynet.start(function()
  check.run("memlimit", function()
    local limit = tonumber(check.args().limit)
    local scene = skynet.newservice("memlimit_scene", limit)
    local ok, err, n, count
    repeat
      ok, err, n, count = skynet.call(scene, "lua", "grow", 20000)
    until not ok or n > 50000000
    check.ok(not ok and err:find("not enough memory", 1, true) ~= nil,
      "growing a layer past a %d MB skynet.memlimit raises a Lua error (%s) after %d entities", limit, tostring(err), n)
    check.ok(count == n, "the layer still holds the %d entities set before the error (#layer = %d)", n, count)
    local all, held, wrong, in_row, near = skynet.call(scene, "lua", "verify")
    check.ok(all, "every one of the %d entities is where it was put (%d wrong)", held, wrong)
    check.ok(in_row == 1000 and near == 9, "queries still answer (%d in a row of 1000, %d of the 9 around a point)", in_row, near)
    local ok2, err2, count2, has = skynet.call(scene, "lua", "grow_many", 5000)
    check.ok(not ok2 and err2:find("not enough memory", 1, true) ~= nil and count2 == n and not has,
      "set_many past the limit raises too and adds none of its entities (%s; #layer = %d)", tostring(err2), count2)
    local churned = skynet.call(scene, "lua", "churn")
    all = skynet.call(scene, "lua", "verify")
    check.ok(churned == n and all, "the service keeps working within its memory: moves, removes and sets of %d entities", churned)
  end)
end)
