-- Calls that raise `bad argument` in the middle of a tick leave the scene's layer intact and
-- the scene serving: every tick of badarg_scene fails with such an error, and after each one
-- the layer, its queries and its aoi still agree with the plain-Lua model.
local skynet = require "skynet"
local check = require "check"

skynet.start(function()
  check.run("badarg", function()
    local ticks = tonumber(check.args().ticks)
    local scene = skynet.newservice("badarg_scene", 21)
    local raised, clean, mismatches, first, ops, errors, accepted = 0, 0, 0, nil, 0, {}, {}
    for t = 1, ticks do
      if not pcall(skynet.call, scene, "lua", "tick", t) then raised = raised + 1 end
      mismatches, first, ops, errors, accepted = skynet.call(scene, "lua", "check")
      if mismatches == 0 then clean = clean + 1 end
    end
    check.ok(raised == ticks, "%d of %d ticks raised an error in their middle", raised, ticks)
    check.ok(#accepted == 0, "no bad call was accepted (%s)", table.concat(accepted, ", "))
    local named = 0
    for _, e in ipairs(errors) do if e:find("bad argument #", 1, true) then named = named + 1 end end
    check.ok(named == ticks, "%d of %d errors are `bad argument` errors (e.g. %s)", named, ticks, tostring(errors[1]))
    check.ok(clean == ticks and mismatches == 0,
      "after every such tick the layer, queries, pairs, aoi and snapshots agree with the model (%d checked operations%s)",
      ops, first and (", first difference: " .. first) or "")
  end)
end)
