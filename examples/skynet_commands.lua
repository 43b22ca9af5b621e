-- How the example services answer calls (lualib style: require it from a service). A "lua"
-- message names a function of the service's `command` table, called with the message's
-- values; its results are the reply. skynet's own examples write this dispatch in every
-- service; here it is written once.
--   local commands = require "skynet_commands"
--   commands.start(command)         -- in place of skynet.start(...)
local skynet = require "skynet"

local commands = {}

-- Starts the service, answering with `command`.
function commands.start(command)
  skynet.start(function()
    skynet.dispatch("lua", function(_, _, cmd, ...)
      local f = assert(command[cmd], cmd)
      skynet.ret(skynet.pack(f(...)))
    end)
  end)
end

return commands
