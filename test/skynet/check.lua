-- What the test services of test/skynet share: checks printed as lines the runner counts
-- ("CHECK ok ..." / "CHECK FAIL ..."), the case's arguments, and the end of a case.
local skynet = require "skynet"
require "skynet.manager"  -- skynet.abort

local check = {}

function check.ok(cond, fmt, ...)
  skynet.error((cond and "CHECK ok " or "CHECK FAIL ") .. string.format(fmt, ...))
  return cond
end

-- SOAGEO_ARGS="key=value key=value" of the runner, as a table of strings.
function check.args()
  local t = {}
  for k, v in (skynet.getenv("case_args") or ""):gmatch("([%w_]+)=(%S+)") do t[k] = v end
  return t
end

-- Runs body (the case), reports an error in it as a failed check, prints "CASE DONE name" and
-- stops the process. abort drops the messages still queued for the logger: give it a moment.
function check.run(name, body)
  local ok, err = xpcall(body, debug.traceback)
  check.ok(ok, "%s ran to its end%s", name, ok and "" or (": " .. tostring(err)))
  skynet.error("CASE DONE " .. name)
  skynet.sleep(20)
  skynet.abort()
end

return check
