-- A minimal stand-in for busted, for interpreters busted cannot run on (busted's C helpers are
-- built for the packaged Lua 5.4; Lua 5.5 is not packaged). Supports what our specs use:
-- describe/it/setup/teardown/before_each/after_each and the assert forms below. Usage, from the repository root:
--   LUA=/path/to/lua5.5 make test-lua LUA_INCDIR=/path/to/its/headers
-- or directly: lua test/mini_busted.lua test/layer_spec.lua test/sector_spec.lua ...
package.path = "lualib/?.lua;test/?.lua;bench/?.lua;" .. package.path
package.cpath = (os.getenv("SOAGEO_CPATH") or "./?.so;") .. package.cpath

local passed, failed = 0, 0
local stack = {}

local function same(a, b)
  if type(a) ~= "table" or type(b) ~= "table" then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

local function check(ok, msg) if not ok then error(msg or "assertion failed", 3) end end

local assert_ = {
  is_true = function(v) check(v == true, "expected true") end,
  is_false = function(v) check(v == false, "expected false") end,
  is_nil = function(v) check(v == nil, "expected nil") end,
  is_falsy = function(v) check(not v, "expected a false value") end,
  is_truthy = function(v) check(v, "expected a true value") end,
  matches = function(pat, s, init, plain)
    check(type(s) == "string" and s:find(pat, init, plain) ~= nil, ("%q does not match %q"):format(tostring(s), pat))
  end,
  has_error = function(f, msg)
    local ok, err = pcall(f)
    check(not ok, "expected an error")
    if msg then
      err = tostring(err):gsub("^.-:%d+: ", "", 1)
      check(err == msg, ("error %q, expected %q"):format(err, msg))
    end
  end,
  are = {
    equal = function(a, b) check(a == b, ("expected %s, got %s"):format(tostring(a), tostring(b))) end,
    same = function(a, b) check(same(a, b), "tables differ") end,
  },
}
assert_.are_not = {
  equal = function(a, b) check(a ~= b, ("expected a value other than %s"):format(tostring(a))) end,
  same = function(a, b) check(not same(a, b), "tables are the same") end,
}
assert_.has_errors = assert_.has_error
assert_.truthy, assert_.falsy = assert_.is_truthy, assert_.is_falsy
setmetatable(assert_, { __call = function(_, v, m) if not v then error(m or "assertion failed", 2) end return v end })

local function run_block(name, body)
  local block = { name = name, setups = {}, teardowns = {}, tests = {}, before_each = {}, after_each = {} }
  stack[#stack + 1] = block
  body()
  stack[#stack] = nil
  return block
end

-- befores/afters: the before_each and after_each functions of the enclosing blocks, outer first
-- (after_each inner first), run around every test of this block and of the blocks inside it.
local function execute(block, prefix, befores, afters)
  local title = prefix .. block.name .. " "
  local b, a = {}, {}
  for _, f in ipairs(befores or {}) do b[#b + 1] = f end
  for _, f in ipairs(block.before_each) do b[#b + 1] = f end
  for _, f in ipairs(block.after_each) do a[#a + 1] = f end
  for _, f in ipairs(afters or {}) do a[#a + 1] = f end
  for _, f in ipairs(block.setups) do f() end
  for _, t in ipairs(block.tests) do
    if t.block then
      execute(t.block, title, b, a)
    else
      local ok, err = pcall(function()
        for _, f in ipairs(b) do f() end
        t.fn()
      end)
      for _, f in ipairs(a) do
        local fine, why = pcall(f)
        if ok and not fine then ok, err = false, why end
      end
      if ok then passed = passed + 1 else
        failed = failed + 1
        print("FAIL " .. title .. t.name .. "\n  " .. tostring(err))
      end
    end
  end
  for _, f in ipairs(block.teardowns) do f() end
end

_G.describe = function(name, body)
  local b = run_block(name, body)
  local parent = stack[#stack]
  if parent then parent.tests[#parent.tests + 1] = { block = b } else execute(b, "") end
end
_G.it = function(name, fn) local b = stack[#stack]; b.tests[#b.tests + 1] = { name = name, fn = fn } end
_G.setup = function(fn) local b = stack[#stack]; b.setups[#b.setups + 1] = fn end
_G.teardown = function(fn) local b = stack[#stack]; b.teardowns[#b.teardowns + 1] = fn end
_G.before_each = function(fn) local b = stack[#stack]; b.before_each[#b.before_each + 1] = fn end
_G.after_each = function(fn) local b = stack[#stack]; b.after_each[#b.after_each + 1] = fn end
_G.assert = assert_

for _, file in ipairs(arg) do dofile(file) end
print(("%s: %d passed, %d failed"):format(_VERSION, passed, failed))
os.exit(failed == 0 and 0 or 1)
