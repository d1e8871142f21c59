-- expect: deadlock allreduce nranks=2 nodes=1: deadlock: rank 0 ch 0 op 2 \(deadlock\.lua:13, send to 1 in\[2\]\) waits for rank 1 ch 0 op 2 \(deadlock\.lua:13, send to 0 in\[2\]\) waits for rank 0 \(a send waits while its connection holds 2 chunks
-- args: --ranks 2
-- A pairwise exchange in which both ranks send all three chunks before
-- receiving any: the third send of each waits for room the other never makes.
return {
  name = "deadlock",
  collectives = { "allreduce" },
  chunks = 3,
  supports = function(ctx) return ctx.nranks == 2, "two ranks only" end,
  program = function(ctx)
    local peer = 1 - ctx.rank
    for c = 0, 2 do
      ctx:send(peer, IN, c)
    end
    for c = 0, 2 do
      ctx:recv_reduce(peer, IN, c, OUT, c)
    end
  end,
}
