-- Requires soageo at start, from the directory given as argument first (test/skynet/version_main.lua).
local skynet = require "skynet"
local dir = ...
if dir then package.cpath = dir .. "/?.so;" .. package.cpath end
local soageo = require "soageo"

skynet.start(function()
  skynet.dispatch("lua", function()
    local l = soageo.layer()
    l:set(1, 0, 0)
    l:set(2, 3, 4)
    l:set(3, 30, 40)
    local _, n = l:in_circle(0, 0, 10)
    skynet.ret(skynet.pack(n, soageo.arch(), package.searchpath("soageo.core", package.cpath)))
  end)
end)
