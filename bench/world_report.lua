-- make world SKYNET=...: runs the world's figures (the recipe of `make world-run`, given as the
-- first argument), shows their output as it comes, and writes it into doc/benchmarks.md (the
-- second argument) as a section of its own per CPU model, marked "<model>, make world" so that
-- make bench, which replaces only the section of its own model, keeps it (bench/report_doc.lua).
-- The section opens with the targets of issue 35 as the run printed them ("WORLD target:"
-- lines, each with its figure and verdict), then the run's output. The load average is taken
-- before and after, and the programs print their own too.
local command, target = arg[1], arg[2]
assert(command and target, "usage: lua bench/world_report.lua '<command>' <output.md>")

local here = (arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
local doc = require "report_doc"
local machine = require "report_machine"

local model, cpu_line = machine.cpu()
model = model .. ", make world"
local load_before, commit = machine.load_average(), machine.commit(target)

local lines = {}
local p = assert(io.popen(command .. " 2>&1"))
for line in p:lines() do
  io.write(line, "\n")
  io.flush()
  -- make's own lines and the plain-Lua run's progress (tick k/n, rewritten in place) are not figures
  line = line:gsub("^.*\r", "")
  if not line:match("^make") and not line:match("^g%+%+") and not line:match("^tick %d+/%d+$") then lines[#lines + 1] = line end
end
local ok, _, status = p:close()

local out = {
  ("<!-- machine: %s -->"):format(model),
  ("## %s"):format(model),
  "",
  "| | |",
  "|---|---|",
  ("| commit | `%s` |"):format(commit),
  ("| date | %s |"):format(machine.date()),
  ("| CPU | %s |"):format(cpu_line),
  ("| skynet | `%s` |"):format(os.getenv("SKYNET") or "not given"),
  ("| load average (1, 5, 15 min) | %s before, %s after |"):format(load_before, machine.load_average()),
  "",
}
if not ok then
  out[#out + 1] = ("**The run failed (exit status %s): the figures below are incomplete.**"):format(tostring(status))
  out[#out + 1] = ""
end
out[#out + 1] = "### Targets"
out[#out + 1] = ""
out[#out + 1] = "| target | this run | verdict |"
out[#out + 1] = "|---|---|---|"
local found = 0
for _, line in ipairs(lines) do
  -- the verdict is the last parenthesised word; the figure may hold parentheses of its own
  local what, figure, verdict = line:match("^WORLD target: (.-): (.*) %(([^()]*)%)$")
  if what then
    out[#out + 1] = ("| %s | %s | %s |"):format(what, figure, verdict == "met" and "met" or "missed")
    found = found + 1
  end
end
if found == 0 then out[#out + 1] = "| (no target printed) | | not printed |" end
out[#out + 1] = ""
out[#out + 1] = "### `make world`"
out[#out + 1] = ""
out[#out + 1] = "A world larger than one service (doc/world.md): 100,000 entities as one layer and as 2x2 regions in one Lua state (examples/world_sim.lua), then as skynet services at thread = 2, one service against 2x2 region services in the two designs (direct messages between regions, every phase through the coordinator), then the proof scene over two skynet nodes on 127.0.0.1 (examples/skynet/world/). CPU times are each service's own (skynet.stat); the critical path is the slowest region of each phase plus the coordinator."
out[#out + 1] = ""
out[#out + 1] = "```"
for _, l in ipairs(lines) do out[#out + 1] = l end
out[#out + 1] = "```"

local merged = doc.merge(machine.read(target), model, table.concat(out, "\n"))
local f = assert(io.open(target, "w"))
f:write(merged)
f:close()
print(("wrote %s: the section of %s"):format(target, model))
os.exit(ok and 0 or 1)
