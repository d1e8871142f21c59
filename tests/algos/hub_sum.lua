-- hub_sum.lua -- the smallest allreduce through a switch that reduces:
-- every rank sends its data to the hub, which sums the n copies in turn
-- and sends the sum to every rank. For the simulator's closed-form test
-- (tests/topo/hub_star.lua).
return {
  name = "hub_sum",
  collectives = { "allreduce" },
  chunks = 1,
  scratch = 1,
  hubs = 1,
  program = function(ctx)
    local n = ctx.nranks
    if ctx.this_hub then
      ctx:recv(0, SCRATCH, 0)
      for r = 1, n - 1 do ctx:recv_reduce(r, SCRATCH, 0, SCRATCH, 0) end
      for r = 0, n - 1 do ctx:send(r, SCRATCH, 0) end
      return
    end
    ctx:send(ctx:hub(0), IN, 0)
    ctx:recv(ctx:hub(0), OUT, 0)
  end,
}
