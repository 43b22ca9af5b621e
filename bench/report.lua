-- make bench: runs the benchmark programs (the recipe of `make bench-run`, given as the first
-- argument), shows their output as it comes, and writes it to doc/benchmarks.md (the second
-- argument) under a header naming the commit, the date, the CPU and the compiler. The figures
-- in that file are the programs' own output, nothing else; each section starts with the
-- program's leading comment, which says what it measures and against which baseline.
local command, target = arg[1], arg[2]
assert(command and target, "usage: lua bench/report.lua '<command>' <output.md>")

local function run(cmd)
  local p = io.popen(cmd .. " 2>/dev/null")
  if not p then return nil end
  local s = p:read("a")
  p:close()
  s = s and s:gsub("%s+$", "")
  return s ~= "" and s or nil
end

local function read(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function cpu()
  local info = read("/proc/cpuinfo") or ""
  local model = info:match("model name%s*:%s*([^\n]+)") or run("uname -m") or "unknown"
  local n = select(2, info:gsub("\nprocessor%s*:", "")) + (info:match("^processor%s*:") and 1 or 0)
  return n > 0 and ("%s, %d logical CPUs"):format(model, n) or model
end

local function load_average()
  return (read("/proc/loadavg") or ""):match("^(%S+ %S+ %S+)") or "unknown"
end

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

-- A line of the make recipe that starts a benchmark program: build/bench_x or lua bench/x.lua.
local function program(line)
  local bin = line:match("^%S*/(bench_[%w_]+)$")
  if bin then return line, "bench/" .. bin .. ".cpp", "//" end
  local script = line:match("^%S+%s+(bench/[%w_]+%.lua)")
  if script then return line, script, "%-%-" end
  return nil
end

local header = {
  commit = (run("git rev-parse --short=12 HEAD") or "unknown")
    -- The reports themselves do not count: a second run is made before the first is committed.
    .. (os.execute("git diff --quiet HEAD -- . ':(exclude)doc/benchmarks*.md' 2>/dev/null") and ""
        or " (with uncommitted changes)"),
  date = os.date("!%Y-%m-%d %H:%M UTC"),
  cpu = cpu(),
  compiler = run((os.getenv("CXX") or "g++") .. " --version | head -n 1") or "unknown",
  lua = run((os.getenv("LUA") or "lua5.4") .. " -v") or "unknown",
  load_before = load_average(),
}

local sections, current = {}, nil
local p = assert(io.popen(command .. " 2>&1"))
for line in p:lines() do
  io.write(line, "\n")
  io.flush()
  local cmd, source, prefix = program(line)
  if cmd then
    current = { cmd = cmd, about = leading_comment(source, prefix), lines = {} }
    sections[#sections + 1] = current
  elseif current then
    current.lines[#current.lines + 1] = line
  end
end
local ok, _, status = p:close()

local out = {
  "# Benchmarks",
  "",
  "Written by `make bench` (`bench/report.lua`) from the output of the benchmark programs; do not",
  "edit by hand. Every ratio is measured side by side in one process; absolute times move with",
  "the machine's load, ratios much less.",
  "",
  "| | |",
  "|---|---|",
  ("| commit | `%s` |"):format(header.commit),
  ("| date | %s |"):format(header.date),
  ("| CPU | %s |"):format(header.cpu),
  ("| compiler | %s |"):format(header.compiler),
  ("| Lua | %s |"):format(header.lua),
  ("| load average (1, 5, 15 min) | %s before, %s after |"):format(header.load_before, load_average()),
  "",
}
if not ok then
  out[#out + 1] = ("**The run failed (exit status %s): the figures below are incomplete.**"):format(tostring(status))
  out[#out + 1] = ""
end
for _, s in ipairs(sections) do
  out[#out + 1] = ("## `%s`"):format(s.cmd)
  out[#out + 1] = ""
  if s.about then
    out[#out + 1] = s.about
    out[#out + 1] = ""
  end
  out[#out + 1] = "```"
  for _, l in ipairs(s.lines) do out[#out + 1] = l end
  out[#out + 1] = "```"
  out[#out + 1] = ""
end
local f = assert(io.open(target, "w"))
f:write(table.concat(out, "\n"))
f:close()
print(("wrote %s (%d programs)"):format(target, #sections))
os.exit(ok and 0 or 1)
