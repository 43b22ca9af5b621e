-- make world SKYNET=...: runs the world's figures (the recipe of `make world-run`, given as the
-- first argument), shows their output as it comes, and writes it into doc/benchmarks.md (the
-- second argument) as a section of its own per CPU model, marked "<model>, make world" so that
-- make bench, which replaces only the section of its own model, keeps it. The section opens
-- with the targets as the run printed them ("WORLD target:" lines, each with its figure and
-- verdict), then the run's output (bench/report_doc.lua renders it). The load average is taken
-- before and after, and the programs print their own too.
local command, target = arg[1], arg[2]
assert(command and target, "usage: lua bench/world_report.lua '<command>' <output.md>")

local here = (arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
local doc = require "report_doc"
local machine = require "report_machine"

local model, cpu_line = machine.cpu()
local header = {
  model = model .. ", make world", commit = machine.commit(), date = machine.date(), cpu = cpu_line,
  skynet = os.getenv("SKYNET") or "not given", load_before = machine.load_average(),
}

local printed, ok, status = machine.echo_run(command)
header.load_after = machine.load_average()

local merged = doc.merge(machine.read(target), header.model, doc.render_world(header, doc.world_lines(printed), ok, status))
local f = assert(io.open(target, "w"))
f:write(merged)
f:close()
print(("wrote %s: the section of %s"):format(target, header.model))
os.exit(ok and 0 or 1)
