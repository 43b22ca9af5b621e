local soageo = require "soageo"

-- The interpreter running these specs: the standalone lua keeps its own name at arg's lowest
-- index (busted and test/mini_busted.lua run under it); /proc/self/cmdline where arg lacks it.
-- The child below must be this Lua with this module, never a hard-coded lua5.4.
local function interpreter()
  local i = 0
  while arg and arg[i - 1] do i = i - 1 end
  if i < 0 then return arg[i] end
  local f = assert(io.open("/proc/self/cmdline", "rb"))
  local argv0 = f:read("a"):match("^[^%z]+")
  f:close()
  return argv0
end

local function shell_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- How a child of another machine's interpreter runs here: SOAGEO_SPEC_RUNNER (make test-neon-lua
-- sets "qemu-aarch64 -L ..."), prefixed to its command; empty for this machine's own.
local runner = os.getenv("SOAGEO_SPEC_RUNNER")
runner = runner and runner ~= "" and runner .. " " or ""

-- Runs a Lua chunk in a fresh process of this interpreter, with this process's package.path
-- and package.cpath (so it loads the same soageo) and SOAGEO_ARCH set; returns its output and
-- success.
local function with_env(arch, code)
  local prelude = string.format("package.path = %q; package.cpath = %q; ", package.path, package.cpath)
  local cmd = string.format("SOAGEO_ARCH=%s %s%s -e %s 2>&1", arch, runner, shell_quote(interpreter()),
    shell_quote(prelude .. code))
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  local ok = p:close()
  return out, ok
end

describe("SIMD target selection", function()
  describe("when nothing is forced", function()
    it("returns the scalar reference first and the target in use among the available ones", function()
      local all = soageo.archs()
      assert.are.equal("scalar", all[1])
      local found = false
      for _, a in ipairs(all) do found = found or a == soageo.arch() end
      assert.is_true(found)
      assert.are.equal(all[#all], soageo.arch())  -- the widest one this CPU runs
    end)
  end)

  describe("when use_arch switches this Lua state", function()
    it("returns the previous name and rejects unknown ones", function()
      local before = soageo.arch()
      assert.are.equal(before, soageo.use_arch("scalar"))
      assert.are.equal("scalar", soageo.arch())
      soageo.use_arch(before)
      assert.has_error(function() soageo.use_arch("quantum") end)
    end)
  end)

  describe("when a fresh process of this interpreter loads the module", function()
    it("runs the same Lua version and loads the same module file", function()
      local where = "local n = package.searchpath('soageo.core', package.cpath) "
      local out, ok = with_env(soageo.arch(), where .. "require('soageo') print(_VERSION .. ' ' .. n)")
      assert.is_true(ok)
      assert.are.equal(_VERSION .. " " .. package.searchpath("soageo.core", package.cpath) .. "\n", out)
    end)
  end)

  describe("when SOAGEO_ARCH is set", function()
    it("uses the named target", function()
      local out, ok = with_env("scalar", "print(require('soageo').arch())")
      assert.is_true(ok)
      assert.are.equal("scalar\n", out)
    end)
    it("fails at require with a clear error for a target this CPU cannot run", function()
      local out, ok = with_env("quantum", "require('soageo')")
      assert.is_falsy(ok)
      assert.matches("SOAGEO_ARCH=quantum: not a target this CPU runs", out, 1, true)
    end)
  end)
end)
