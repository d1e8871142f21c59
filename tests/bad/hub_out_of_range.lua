-- expect: hub_out_of_range allreduce nranks=3 nodes=1, rank 0 channel 0: .*hub_out_of_range\.lua:13: hub: hub 1 out of range \(the script declares 1 hubs; they count from 0\)
-- args: --ranks 3
-- Ranks that send to a second hub the script never declared.
return {
  name = "hub_out_of_range",
  collectives = { "allreduce" },
  chunks = 1,
  hubs = 1,
  scratch = 1,
  program = function(ctx)
    if ctx.this_hub then return end
    ctx:send(ctx:hub(0), IN, 0)
    ctx:send(ctx:hub(1), IN, 0)
  end,
}
