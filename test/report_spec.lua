-- bench/report_doc.lua: how `make bench` splits the programs' output, judges the targets of
-- bench/targets.lua and keeps one run per machine kind in doc/benchmarks.md. Fixtures only:
-- no benchmark runs here.
local doc = require "report_doc"
local targets = doc.parse_targets(require "targets")

local function header(model, commit)
  return {
    model = model, commit = commit, date = "2026-01-01 00:00 UTC", cpu = model .. ", 2 logical CPUs",
    compiler = "g++ 12", lua = "Lua 5.4.4", load_before = "0 0 0", load_after = "0 0 0",
  }
end

local function run_of(model, commit, output)
  local sections = doc.sections(output or { "build/bench_x", "figure 1.0" })
  return doc.render_run(header(model, commit), sections, {}, true, 0)
end

local function models(text)
  local list = {}
  for model in text:gmatch("<!%-%- machine: (.-) %-%->") do list[#list + 1] = model end
  return list
end

describe("when a run is merged into the benchmarks file", function()
  it("returns the preamble and the run when there is no file yet", function()
    local text = doc.merge(nil, "CPU A", run_of("CPU A", "aaa"))
    assert.are.equal(1, select(2, text:gsub("^# Benchmarks\n", "")))
    assert.are.same({ "CPU A" }, models(text))
    assert.is_truthy(text:find("| commit | `aaa` |", 1, true))
  end)

  it("returns the other machines' sections kept, in their order, and this one's replaced", function()
    local text = doc.merge(nil, "CPU A", run_of("CPU A", "a1"))
    text = doc.merge(text, "CPU B", run_of("CPU B", "b1"))
    text = doc.merge(text, "CPU C", run_of("CPU C", "c1"))
    text = doc.merge(text, "CPU B", run_of("CPU B", "b2"))
    assert.are.same({ "CPU A", "CPU B", "CPU C" }, models(text))
    assert.is_truthy(text:find("`a1`", 1, true))
    assert.is_truthy(text:find("`c1`", 1, true))
    assert.is_truthy(text:find("`b2`", 1, true))
    assert.is_falsy(text:find("`b1`", 1, true))
  end)

  it("returns the same file when the same run is merged twice", function()
    local once = doc.merge(doc.merge(nil, "CPU A", run_of("CPU A", "a1")), "CPU B", run_of("CPU B", "b1"))
    assert.are.equal(once, doc.merge(once, "CPU B", run_of("CPU B", "b1")))
  end)

  it("returns only the new run for a file in the layout before sections (no marker)", function()
    local old = "# Benchmarks\n\n| commit | `old` |\n\n## `build/bench_x`\n\n```\nold figure\n```\n"
    local text = doc.merge(old, "CPU A", run_of("CPU A", "a1"))
    assert.are.same({ "CPU A" }, models(text))
    assert.is_falsy(text:find("old figure", 1, true))
  end)

  it("returns each program's output under its command, verbatim", function()
    local text = run_of("CPU A", "a1", { "make[1]: noise", "build/bench_x", "  x  1.5 ms", "lua5.4 bench/bench_y.lua", "y 2x" })
    assert.is_truthy(text:find("### `build/bench_x`\n\n```\n  x  1.5 ms\n```", 1, true))
    assert.is_truthy(text:find("### `lua5.4 bench/bench_y.lua`\n\n```\ny 2x\n```", 1, true))
    assert.is_falsy(text:find("noise", 1, true))
  end)
end)

describe("when targets are judged on a run's output", function()
  local fixture = doc.parse_targets([[
bench/bench_y.lua | <= 1 ms | y small
  a | y a {N} ms
  b | y b {N} ms
build/bench_x | >= 2x / 10x | x fast
  small | x small {N}x
  large | =min 2 x large
build/bench_z | as printed | z printed
  all | =verdicts target (%a+)
bench/bench_w.lua | >= 2x | w ratio
  w | =ratio \nw {N} ms, {N} ms
]])

  local function judge(output)
    local rows = doc.evaluate(fixture, doc.sections(output))
    local verdicts = {}
    for i, r in ipairs(rows) do verdicts[i] = r.verdict end
    return verdicts, rows
  end

  it("returns met when every figure is within its limit, missed when one is not", function()
    local verdicts, rows = judge({ "lua5.4 bench/bench_y.lua", "y a 0.5 ms", "y b 1.0 ms",
      "build/bench_x", "x small 2.5x", "x large 1 12.5", "x large 2 9.9", "build/bench_z", "one target met",
      "two target missed", "lua5.4 bench/bench_w.lua", "w 2 ms, 3 ms" })
    assert.are.same({ "met", "missed", "missed", "missed" }, verdicts)
    assert.are.equal("<= 1 ms", rows[1].promise)
    assert.are.equal("a 0.5 ms; b 1 ms", rows[1].figures)
    assert.are.equal(">= 2x / 10x", rows[2].promise)
    assert.are.equal("small 2.5x; large 9.9x", rows[2].figures)
    assert.are.equal("all 1 of 2 met (missed: two)", rows[3].figures)
    assert.are.equal("w 1.5x", rows[4].figures)
  end)

  it("returns not printed when a program did not run or a figure is missing", function()
    local verdicts = judge({ "lua5.4 bench/bench_y.lua", "y a 0.5 ms", "build/bench_other", "x small 3x" })
    assert.are.same({ "not printed", "not printed", "not printed", "not printed" }, verdicts)
  end)

  it("returns a native program's figures from another build directory", function()
    local verdicts = judge({ "build-x/bench_x", "x small 3x", "x large 1 11" })
    assert.are.equal("met", verdicts[2])
  end)

  it("returns a verdict for every target of bench/targets.lua on the committed doc/benchmarks.md", function()
    local f = assert(io.open("doc/benchmarks.md", "r"))
    local text = f:read("a")
    f:close()
    -- The first machine's program blocks, back into the lines the programs printed.
    local run = doc.split(text)[1]
    assert.is_truthy(run, "doc/benchmarks.md has no machine section")
    local output, inblock = {}, false
    for line in (run.text .. "\n"):gmatch("(.-)\n") do
      local cmd = line:match("^### `(.-)`$")
      if cmd then
        output[#output + 1] = cmd
      elseif line == "```" then
        inblock = not inblock
      elseif inblock then
        output[#output + 1] = line
      end
    end
    local unprinted = {}
    for _, r in ipairs(doc.evaluate(targets, doc.sections(output))) do
      if r.verdict == "not printed" then unprinted[#unprinted + 1] = r.what .. ": " .. r.figures end
    end
    assert.are.same({}, unprinted)
  end)
end)

describe("when make world's run is written as its own section", function()
  local header = { model = "CPU A, make world", commit = "w1", date = "2026-01-01 00:00 UTC", cpu = "CPU A, 2 logical CPUs",
                   skynet = "/sk", load_before = "0 0 0", load_after = "1 1 1" }
  local printed = {
    "make[1]: Entering directory", "g++ -O2 -c x.cpp", "lua5.4 examples/world_sim.lua 100000 20 2 2",
    "tick 0/21\rtick 1/21\rtick 21/21\rone layer:     median tick 58.2 ms",
    "WORLD target: the regions' CPU in all <= 1.10x the one service's: 1.08x (met)",
    "WORLD target: ticks per second >= 1.5x the one service's: 0.93x (NOT met)",
    "WORLD target: a phase's crossing there and back <= 2 ms: 0.52 ms in the ticks (medians each way); echoes 0.2 ms (met)",
  }
  local lines = doc.world_lines(printed)

  it("returns the run's lines without make's, the compiler's and the progress", function()
    assert.are.equal("lua5.4 examples/world_sim.lua 100000 20 2 2", lines[1])
    assert.are.equal("one layer:     median tick 58.2 ms", lines[2])
    assert.are.equal(5, #lines)
  end)

  it("returns each printed target with its figure and verdict, parentheses in the figure included", function()
    local rows = doc.world_targets(lines)
    assert.are.equal(3, #rows)
    assert.are.same({ what = "the regions' CPU in all <= 1.10x the one service's", figure = "1.08x", verdict = "met" }, rows[1])
    assert.are.equal("missed", rows[2].verdict)
    assert.are.equal("0.52 ms in the ticks (medians each way); echoes 0.2 ms", rows[3].figure)
    assert.are.equal("met", rows[3].verdict)
  end)

  it("returns a section make bench keeps beside the machine's own", function()
    local text = doc.merge(nil, "CPU A", run_of("CPU A", "a1"))
    text = doc.merge(text, header.model, doc.render_world(header, lines, true, 0))
    text = doc.merge(text, "CPU A", run_of("CPU A", "a2"))
    assert.are.same({ "CPU A", "CPU A, make world" }, models(text))
    assert.is_truthy(text:find("| ticks per second >= 1.5x the one service's | 0.93x | missed |", 1, true))
    assert.is_truthy(text:find("`w1`", 1, true))
  end)
end)

describe("when the README's headline figures are taken from a benchmarks file", function()
  local headlines = require "report_headlines"
  -- The lines of the three programs that hold the headlines, with figures `v` in every place.
  local function output(v)
    return {
      "lua5.4 bench/bench_lua.lua",
      "in_sector from Lua (Lua 5.4, SIMD target avx512), best of several runs, one process:",
      ("  10000 entities  hits 107 (pure Lua 107, 1.07%%)  soageo     %s us  pure Lua    196.78 us  ratio  %sx"):format(v, v),
      "lua5.4 bench/bench_index_lua.lua",
      ("1000000   touch_box 50        %s    184.80     13.25   350.0x    %sx    6.4"):format(v, v),
      ("   100000 entities: cast_segment_first 0.33 us (scan 22.7 us); nearest k=1 0.31 us, k=8 %s us (scan k=8 %s us)"):format(v, v),
      "lua5.4 bench/bench_pairs_lua.lua",
      ("pairs uniform 10,000 in 2000x2000    16485 pairs (pure Lua   16485)  soageo     %s ms  pure Lua     33.53 ms  ratio   %sx"):format(v, v),
      ("aoi   uniform 10,000 in 2000x2000  10000 watchers    7166 events/tick (grid   7166)  soageo   %s ms  grid Lua   68.60 ms  ratio  %sx"):format(v, v),
    }
  end
  local file = doc.merge(nil, "CPU A", run_of("CPU A", "a1", output("1.5")))
  file = doc.merge(file, "CPU B", run_of("CPU B", "b1", output("2.5")))
  local readme = "# x\n\n## Figures\n\nold\n\n- old figure\n\n## Install\n\nrest\n"

  it("returns each figure of the named machine's section, linked to its program there", function()
    local block = assert(headlines.render(file, "CPU B"))
    assert.is_truthy(block:find("^Measured by `make bench` on CPU B, 2 logical CPUs, against the baseline named;\n"))
    assert.is_truthy(block:find("- [A 90-degree cone over 10,000 entities: 2.5 us from Lua, 2.5x a plain Lua loop]"
      .. "(doc/benchmarks.md#lua54-benchbench_lualua-1)", 1, true))
    assert.is_truthy(block:find("- [The 8 nearest of 100,000 entities: 2.5 us, where a scan takes 2.5 us]", 1, true))
    assert.is_truthy(block:find("(doc/benchmarks.md#lua54-benchbench_pairs_lualua-1)", 1, true))
    assert.is_falsy(block:find("1.5", 1, true))
    local a = assert(headlines.render(file, "CPU A"))
    assert.is_truthy(a:find("(doc/benchmarks.md#lua54-benchbench_lualua)", 1, true))
    assert.are.equal(5, select(2, a:gsub("\n%- %[", "")))
  end)

  it("returns the README with only its figures block replaced, the same when done twice", function()
    local once = assert(headlines.update(readme, file, "CPU A"))
    assert.is_truthy(once:find("^# x\n\n## Figures\n\nMeasured by `make bench` on CPU A"))
    assert.is_truthy(once:find("\n\n## Install\n\nrest\n$"))
    assert.is_falsy(once:find("old figure", 1, true))
    assert.are.equal("CPU A", headlines.model(once, file))
    assert.are.equal(once, headlines.update(once, file, "CPU A"))
  end)

  it("returns the machine kind of a CPU line without a count, and a block that ends the README", function()
    local h = header("arm64", "c1")
    h.cpu = "arm64"  -- no /proc/cpuinfo: the CPU line is the model alone
    local arm = doc.merge(file, "arm64", doc.render_run(h, doc.sections(output("3.5")), {}, true, 0))
    local last = assert(headlines.update("# x\n\n## Figures\n\nold\n", arm, "arm64"))
    assert.is_truthy(last:find("^# x\n\n## Figures\n\nMeasured by `make bench` on arm64, against"))
    assert.is_truthy(last:find("3.5x a pure%-Lua grid AOI%]%([^)]*%)\n$"))
    assert.are.equal("arm64", headlines.model(last, arm))
    assert.are.equal(last, headlines.update(last, arm, "arm64"))
  end)

  it("returns nil and why when a figure or the section is missing", function()
    local short = output("1.5")
    table.remove(short, 6)  -- the nearest line
    local partial = doc.merge(nil, "CPU A", run_of("CPU A", "a1", short))
    local text, why = headlines.update(readme, partial, "CPU A")
    assert.is_nil(text)
    assert.is_truthy(why:find("bench/bench_index_lua.lua", 1, true))
    assert.is_nil((headlines.render(file, "CPU C")))
  end)

  it("returns the README's own figures from doc/benchmarks.md, the machine kind it names", function()
    local f = assert(io.open("doc/benchmarks.md"))
    local bench = f:read("a")
    f:close()
    f = assert(io.open("README.md"))
    local text = f:read("a")
    f:close()
    local model = headlines.model(text, bench)
    assert.is_truthy(model, "README.md's figures name no machine kind of doc/benchmarks.md")
    assert.are.equal(headlines.update(text, bench, model), text, "README.md's figures differ from doc/benchmarks.md: make bench rewrites both")
  end)
end)
