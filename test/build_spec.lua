-- Where `make` puts the module it builds, read from what `make -n -B` would run (nothing is
-- built): the default Lua's in ./soageo/core.so, another Lua's (LUA_INCDIR, e.g. a skynet's)
-- in a directory of its own, so that building for a skynet never overwrites the module the
-- checkout's own Lua loads. The other Luas here are headers written into temporary
-- directories: make reads their release from lua.h.

-- `make` in a clean environment: without LD_PRELOAD (the asan run preloads its runtime into
-- the interpreter; make and the compiler it asks for the release are not built for it), and
-- without what a make running these specs (make test-lua LUA_INCDIR=...) passes down.
local MAKE = "env -u LD_PRELOAD -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u LUA_INCDIR -u LUA_BUILD make --no-print-directory "

-- What `make <args>` would run.
local function make_n(args)
  local p = assert(io.popen(MAKE .. "-n -B " .. args .. " 2>&1"))
  local out = p:read("a")
  p:close()
  return out
end

-- The module each link line writes, in order.
local function linked(out)
  local t = {}
  for path in out:gmatch("%-shared.- %-o (%S+core%.so)") do t[#t + 1] = path end
  return t
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

-- A directory holding a lua.h of release major.minor.release, spelt as Lua 5.5 spells it
-- (numbers) or as 5.4 does (strings).
local function headers(major, minor, release, as_strings)
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p '" .. dir .. "'"))
  if as_strings then
    write(dir .. "/lua.h", ('#define LUA_VERSION_MAJOR "%d"\n#define LUA_VERSION_MINOR "%d"\n'
      .. '#define LUA_VERSION_NUM %d\n#define LUA_VERSION_RELEASE_NUM (LUA_VERSION_NUM * 100 + %d)\n')
      :format(major, minor, major * 100 + minor, release))
  else
    write(dir .. "/lua.h", ('#define LUA_VERSION_MAJOR_N %d\n#define LUA_VERSION_MINOR_N %d\n'
      .. '#define LUA_VERSION_RELEASE_N %d\n#define LUA_VERSION_NUM (LUA_VERSION_MAJOR_N * 100 + LUA_VERSION_MINOR_N)\n'
      .. '#define LUA_VERSION_RELEASE_NUM (LUA_VERSION_NUM * 100 + LUA_VERSION_RELEASE_N)\n')
      :format(major, minor, release))
  end
  return dir
end

describe("when make builds the module", function()
  local h55, h547, other55
  setup(function()
    h55 = headers(5, 5, 0)
    h547 = headers(5, 4, 7, true)
    other55 = headers(5, 5, 0)
  end)
  teardown(function()
    for _, d in ipairs({ h55, h547, other55 }) do os.execute("rm -rf '" .. d .. "'") end
  end)

  it("returns ./soageo/core.so for the default Lua", function()
    assert.are.same({ "soageo/core.so" }, linked(make_n("")))
  end)

  it("returns a directory named after another Lua's release and headers, and leaves ./soageo/core.so alone", function()
    local out = make_n("LUA_INCDIR=" .. h55)
    local got = linked(out)
    assert.are.equal(1, #got, out)
    local dir = got[1]:match("^build/lua5%.5%.0%-(%d+)/soageo/core%.so$")
    assert.is_truthy(dir, got[1])
    -- the binding's objects are there too; the core's (no Lua in them) are the default build's
    assert.matches("%-o build/lua5%.5%.0%-" .. dir .. "/lua/layer%.o", out)
    assert.matches("%-o build/core/store%.o", out)
    -- said when built
    assert.is_truthy(out:find("built for Lua 5.5.0 (" .. h55 .. "): build/lua5.5.0-" .. dir .. "/soageo/core.so", 1, true), out)
    -- other headers of the same release: another directory
    local other = linked(make_n("LUA_INCDIR=" .. other55))[1]
    assert.matches("^build/lua5%.5%.0%-%d+/soageo/core%.so$", other)
    assert.are_not.equal(got[1], other)
    -- a 5.4 release, spelt in strings
    assert.matches("^build/lua5%.4%.7%-%d+/soageo/core%.so$", linked(make_n("LUA_INCDIR=" .. h547))[1])
  end)

  it("returns the module it built from make install", function()
    local out = make_n("install LUA_INCDIR=" .. h55 .. " INST_LIBDIR=/nowhere/lib INST_LUADIR=/nowhere/share")
    local built = linked(out)[1]
    assert.matches("^build/lua5%.5%.0%-%d+/soageo/core%.so$", built)
    assert.is_truthy(out:find("cp " .. built .. " /nowhere/lib/soageo/core.so", 1, true), out)
    assert.is_truthy(out:find("cp soageo/core.so", 1, true) == nil, out)
  end)

  it("returns the directory for SOAGEO from make module-dir", function()
    local p = assert(io.popen(MAKE .. "-s module-dir LUA_INCDIR=" .. h55))
    local dir = p:read("l")
    p:close()
    assert.matches("/build/lua5%.5%.0%-%d+$", dir)
  end)

  it("returns the BUILD and MODULE given on the command line, whatever LUA_INCDIR says", function()
    local out = make_n("BUILD=build-x MODULE=build-x/soageo/core.so LUA_INCDIR=" .. h55 .. " build-x/soageo/core.so")
    assert.are.same({ "build-x/soageo/core.so" }, linked(out))
    assert.matches("%-o build%-x/lua/layer%.o", out)
    assert.is_falsy(out:find("build/lua5.5", 1, true))
  end)

  it("refuses headers without lua.h", function()
    local out = make_n("LUA_INCDIR=/nonexistent/include")
    assert.matches("LUA_INCDIR=/nonexistent/include holds no lua.h", out)
  end)
end)
