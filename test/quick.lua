-- SOAGEO_QUICK=1 (make valgrind) shrinks the big random scenes: memcheck runs ~30x slower.
-- Returns `full` normally and `small` in quick mode.
return function(full, small)
  if os.getenv("SOAGEO_QUICK") then return small end
  return full
end
