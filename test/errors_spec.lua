-- Every error documented in doc/manual.md is the module's real one, word for word. The manual's
-- "## Errors" section holds a table | rejects | call | error |: the spec runs each call (a Lua
-- chunk, in a fresh set of fixtures) and compares what it raises, without the "chunk:line:"
-- position Lua puts first, with the documented text.
local soageo = require "soageo"
local read = require("spec_util").read

local MANUAL = "doc/manual.md"

-- The rows of the first table after the "## Errors" heading: { line, call, error }.
local function error_rows(text)
  local rows, in_section, n = {}, false, 0
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do
    n = n + 1
    if line:match("^## ") then in_section = line:match("^## Errors%s*$") ~= nil
    elseif in_section and line:match("^|") then
      local cells = {}
      -- Cells are split on " | " so that a `|` inside code would have to be escaped; none is.
      for cell in line:gsub("^|%s*", ""):gsub("%s*|%s*$", ""):gmatch("([^|]+)") do
        cells[#cells + 1] = cell:match("^%s*(.-)%s*$")
      end
      local call, err = cells[2] and cells[2]:match("^`(.*)`$"), cells[3] and cells[3]:match("^`(.*)`$")
      if call and err then rows[#rows + 1] = { line = n, call = call, error = err } end
    end
  end
  return rows
end

-- What each documented call sees: a layer with three entities, an aoi watching one of them,
-- and closed objects, rebuilt for every row so that no call depends on another.
local function fixtures()
  local layer = soageo.layer()
  layer:set(1, 0, 0, 1)
  layer:set(2, 5, 0, 1)
  layer:set(3, 0, 5, 1)
  local aoi = soageo.aoi(layer)
  aoi:watch(1, 10)
  local closed_layer = soageo.layer()
  closed_layer:close()
  local closed_aoi = soageo.aoi(soageo.layer())
  closed_aoi:close()
  return setmetatable({ soageo = soageo, layer = layer, aoi = aoi, closed_layer = closed_layer,
    closed_aoi = closed_aoi, from_finalizer = require("spec_util").from_finalizer }, { __index = _G })
end

local function raised(call)
  local chunk = assert(load(call, "=call", "t", fixtures()))
  local ok, err = pcall(chunk)
  if ok then return nil end
  return (tostring(err):gsub("^[^\n]-:%d+: ", "", 1))
end

describe("when the errors documented in doc/manual.md are raised", function()
  local rows = error_rows(read(MANUAL))

  it("finds the error table", function()
    assert.is_true(#rows >= 30)
  end)

  for _, r in ipairs(rows) do
    it(("%s:%d: %s"):format(MANUAL, r.line, r.call), function()
      local got = raised(r.call)
      assert.is_truthy(got, "the call raised no error")
      assert.are.equal(r.error, got)
    end)
  end

  it("documents each call once", function()
    local seen, twice = {}, {}
    for _, r in ipairs(rows) do
      if seen[r.call] then twice[#twice + 1] = r.call end
      seen[r.call] = true
    end
    assert.are.same({}, twice)
  end)
end)

describe("when the error table reader meets a table", function()
  it("reads the call and error columns of rows under ## Errors only", function()
    local rows = error_rows(table.concat({
      "## Other", "| a | `x()` | `y` |",
      "## Errors", "| rejects | call | error |", "|---|---|---|",
      "| ids | `layer:get(1.5)` | `bad argument #1 to 'get' (id must be an integer)` |",
      "## Next",
    }, "\n"))
    assert.are.equal(1, #rows)
    assert.are.equal("layer:get(1.5)", rows[1].call)
    assert.are.equal("bad argument #1 to 'get' (id must be an integer)", rows[1].error)
    assert.are.equal("bad argument #1 to 'get' (id must be an integer)", raised(rows[1].call))
  end)
end)
