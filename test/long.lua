-- SOAGEO_LONG=1 (make test-long) runs the soaks at their long sizes; make test at the default.
-- Returns `default` normally and `long` in long mode.
return function(default, long)
  if os.getenv("SOAGEO_LONG") then return long end
  return default
end
