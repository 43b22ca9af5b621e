-- A soageo/core.so built for another Lua version (args.other) must refuse to load with
-- luaL_checkversion's clear error, in this service and in one whose start requires it, while
-- the process goes on and the module built for this skynet loads in another service.
local skynet = require "skynet"
local check = require "check"

skynet.start(function()
  check.run("version", function()
    local args = check.args()
    local want = ("version mismatch: app. needs %s, Lua core provides %s"):format(args.want, args.have)
    local saved = package.cpath
    package.cpath = args.other .. "/?.so;" .. saved
    local ok, err = pcall(require, "soageo")
    package.cpath = saved
    check.ok(not ok and tostring(err):find(want, 1, true) ~= nil,
      "require of a module built for Lua %s in Lua %s raises %q (got: %s)", args.want, args.have, want,
      ok and "no error" or tostring(err):match("[^\n]*"))
    local launched = pcall(skynet.newservice, "version_user", args.other)
    check.ok(not launched, "a service whose start requires that module fails to start, and the process goes on")
    local good = skynet.newservice("version_user")
    local n, arch, file = skynet.call(good, "lua", "query")
    check.ok(n == 2, "the module built for this skynet then loads in another service and answers (%s on %s)", file, arch)
  end)
end)
