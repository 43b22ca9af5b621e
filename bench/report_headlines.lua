-- The headline figures of README.md, taken from one machine's section of doc/benchmarks.md:
-- bench/report.lua rewrites them after each `make bench`, and test/report_spec.lua checks that
-- the README's are those of the section it names, so that they cannot drift from the file
-- they link to. Plain functions of text, as bench/report_doc.lua.
local doc = require "report_doc"
local M = {}

-- Each headline: the program whose output holds it, a pattern capturing its two figures as
-- printed, and the sentence they go into.
M.HEADLINES = {
  {
    program = "bench/bench_lua.lua",
    pattern = "\n%s*10000 entities[^\n]-soageo%s+([%d.]+) us[^\n]-ratio%s+([%d.]+)x",
    text = "A 90-degree cone over 10,000 entities: %s us from Lua, %sx a plain Lua loop",
  },
  {
    program = "bench/bench_index_lua.lua",
    pattern = "\n1000000%s+touch_box 50%s+([%d.]+)%s+[%d.]+%s+[%d.]+%s+[%d.]+x%s+([%d.]+)x",
    text = "A 50x50 box among 1,000,000 entities: %s us, %sx a plain-Lua grid",
  },
  {
    program = "bench/bench_index_lua.lua",
    pattern = "\n%s*100000 entities:[^\n]-k=8 ([%d.]+) us %(scan k=8 ([%d.]+) us%)",
    text = "The 8 nearest of 100,000 entities: %s us, where a scan takes %s us",
  },
  {
    program = "bench/bench_pairs_lua.lua",
    pattern = "\npairs uniform 10,000 in 2000x2000[^\n]-soageo%s+([%d.]+) ms[^\n]-ratio%s+([%d.]+)x",
    text = "Every overlapping pair of 10,000 boxes: %s ms, %sx a pure-Lua sort and sweep",
  },
  {
    program = "bench/bench_pairs_lua.lua",
    pattern = "\naoi%s+uniform 10,000 in 2000x2000[^\n]-soageo%s+([%d.]+) ms[^\n]-ratio%s+([%d.]+)x",
    text = "An AOI update of 10,000 watchers, all moving: %s ms, %sx a pure-Lua grid AOI",
  },
}

-- GitHub's anchor of a heading: lower case, punctuation other than '-' and '_' dropped, spaces
-- as '-'; the n-th repeat of an anchor in a file gets "-n".
local function slug(heading)
  return (heading:lower():gsub("[^%w%s%-_]", ""):gsub("%s", "-"))
end

-- The headings of a markdown file in order, outside code blocks: { text, first } (first: the
-- heading's byte offset).
local function headings(text)
  local list, fenced, at = {}, false, 1
  for line in (text .. "\n"):gmatch("(.-)\n") do
    if line:match("^```") then
      fenced = not fenced
    elseif not fenced then
      local h = line:match("^#+%s+(.-)%s*$")
      if h then list[#list + 1] = { text = h, first = at } end
    end
    at = at + #line + 1
  end
  return list
end

-- The anchor of the heading at byte offset `first` of `file`.
local function anchor_at(file, first)
  local seen = {}
  for _, h in ipairs(headings(file)) do
    local s = slug(h.text)
    local n = seen[s] or 0
    seen[s] = n + 1
    if h.first == first then return n == 0 and s or s .. "-" .. n end
  end
end

-- The headline block for the machine section `model` of benchmarks file `file` (its text):
-- the lines README.md holds between "## Figures" and the next heading. nil and why when the
-- section or a figure is missing.
function M.render(file, model)
  local marker = doc.marker(model) .. "\n"
  local from = file:find(marker, 1, true)
  if not from then return nil, "no section for " .. model end
  local next_section = file:find("\n" .. doc.marker(""):sub(1, -5), from + #marker, true)  -- "<!-- machine: "
  local section_end = next_section or #file
  local cpu = file:sub(from, section_end):match("\n| CPU | ([^|\n]-) |\n")
  if not cpu then return nil, "no CPU line in the section of " .. model end
  local lines = {
    ("Measured by `make bench` on %s, against the baseline named;"):format(cpu),
    "every figure is in [doc/benchmarks.md](doc/benchmarks.md), in that machine kind's section.",
    "",
  }
  for _, h in ipairs(M.HEADLINES) do
    -- The program's heading in this section, then its output (the code block after it).
    local head = file:find("\n### `[^`\n]-" .. h.program:gsub("%p", "%%%0") .. "`\n", from)
    if not head or head > section_end then return nil, h.program .. " is not in the section of " .. model end
    local output = file:match("\n```\n(.-)\n```", head)
    local a, b
    if output then a, b = ("\n" .. output):match(h.pattern) end
    if not b then return nil, "a headline of " .. h.program .. " is not in its output" end
    local target = "doc/benchmarks.md#" .. anchor_at(file, head + 1)
    lines[#lines + 1] = ("- [%s](%s)"):format(h.text:format(a, b), target)
  end
  return table.concat(lines, "\n")
end

-- README.md's "## Figures" block: the text between its heading and the next "## " heading (or
-- the end, its last newlines left out), and where it lies. nil when there is no such heading.
function M.block(readme)
  local head = readme:find("\n## Figures\n\n", 1, true)
  if not head then return nil end
  local first = head + #"\n## Figures\n\n"
  local next_head = readme:find("\n\n## ", first, true)
  local last = next_head and next_head - 1 or #readme - #readme:match("\n*$")
  return readme:sub(first, last), first, last
end

-- The machine kind README.md's figures name (the model of their section): the longest model
-- of the file that is their CPU line, or starts it before a comma (", 2 logical CPUs").
function M.model(readme, file)
  local block = M.block(readme)
  local cpu = block and block:match("^Measured by `make bench` on (.-), against the baseline named;")
  if not cpu then return nil end
  local found
  for _, section in ipairs(doc.split(file)) do
    local model = section.model
    if (cpu == model or cpu:sub(1, #model + 1) == model .. ",") and (not found or #model > #found) then
      found = model
    end
  end
  return found
end

-- README.md with its figures taken from the section `model` of `file`; nil and why when the
-- README has no figures block or the section lacks a figure (the README is then left as is).
function M.update(readme, file, model)
  local _, first, last = M.block(readme)
  if not first then return nil, "README.md has no '## Figures' block" end
  local block, why = M.render(file, model)
  if not block then return nil, why end
  return readme:sub(1, first - 1) .. block .. readme:sub(last + 1)
end

return M
