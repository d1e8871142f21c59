-- expect: runtime_error allreduce nranks=1 nodes=1, rank 0 channel 0: .*runtime_error\.lua:10: attempt to call a nil value \(method 'cpy'\)
-- args: --ranks 1
-- A misspelt method: calling a nil value.
return {
  name = "runtime_error",
  collectives = { "allreduce" },
  chunks = 1,
  program = function(ctx)
    local n = ctx.nranks
    ctx:cpy(IN, 0, OUT, 0)
  end,
}
