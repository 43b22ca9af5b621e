-- What bench/report.lua writes, as plain functions of text (no processes, no files), so that
-- test/report_spec.lua can check them on fixtures: the programs' output split into sections,
-- one machine's run rendered with its targets, and that run merged into doc/benchmarks.md.
--
-- doc/benchmarks.md keeps one run per machine kind: a section per CPU model, opened by a
-- marker line `<!-- machine: <model> -->`. A new run replaces the section of its own CPU model
-- and leaves the others where they are; a model not there yet is added at the end.
local M = {}

M.PREAMBLE = table.concat({
  "# Benchmarks",
  "",
  "Written by `make bench` (`bench/report.lua`) from the output of the benchmark programs; do not",
  "edit by hand. One section per machine kind (CPU model): a run replaces the section of its own",
  "CPU model and keeps the others. Each section opens with the targets we set ourselves and",
  "whether that run met them, then every program's output under its name. Every ratio is",
  "measured side by side in one process; absolute times move with the machine's load, ratios",
  "much less. `make world SKYNET=...` (`bench/world_report.lua`) writes a section of its own per",
  "CPU model, named \"<model>, make world\", which `make bench` keeps.",
}, "\n")

local MARKER = "<!-- machine: %s -->"
local MARKER_PATTERN = "^<!%-%- machine: (.-) %-%->$"

-- The line that opens the section of CPU model `model` (bench/report_headlines.lua finds it too).
function M.marker(model) return MARKER:format(model) end

-- A line of the make recipe that starts a benchmark program: build/bench_x or lua bench/x.lua.
-- Returns the command, its source and the comment prefix of that source's language.
function M.program(line)
  local bin = line:match("^%S*/(bench_[%w_]+)$")
  if bin then return line, "bench/" .. bin .. ".cpp", "//" end
  local script = line:match("^%S+%s+(bench/[%w_]+%.lua)")
  if script then return line, script, "%-%-" end
  return nil
end

-- Splits the output of `make bench-run` (a list of lines) into one section per program:
-- { cmd, source, prefix, lines }. Lines before the first program are make's own and dropped.
function M.sections(lines)
  local sections, current = {}, nil
  for _, line in ipairs(lines) do
    local cmd, source, prefix = M.program(line)
    if cmd then
      current = { cmd = cmd, source = source, prefix = prefix, lines = {} }
      sections[#sections + 1] = current
    elseif current then
      current.lines[#current.lines + 1] = line
    end
  end
  return sections
end

-- The section whose command runs `program` (a path such as bench/bench_pairs_lua.lua or
-- build/bench_index), as one string, or nil.
local function output_of(sections, program)
  for _, s in ipairs(sections) do
    -- The program is the command's last word; a native one may sit in another build directory.
    local last = s.cmd:match("(%S+)$") or ""
    if last == program or (program:match("^build/") and last:match("[^/]+$") == program:match("[^/]+$")) then
      return "\n" .. table.concat(s.lines, "\n") .. "\n"
    end
  end
  return nil
end

local function format_number(v)
  local s = ("%.2f"):format(v):gsub("0+$", ""):gsub("%.$", "")
  return s
end

local FIGURE = "([%d.]+)"

-- bench/targets.lua's text (its format is described there) as a list of targets:
-- { program, what, op, limits, unit, figures = { { label, kind, pattern, column } } }.
function M.parse_targets(text)
  local targets = {}
  for line in text:gmatch("[^\n]+") do
    if line:match("^%S") then
      local program, promise, what = line:match("^(%S+) | (.-) | (.+)$")
      assert(program, "bad target line: " .. line)
      local t = { program = program, what = what, figures = {}, limits = {} }
      if promise ~= "as printed" then
        local op, rest = promise:match("^([<>]=) (.+)$")
        assert(op, "bad promise: " .. promise)
        t.op = op
        for limit in (rest .. " / "):gmatch("(.-) / ") do
          local v, unit = limit:match("^([%d.]+)(.*)$")
          t.limits[#t.limits + 1] = assert(tonumber(v), "bad limit: " .. limit)
          t.unit = unit ~= "x" and unit ~= "" and " " .. unit:gsub("^%s+", "") or unit
        end
      end
      targets[#targets + 1] = t
    else
      local label, how = line:match("^%s+(.-) | (.+)$")
      assert(label and #targets > 0, "bad figure line: " .. line)
      local kind, rest = how:match("^=(%a+) (.+)$")
      local f = { label = label, kind = kind or "pattern" }
      rest = (rest or how):gsub("\\n", "\n"):gsub("{N}", function() return FIGURE end)
      if f.kind == "min" then
        f.column, f.pattern = rest:match("^(%d+) (.+)$")
        f.column = tonumber(f.column)
      else
        f.pattern = rest
      end
      local list = targets[#targets].figures
      list[#list + 1] = f
    end
  end
  return targets
end

-- The smallest number in column `col` (counted from 1, after the prefix) of the rows of
-- `text` that start with pattern `prefix` (after leading blanks), or nil.
local function column_min(text, prefix, col)
  local best
  for line in text:gmatch("[^\n]+") do
    local rest = line:match("^%s*" .. prefix .. "%s+(.*)$")
    if rest then
      local k = 0
      for v in rest:gmatch("[%d.]+") do
        k = k + 1
        if k == col then
          local x = tonumber(v)
          if x and (not best or x < best) then best = x end
          break
        end
      end
    end
  end
  return best
end

-- A figure from a program's output: its value, or nil when not printed.
local function figure(f, text)
  if f.kind == "min" then return column_min(text, f.pattern, f.column) end
  if f.kind == "ratio" then
    local a, b = text:match(f.pattern)
    a, b = tonumber(a), tonumber(b)
    return a and b and a > 0 and math.floor(b / a * 10 + 0.5) / 10 or nil
  end
  return tonumber((text:match(f.pattern)))
end

-- The program's own verdicts (`=verdicts`): how many of the words it printed are "met", and
-- which rows are not.
local function own_verdicts(f, text)
  local met, total, missed = 0, 0, {}
  for line in text:gmatch("[^\n]+") do
    local word = line:match(f.pattern)
    if word then
      total = total + 1
      if word == "met" then met = met + 1 else missed[#missed + 1] = line:match("^%s*(%S+)") or "?" end
    end
  end
  if total == 0 then return nil end
  return ("%d of %d met"):format(met, total) .. (#missed > 0 and (" (missed: " .. table.concat(missed, ", ") .. ")") or ""),
      met == total
end

-- Each target's figures in this run and its verdict: met (every figure within its limit),
-- missed (one is not), or not printed (the program did not run or a figure was not found).
-- targets: M.parse_targets's list. Returns { what, program, promise, figures (text), verdict }.
function M.evaluate(targets, sections)
  local rows = {}
  for _, t in ipairs(targets) do
    local text = output_of(sections, t.program)
    local row = { what = t.what, program = t.program, promise = "as printed", figures = "", verdict = "not printed" }
    if t.op then
      local limits = {}
      for i, v in ipairs(t.limits) do limits[i] = format_number(v) .. t.unit end
      row.promise = t.op .. " " .. table.concat(limits, " / ")
    end
    local parts, found, met = {}, text ~= nil and #t.figures > 0, true
    for i, f in ipairs(t.figures) do
      if f.kind == "verdicts" then
        local summary, all_met = nil, false
        if text then summary, all_met = own_verdicts(f, text) end
        parts[#parts + 1] = f.label .. " " .. (summary or "?")
        found, met = found and summary ~= nil, met and all_met
      else
        local v = text and figure(f, text)
        local limit = t.limits[i] or t.limits[1]
        if v then
          parts[#parts + 1] = f.label .. " " .. format_number(v) .. t.unit
          if (t.op == "<=" and v > limit) or (t.op == ">=" and v < limit) then met = false end
        else
          parts[#parts + 1] = f.label .. " ?"
          found = false
        end
      end
    end
    row.figures = table.concat(parts, "; ")
    if found then row.verdict = met and "met" or "missed" end
    rows[#rows + 1] = row
  end
  return rows
end

function M.render_targets(rows)
  local out = { "| target | promise | this run | verdict | printed by |", "|---|---|---|---|---|" }
  for _, r in ipairs(rows) do
    out[#out + 1] = ("| %s | %s | %s | %s | `%s` |"):format(r.what, r.promise, r.figures, r.verdict, r.program)
  end
  return table.concat(out, "\n")
end

-- A section's opening: the marker, a heading naming the CPU model, the run's header table (commit,
-- date, CPU, the `rows` given, the load average) and, when the run failed, a warning.
local function section_head(header, rows, ok, status)
  local out = {
    MARKER:format(header.model),
    ("## %s"):format(header.model),
    "",
    "| | |",
    "|---|---|",
    ("| commit | `%s` |"):format(header.commit),
    ("| date | %s |"):format(header.date),
    ("| CPU | %s |"):format(header.cpu),
  }
  for _, r in ipairs(rows) do out[#out + 1] = r end
  out[#out + 1] = ("| load average (1, 5, 15 min) | %s before, %s after |"):format(header.load_before, header.load_after)
  out[#out + 1] = ""
  if not ok then
    out[#out + 1] = ("**The run failed (exit status %s): the figures below are incomplete.**"):format(tostring(status))
    out[#out + 1] = ""
  end
  return out
end

-- One machine's section: the marker, a heading naming the CPU model, the run's header table,
-- the targets, then each program's output under its command (with `about`, the leading
-- comment of the program's source, when given). header: { model, commit, date, cpu, compiler,
-- lua, load_before, load_after }; ok/status: how the run ended.
function M.render_run(header, sections, targets, ok, status)
  local out = section_head(header, {
    ("| compiler | %s |"):format(header.compiler),
    ("| Lua | %s |"):format(header.lua),
  }, ok, status)
  out[#out + 1] = "### Targets"
  out[#out + 1] = ""
  out[#out + 1] = M.render_targets(M.evaluate(targets, sections))
  out[#out + 1] = ""
  for _, s in ipairs(sections) do
    out[#out + 1] = ("### `%s`"):format(s.cmd)
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
  return table.concat(out, "\n")
end

-- make world's section (bench/world_report.lua): the lines the run printed, without make's own
-- and the plain-Lua run's progress (tick k/n, rewritten in place with a carriage return).
function M.world_lines(printed)
  local lines = {}
  for _, line in ipairs(printed) do
    line = line:gsub("^.*\r", "")
    if not (line:match("^make") or line:match("^g%+%+ ") or line:match("^tick %d+/%d+$")) then lines[#lines + 1] = line end
  end
  return lines
end

-- The targets a make world run printed, "WORLD target: <what>: <figure> (<verdict>)", as rows
-- { what, figure, verdict } with verdict "met" or "missed"; the verdict is the last
-- parenthesised word, the figure may hold parentheses of its own.
function M.world_targets(lines)
  local rows = {}
  for _, line in ipairs(lines) do
    local what, figure, verdict = line:match("^WORLD target: (.-): (.*) %(([^()]*)%)$")
    if what then rows[#rows + 1] = { what = what, figure = figure, verdict = verdict == "met" and "met" or "missed" } end
  end
  return rows
end

M.WORLD_ABOUT = "A world larger than one service (doc/world.md): 100,000 entities as one layer and as 2x2 "
  .. "regions in one Lua state (examples/world_sim.lua), then as skynet services at thread = 2, one "
  .. "service against 2x2 region services in the two designs (direct messages between regions, every "
  .. "phase through the coordinator), then the proof scene over two skynet nodes on 127.0.0.1 "
  .. "(examples/skynet/world/). CPU times are each service's own (skynet.stat); the critical path is "
  .. "the slowest region of each phase plus the coordinator."

-- make world's section: header { model, commit, date, cpu, skynet, load_before, load_after },
-- the lines from world_lines, how the run ended.
function M.render_world(header, lines, ok, status)
  local out = section_head(header, { ("| skynet | `%s` |"):format(header.skynet) }, ok, status)
  out[#out + 1] = "### Targets"
  out[#out + 1] = ""
  out[#out + 1] = "| target | this run | verdict |"
  out[#out + 1] = "|---|---|---|"
  local rows = M.world_targets(lines)
  for _, r in ipairs(rows) do out[#out + 1] = ("| %s | %s | %s |"):format(r.what, r.figure, r.verdict) end
  if #rows == 0 then out[#out + 1] = "| (no target printed) | | not printed |" end
  out[#out + 1] = ""
  out[#out + 1] = "### `make world`"
  out[#out + 1] = ""
  out[#out + 1] = M.WORLD_ABOUT
  out[#out + 1] = ""
  out[#out + 1] = "```"
  for _, l in ipairs(lines) do out[#out + 1] = l end
  out[#out + 1] = "```"
  return table.concat(out, "\n")
end

-- The machine sections of a benchmarks file, in order: { model, text } (text from its marker
-- line to the line before the next marker, trailing blank lines dropped). A file written before
-- sections existed (no marker) yields none.
function M.split(doc)
  local runs, current = {}, nil
  for line in ((doc or "") .. "\n"):gmatch("(.-)\r?\n") do
    local model = line:match(MARKER_PATTERN)
    if model then
      current = { model = model, lines = { line } }
      runs[#runs + 1] = current
    elseif current then
      current.lines[#current.lines + 1] = line
    end
  end
  for _, r in ipairs(runs) do
    while #r.lines > 1 and r.lines[#r.lines]:match("^%s*$") do r.lines[#r.lines] = nil end
    r.text = table.concat(r.lines, "\n")
    r.lines = nil
  end
  return runs
end

-- The benchmarks file with `run` (a section from render_run, for CPU model `model`) in it: in
-- place of the old section of that model, else after the others.
function M.merge(doc, model, run)
  local runs, replaced = M.split(doc), false
  for _, r in ipairs(runs) do
    if r.model == model then
      r.text, replaced = run, true
    end
  end
  if not replaced then runs[#runs + 1] = { model = model, text = run } end
  local out = { M.PREAMBLE, "" }
  for _, r in ipairs(runs) do
    out[#out + 1] = (r.text:gsub("%s+$", ""))
    out[#out + 1] = ""
  end
  return table.concat(out, "\n")
end

return M
