-- `make install INST_LIBDIR=<tree>/luaclib INST_LUADIR=<tree>/lualib` puts the files where
-- skynet's own patterns (root .. "luaclib/?.so", root .. "lualib/?.lua") find them: here the
-- runner's cpath and path hold those patterns for the install tree args.inst.
local skynet = require "skynet"
local check = require "check"

skynet.start(function()
  check.run("install", function()
    local inst = check.args().inst
    local lib = package.searchpath("soageo.core", package.cpath)
    local lua = package.searchpath("soageo", package.path)
    check.ok(lib == inst .. "/luaclib/soageo/core.so", "soageo.core is found as luaclib/soageo/core.so (%s)", lib)
    check.ok(lua == inst .. "/lualib/soageo.lua", "soageo is found as lualib/soageo.lua (%s)", lua)
    local soageo = require "soageo"
    local l = soageo.layer()
    l:set(7, 1, 2)
    local _, n = l:in_box(0, 0, 5, 5)
    check.ok(n == 1, "the installed module answers a query")
  end)
end)
