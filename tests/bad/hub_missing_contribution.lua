-- expect: hub_missing_contribution allreduce nranks=3 nodes=1: rank 0 channel 0 output chunk 0 lacks the contribution of rank 0 \(holds 2\)
-- args: --ranks 3
-- A switch that sums what ranks 0 and 1 send, then overwrites the sum
-- with rank 2's data instead of adding it.
return {
  name = "hub_missing_contribution",
  collectives = { "allreduce" },
  chunks = 1,
  hubs = 1,
  scratch = 1,
  program = function(ctx)
    local n = ctx.nranks
    if ctx.this_hub then
      ctx:recv(0, SCRATCH, 0)
      ctx:recv_reduce(1, SCRATCH, 0, SCRATCH, 0)
      ctx:recv(2, SCRATCH, 0) -- should be recv_reduce
      for r = 0, n - 1 do ctx:send(r, SCRATCH, 0) end
      return
    end
    ctx:send(ctx:hub(0), IN, 0)
    ctx:recv(ctx:hub(0), OUT, 0)
  end,
}
