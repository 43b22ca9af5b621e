-- make bench: runs the benchmark programs (the recipe of `make bench-run`, given as the first
-- argument), shows their output as it comes, and writes it into doc/benchmarks.md (the second
-- argument) as this machine's section, under a header naming the commit, the date, the CPU
-- and the compiler, with the targets of bench/targets.lua and this run's verdicts. The section
-- of another CPU model already in the file is kept; this model's is replaced
-- (bench/report_doc.lua). The figures are the programs' own output, nothing else; each
-- program's part starts with its leading comment, which says what it measures and against
-- which baseline.
local command, target, readme = arg[1], arg[2], arg[3]
assert(command and target, "usage: lua bench/report.lua '<command>' <output.md> [README.md]")

local here = (arg[0] or ""):match("^(.*)/[^/]*$") or "."
package.path = here .. "/?.lua;" .. package.path
local doc = require "report_doc"
local targets = doc.parse_targets(require "targets")

local machine = require "report_machine"
local run, read, cpu, load_average = machine.run, machine.read, machine.cpu, machine.load_average

-- What a benchmark says it measures: the leading comment of its source.
local function leading_comment(source, prefix)
  local text = read(source)
  if not text then return nil end
  local lines = {}
  for line in text:gmatch("[^\n]*") do
    local c = line:match("^" .. prefix .. " ?(.*)$")
    if not c then break end
    if c ~= "" then lines[#lines + 1] = c end
  end
  return #lines > 0 and table.concat(lines, " ") or nil
end

local model, cpu_line = cpu()
local header = {
  model = model,
  commit = machine.commit(),
  date = machine.date(),
  cpu = cpu_line,
  compiler = run((os.getenv("CXX") or "g++") .. " --version | head -n 1") or "unknown",
  lua = run((os.getenv("LUA") or "lua5.4") .. " -v") or "unknown",
  load_before = load_average(),
}

local lines, ok, status = machine.echo_run(command)
header.load_after = load_average()

local sections = doc.sections(lines)
for _, s in ipairs(sections) do s.about = leading_comment(s.source, s.prefix) end
local merged = doc.merge(read(target), model, doc.render_run(header, sections, targets, ok, status))
local f = assert(io.open(target, "w"))
f:write(merged)
f:close()
print(("wrote %s: the section of %s (%d programs)"):format(target, model, #sections))
-- The README's headline figures follow this run (bench/report_headlines.lua).
local readme_text = readme and read(readme)
if readme_text then
  local text, why = require("report_headlines").update(readme_text, merged, model)
  if text then
    local r = assert(io.open(readme, "w"))
    r:write(text)
    r:close()
    print(("wrote %s: its figures, from the section of %s"):format(readme, model))
  else
    print(("left %s as it was: %s"):format(readme, why))
  end
end
os.exit(ok and 0 or 1)
