-- A service of the share case (test/skynet/share_main.lua): publishes a world, or attaches to
-- it and checks its answers against the publisher's. It requires soageo only when asked to
-- (the first attacher must load the module after the publisher's Lua state has closed).
local skynet = require "skynet"

local soageo, world
local views = {}  -- layer and walls views held between calls

local function load()
  soageo = soageo or require "soageo"
  world = world or require "share_world"
end

local function bytes_of(name)
  for _, e in ipairs(soageo.shared()) do
    if e.name == name then return e.bytes, e.version, e.holders end
  end
end

local command = {}

-- Builds the world of `seed`, shares it; returns the versions, the answers and the layer's bytes.
function command.publish(n, w, seed)
  load()
  local layer, walls, side = world.build(n, w, seed)
  local lv = soageo.share(layer, "share.layer")
  local wv = soageo.share(walls, "share.walls")
  return { layer_version = lv, walls_version = wv, answers = world.answers(layer, walls, side), side = side,
           bytes = (bytes_of("share.layer")), walls_bytes = (bytes_of("share.walls")) }
end

-- Attaches both names and checks the answers; keeps the views.
function command.attach(want, side)
  load()
  local t0 = skynet.hpc and skynet.hpc()
  local lv = assert(soageo.attach("share.layer"))
  local wv = assert(soageo.attach("share.walls"))
  local attach_ns = t0 and (skynet.hpc() - t0) / 2
  views = { lv, wv }
  local wrong, first = world.compare(want, world.answers(lv, wv, side))
  return { version = lv:version(), walls_version = wv:version(), wrong = wrong, first = first, attach_ns = attach_ns }
end

-- The held views answer again (after a newer version was published).
function command.recheck(want, side)
  local lv, wv = views[1], views[2]
  local wrong, first = world.compare(want, world.answers(lv, wv, side))
  return { version = lv:version(), newest = soageo.version("share.layer"), wrong = wrong, first = first }
end

function command.close()
  for _, v in ipairs(views) do v:close() end
  views = {}
  return true
end

-- name -> {version, bytes, holders}
function command.shared()
  load()
  local t = {}
  for _, e in ipairs(soageo.shared()) do t[e.name] = { version = e.version, bytes = e.bytes, holders = e.holders } end
  return t
end

function command.exit()
  skynet.exit()
end

skynet.start(function()
  skynet.dispatch("lua", function(_, _, cmd, ...)
    if cmd == "exit" then return command.exit() end
    skynet.ret(skynet.pack(command[cmd](...)))
  end)
end)
