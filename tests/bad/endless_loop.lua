-- expect: endless_loop allreduce nranks=2 nodes=1, rank 0 channel 0: .*endless_loop\.lua:1[0-2]: script ran too long: more than [0-9]+ instructions in one call
-- args: --ranks 2
-- A search for a peer that never ends: the instruction cap stops it.
return {
  name = "endless_loop",
  collectives = { "allreduce" },
  chunks = 1,
  program = function(ctx)
    local peer = ctx.rank
    while peer == ctx.rank do
      peer = (peer + ctx.nranks) % ctx.nranks
    end
    ctx:send(peer, IN, 0)
  end,
}
