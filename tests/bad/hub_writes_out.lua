-- expect: hub_writes_out allreduce nranks=2 nodes=1, hub 0 channel 0: .*hub_writes_out\.lua:14: recv_reduce: a hub holds no out buffer, only SCRATCH
-- args: --ranks 2
-- A switch that reduces (a hub) and writes the sum into an OUT it does
-- not have: a hub holds only SCRATCH.
return {
  name = "hub_writes_out",
  collectives = { "allreduce" },
  chunks = 1,
  hubs = 1,
  scratch = 1,
  program = function(ctx)
    if ctx.this_hub then
      ctx:recv(0, SCRATCH, 0)
      ctx:recv_reduce(1, SCRATCH, 0, OUT, 0)
      return
    end
    ctx:send(ctx:hub(0), IN, 0)
  end,
}
