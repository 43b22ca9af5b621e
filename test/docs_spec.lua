-- The documentation runs: every ```lua block of README.md and doc/manual.md is executed as
-- it is written, on its own (a block must be self-contained: it requires soageo and builds
-- what it uses). A block that is meant to fail carries the marked comment
--     -- fails with: <the error message, word for word>
-- and must raise exactly that message (without the "chunk:line:" position Lua puts first).
-- print is silenced while a block runs.
local DOCS = { "README.md", "doc/manual.md" }
local MARK = "%-%-%s*fails with:%s*(.-)%s*$"

local function read(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- Every ```lua block: { file, line (of its first code line), code, fails (expected message or nil) }
local function lua_blocks(path, text)
  local blocks, current = {}, nil
  local n = 0
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do
    n = n + 1
    if current then
      if line:match("^%s*```%s*$") then
        current.code = table.concat(current.lines, "\n")
        blocks[#blocks + 1] = current
        current = nil
      else
        current.lines[#current.lines + 1] = line
        current.fails = current.fails or line:match(MARK)
      end
    elseif line:match("^%s*```lua%s*$") then
      current = { file = path, line = n + 1, lines = {} }
    end
  end
  assert(not current, path .. ": a ```lua block opened at line " .. (current and current.line - 1 or 0) .. " is never closed")
  return blocks
end

local function run(block)
  local env = setmetatable({ print = function() end }, { __index = _G })
  local chunk, err = load(block.code, "=" .. block.file .. ":" .. block.line, "t", env)
  if not chunk then return false, err end
  return pcall(chunk)
end

local function strip_position(msg)
  return (tostring(msg):gsub("^[^\n]-:%d+: ", "", 1))
end

for _, path in ipairs(DOCS) do
  describe("when the ```lua blocks of " .. path .. " run as written", function()
    local text = read(path)

    it("finds the file and at least one block", function()
      assert.is_truthy(text)
      assert.is_true(#lua_blocks(path, text) > 0)
    end)

    for _, b in ipairs(text and lua_blocks(path, text) or {}) do
      it(("runs the block at %s:%d"):format(path, b.line), function()
        local ok, err = run(b)
        if b.fails then
          assert.is_false(ok, ("%s:%d is marked to fail but ran"):format(path, b.line))
          assert.are.equal(b.fails, strip_position(err))
        elseif not ok then
          error(("%s:%d does not run as written: %s (a block must be self-contained; one meant to fail says"
            .. " so with a comment '-- fails with: <message>')"):format(path, b.line, tostring(err)), 0)
        end
      end)
    end
  end)
end

describe("when the block checker reads a document", function()
  it("takes the code between ```lua and ```, with its first line number and fail mark", function()
    local b = lua_blocks("x.md", "text\n```lua\nlocal a = 1\n-- fails with: boom (here)\n```\n```sh\nls\n```\n")
    assert.are.equal(1, #b)
    assert.are.equal(3, b[1].line)
    assert.are.equal("boom (here)", b[1].fails)
    assert.are.equal("local a = 1\n-- fails with: boom (here)", b[1].code)
  end)

  it("fails a block that does not run and one that fails with another message", function()
    local bad = lua_blocks("x.md", "```lua\nlocal t = nil + 1\n```\n```lua\nerror('a')\n-- fails with: b\n```\n")
    local ok1 = run(bad[1])
    local ok2, err2 = run(bad[2])
    assert.is_false(ok1)
    assert.is_false(ok2)
    assert.are_not.equal(bad[2].fails, strip_position(err2))
  end)
end)

-- The functions found at run time (module table, and the methods of every metatable the binding
-- registered under a "soageo." name), as "name" strings.
local function runtime_functions()
  local soageo = require "soageo"
  local names = {}
  for k, v in pairs(soageo) do
    if type(v) == "function" then names[#names + 1] = "soageo." .. k end
  end
  for class, mt in pairs(debug.getregistry()) do
    if type(class) == "string" and class:match("^soageo%.") and type(mt) == "table" and type(rawget(mt, "__index")) == "table" then
      for k, v in pairs(mt.__index) do
        if type(v) == "function" then names[#names + 1] = k end
      end
    end
  end
  table.sort(names)
  return names
end

describe("when doc/manual.md is searched for every function the module exports", function()
  it("names each one in code (`name(` or `:name(` or `.name(`)", function()
    local text = read("doc/manual.md")
    local missing = {}
    for _, name in ipairs(runtime_functions()) do
      local short = name:gsub("^soageo%.", "")
      if not (text:find("[%.:`]" .. short .. "%(") or text:find("`" .. short .. "`", 1, true)) then
        missing[#missing + 1] = name
      end
    end
    assert.are.same({}, missing)
  end)
end)

describe("when README.md's API index is searched for every function the module exports", function()
  it("lists each one (batches through `<shape>_batch`)", function()
    local text = read("README.md") or ""
    local index = text:match("\n## API\n(.-)\n## ") or ""
    local missing = {}
    for _, name in ipairs(runtime_functions()) do
      local short = name:gsub("^soageo%.", "")
      if not short:match("_batch$") and not index:find("[%.:`]" .. short .. "[%(`]") then
        missing[#missing + 1] = name
      end
    end
    assert.is_true(#index > 0, "README.md has no '## API' section")
    assert.are.same({}, missing)
  end)
end)

-- doc/design.md opens with a map of csrc/: every file there named once, with one line each.
-- Each path in the map's section counts (csrc/<dir>/<name>.<ext>); the files are what
-- `ls csrc/*/` lists from the repository root.
local function source_map(text)
  local section = text:match("\n## Source map\n(.-)\n## ")
  if not section then return nil end
  local named = {}
  for path in section:gmatch("csrc/[%w_]+/[%w_]+%.%w+") do named[path] = (named[path] or 0) + 1 end
  return named
end

local function csrc_files()
  local files = {}
  for _, dir in ipairs({ "csrc/core", "csrc/lua" }) do
    local p = assert(io.popen("ls " .. dir))
    for name in p:lines() do files[#files + 1] = dir .. "/" .. name end
    p:close()
  end
  table.sort(files)
  return files
end

describe("when doc/design.md's source map is compared with csrc/", function()
  local text = read("doc/design.md") or ""
  local named = source_map(text) or {}

  it("returns the map as the first section of the design notes", function()
    assert.are.equal("## Source map", text:match("\n(## [^\n]*)"))
    assert.is_true(next(named) ~= nil, "doc/design.md has no '## Source map' section naming csrc files")
  end)

  it("returns every file of csrc/core and csrc/lua named once", function()
    local files = csrc_files()
    assert.is_true(#files > 0)
    local missing, twice = {}, {}
    for _, f in ipairs(files) do
      if not named[f] then missing[#missing + 1] = f elseif named[f] > 1 then twice[#twice + 1] = f end
    end
    assert.are.same({}, missing)
    assert.are.same({}, twice)
  end)

  it("returns no name of a file that does not exist", function()
    local exists, stale = {}, {}
    for _, f in ipairs(csrc_files()) do exists[f] = true end
    for f in pairs(named) do
      if not exists[f] then stale[#stale + 1] = f end
    end
    table.sort(stale)
    assert.are.same({}, stale)
  end)
end)

describe("when the front documents are measured", function()
  local function lines(s)
    return select(2, s:gsub("\n", "\n")) + (s:sub(-1) == "\n" and 0 or 1)
  end

  it("returns at most 150 lines for README.md", function()
    local text = assert(read("README.md"))
    assert.is_true(lines(text) <= 150, ("README.md has %d lines"):format(lines(text)))
  end)

  it("returns at most 60 lines for CHANGELOG.md's 0.2.0 entry", function()
    local text = assert(read("CHANGELOG.md"))
    local entry = text:match("\n(## %[0%.2%.0%].-)\n## ")
    assert.is_truthy(entry, "CHANGELOG.md has no '## [0.2.0]' entry followed by another")
    assert.is_true(lines(entry) <= 60, ("CHANGELOG.md's 0.2.0 entry has %d lines"):format(lines(entry)))
  end)
end)
