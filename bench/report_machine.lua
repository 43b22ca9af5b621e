-- What bench/report.lua and bench/world_report.lua say about the run itself: the commit, the
-- date, the CPU model (the machine kind a section of doc/benchmarks.md is kept per) and the
-- load average, read from git and /proc.
local M = {}

function M.run(cmd)
  local p = io.popen(cmd .. " 2>/dev/null")
  if not p then return nil end
  local s = p:read("a")
  p:close()
  s = s and s:gsub("%s+$", "")
  return s ~= "" and s or nil
end

function M.read(path)
  local f <close> = io.open(path, "r")
  return f and f:read("a")
end

-- The CPU model and the model with the CPU count.
function M.cpu()
  local info = M.read("/proc/cpuinfo") or ""
  local model = info:match("model name%s*:%s*([^\n]+)") or M.run("uname -m") or "unknown"
  model = model:gsub("%s+$", "")
  local n = select(2, info:gsub("\nprocessor%s*:", "")) + (info:match("^processor%s*:") and 1 or 0)
  return model, n > 0 and ("%s, %d logical CPUs"):format(model, n) or model
end

function M.load_average()
  return (M.read("/proc/loadavg") or ""):match("^(%S+ %S+ %S+)") or "unknown"
end

-- The commit, and whether the tree differs from it. Markdown files do not count: no figure
-- depends on them, and a run writes two of them (the report and the README's figures) before
-- they can be committed.
function M.commit()
  return (M.run("git rev-parse --short=12 HEAD") or "unknown")
    .. (os.execute("git diff --quiet HEAD -- . ':(exclude)*.md' 2>/dev/null") and ""
        or " (with uncommitted changes)")
end

function M.date() return os.date("!%Y-%m-%d %H:%M UTC") end

-- Runs `command`, echoing what it prints as it prints it; returns those lines, then how it
-- ended (io.popen's close: ok, status).
function M.echo_run(command)
  local lines = {}
  local p = assert(io.popen(command .. " 2>&1"))
  for line in p:lines() do
    io.write(line, "\n")
    io.flush()
    lines[#lines + 1] = line
  end
  local ok, _, status = p:close()
  return lines, ok, status
end

return M
