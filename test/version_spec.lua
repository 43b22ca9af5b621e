-- soageo._VERSION against the versioned rockspec, and the scm rockspec kept in step with it.
local soageo = require "soageo"

-- A rockspec is Lua assigning globals: run it in an empty environment.
local function rockspec(path)
  local env = {}
  assert(loadfile(path, "t", env))()
  return env
end

local function versioned()
  local found = {}
  local p = io.popen("ls soageo-*-*.rockspec")
  for name in p:lines() do
    if not name:match("^soageo%-scm%-") then found[#found + 1] = name end
  end
  p:close()
  return found
end

describe("when the module is compared with its rockspecs", function()
  local files = versioned()

  it("finds exactly one versioned rockspec", function()
    assert.are.equal(1, #files)
  end)

  it("reports the rockspec's version (without the rockspec revision) as _VERSION", function()
    local spec = rockspec(files[1])
    local version = spec.version:match("^(.-)%-%d+$")
    assert.are.equal("soageo-" .. spec.version .. ".rockspec", files[1])
    assert.are.equal(version, soageo._VERSION)
    assert.are.equal("v" .. version, spec.source.tag)
  end)

  it("builds, describes and tests the scm rock exactly like the versioned one", function()
    local v, scm = rockspec(files[1]), rockspec("soageo-scm-1.rockspec")
    assert.are.equal("scm-1", scm.version)
    assert.is_nil(scm.source.tag)
    for _, field in ipairs({ "package", "rockspec_format", "description", "dependencies", "build", "test" }) do
      assert.are.same(v[field], scm[field])
    end
    assert.are.same({ "lua >= 5.4, < 5.6" }, v.dependencies)
  end)
end)
