-- expect: peer_out_of_range allreduce nranks=4 nodes=1, rank 3 channel 0: .*peer_out_of_range\.lua:13: send: peer 4 out of range \(nranks 4, ranks count from 0\)
-- args: --ranks 4
-- A ring whose successor forgets to wrap round: the last rank sends to
-- rank n, which does not exist.
return {
  name = "peer_out_of_range",
  collectives = { "allreduce" },
  chunks = 1,
  program = function(ctx)
    local n, r = ctx.nranks, ctx.rank
    local next, prev = r + 1, (r - 1) % n -- should be (r + 1) % n
    ctx:copy(IN, 0, OUT, 0)
    ctx:send(next, IN, 0)
    ctx:recv_reduce(prev, OUT, 0, OUT, 0)
  end,
}
