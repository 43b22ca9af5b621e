-- library/soageo.lua (the LuaLS/EmmyLua definitions shipped with the rock) against the module
-- as it runs: every function exported at run time must be defined there with one line of doc
-- and a ---@param per parameter, and every function defined there must exist.
-- The run-time side is found by introspection, not by a list: the functions of the module
-- table, and the methods (the __index table) of every metatable the binding registered under
-- a "soageo." name (luaL_newmetatable keeps them in the registry), so a new class or method
-- is checked the day it is added.
local soageo = require "soageo"
local read = require("spec_util").read

local PATH = "library/soageo.lua"

-- { classes = {name = true}, functions = {["class" .. sep .. "name"] = def}, bad = {...} }
local function parse(text)
  local classes, functions, problems = {}, {}, {}
  local local_class = {}   -- local variable name -> class name
  local pending_class
  local doc = {}           -- the ---comment lines just above the current line
  local lineno = 0
  for line in (text .. "\n"):gmatch("(.-)\n") do
    lineno = lineno + 1
    local class, parent = line:match("^%-%-%-@class%s+([%w_.]+)%s*:?%s*([%w_.]*)")
    if class then classes[class] = parent ~= "" and parent or true; pending_class = class end
    local var = line:match("^local%s+([%w_]+)%s*=%s*{%s*}")
    if var and pending_class then local_class[var] = pending_class; pending_class = nil end
    local owner, sep, name, params = line:match("^function%s+([%w_]+)([.:])([%w_]+)%s*%((.-)%)")
    if owner then
      local cls = local_class[owner]
      if not cls then
        problems[#problems + 1] = ("%s:%d: function %s%s%s on a table that is no ---@class"):format(PATH, lineno, owner, sep, name)
      else
        local described, documented = false, {}
        for _, d in ipairs(doc) do
          local p = d:match("^%-%-%-@param%s+([%w_]+)")
          if p then documented[p] = true end
          if not d:match("^%-%-%-@") and d:match("^%-%-%-%s*%S") then described = true end
        end
        local def = { class = cls, sep = sep, name = name, line = lineno, described = described, missing = {} }
        for p in params:gmatch("[%w_]+") do
          if not documented[p] then def.missing[#def.missing + 1] = p end
        end
        functions[cls .. "." .. name] = def
      end
    end
    if line:match("^%-%-%-") then doc[#doc + 1] = line elseif not line:match("^%s*$") or #doc > 0 then doc = {} end
  end
  return { classes = classes, functions = functions, problems = problems }
end

-- { ["soageo.layer.set"] = true, ... } plus the list of run-time classes.
local function runtime()
  local fns, classes = {}, { soageo = "module" }
  for k, v in pairs(soageo) do
    if type(v) == "function" then fns["soageo." .. k] = "." end
  end
  for name, mt in pairs(debug.getregistry()) do
    if type(name) == "string" and name:match("^soageo%.") and type(mt) == "table" and mt.__name == name then
      classes[name] = "class"
      local index = rawget(mt, "__index")
      assert(type(index) == "table", name .. "'s __index is not a table: extend test/types_spec.lua")
      for k, v in pairs(index) do
        if type(v) == "function" then fns[name .. "." .. k] = ":" end
      end
    end
  end
  return fns, classes
end

describe("when library/soageo.lua is read against the running module", function()
  local defs = parse(read(PATH))
  local fns, classes = runtime()

  it("parses without stray definitions", function()
    assert.are.same({}, defs.problems)
  end)

  it("finds the classes and methods it expects at run time (so the introspection works)", function()
    assert.are.equal("class", classes["soageo.layer"])
    assert.are.equal("class", classes["soageo.aoi"])
    assert.are.equal(":", fns["soageo.layer.in_sector"])
    assert.are.equal(".", fns["soageo.load"])
  end)

  it("is fed by a facade that exports every function of soageo.core", function()
    local missing = {}
    for k, v in pairs(require "soageo.core") do
      if type(v) == "function" and soageo[k] ~= v then missing[#missing + 1] = k end
    end
    table.sort(missing)
    assert.are.same({}, missing)
  end)

  it("declares every run-time class", function()
    local missing = {}
    for name in pairs(classes) do
      if not defs.classes[name] then missing[#missing + 1] = name end
    end
    table.sort(missing)
    assert.are.same({}, missing)
  end)

  it("defines every function exported at run time, with the right call style", function()
    local missing, style = {}, {}
    for name, sep in pairs(fns) do
      local d = defs.functions[name]
      -- A class declared `---@class child : parent` inherits the parent's definitions.
      local class, fn = name:match("^(.*)%.([%w_]+)$")
      if not d and type(defs.classes[class]) == "string" then d = defs.functions[defs.classes[class] .. "." .. fn] end
      if not d then missing[#missing + 1] = name
      elseif d.sep ~= sep then style[#style + 1] = ("%s: defined with '%s', called with '%s'"):format(name, d.sep, sep) end
    end
    table.sort(missing)
    table.sort(style)
    if #missing > 0 then
      error("exported at run time but not defined in " .. PATH .. " (add each, with a line of doc and its"
        .. " ---@param/---@return, in its class): " .. table.concat(missing, ", "), 0)
    end
    assert.are.same({}, style)
  end)

  it("defines no function that does not exist", function()
    local extra = {}
    for name, d in pairs(defs.functions) do
      if not fns[name] then extra[#extra + 1] = ("%s (line %d)"):format(name, d.line) end
    end
    table.sort(extra)
    if #extra > 0 then
      error("defined in " .. PATH .. " but not exported at run time: " .. table.concat(extra, ", "), 0)
    end
  end)

  it("gives every function a line of doc and a ---@param for each parameter", function()
    local bad = {}
    for name, d in pairs(defs.functions) do
      if not d.described then bad[#bad + 1] = name .. ": no description line" end
      for _, p in ipairs(d.missing) do bad[#bad + 1] = name .. ": no ---@param " .. p end
    end
    table.sort(bad)
    assert.are.same({}, bad)
  end)

  it("documents _VERSION", function()
    assert.is_truthy(read(PATH):match("%-%-%-@field%s+_VERSION%s"))
  end)
end)

describe("when the checker meets a broken definition file", function()
  it("reports a function on an undeclared table and a missing ---@param", function()
    local d = parse([[
---@class soageo.thing
local thing = {}
---Does it.
---@param a integer
function thing:go(a, b) end
function other.f() end
]])
    assert.are.equal(1, #d.problems)
    assert.are.same({ "b" }, d.functions["soageo.thing.go"].missing)
    assert.is_true(d.functions["soageo.thing.go"].described)
  end)
end)
