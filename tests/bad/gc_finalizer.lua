-- expect: gc_finalizer\.lua:8: setmetatable: __gc finalizers are not available in Chorus scripts
-- args: --ranks 1
-- A finalizer that never returns. Lua runs __gc with its debug hooks off,
-- so the instruction limit cannot stop it: it would hang the planner at
-- the next garbage collection or when the sandbox closes. setmetatable
-- refuses a metatable with __gc.
local forever = { __gc = function() while true do end end }
setmetatable({}, forever)
return {
  name = "gc_finalizer",
  collectives = { "allreduce" },
  chunks = 1,
  program = function(ctx) ctx:copy(IN, 0, OUT, 0) end,
}
