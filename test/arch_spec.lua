local soageo = require "soageo"

-- Runs a Lua chunk in a fresh lua5.4 with SOAGEO_ARCH set; returns its output and success.
local function with_env(arch, code)
  local cmd = string.format("SOAGEO_ARCH=%s lua5.4 -e %q 2>&1",
    arch, "package.path='lualib/?.lua;'..package.path package.cpath='./?.so;'..package.cpath " .. code)
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
