-- A script that keeps the context and calls it from a finalizer, which runs
-- when the sandbox closes and no plan exists: crashed the planner (NULL plan).
local saved
local keep = setmetatable({}, { __gc = function() if saved then saved:node_of(0); saved:opt("k", 1) end end })
return {
  name = "gc", collectives = { "allreduce" }, keep = keep,
  chunks = function(ctx) saved = ctx; return 1 end,
  program = function(ctx) end,
}
