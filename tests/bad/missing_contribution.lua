-- expect: missing_contribution allreduce nranks=4 nodes=1: rank 0 channel 0 output chunk 0 lacks the contribution of rank 3 \(holds 0-2\); written last by op 2 \(missing_contribution\.lua:13, recv_reduce_copy_send from 2 to 1 out\[0\] -> out\[0\]\)
-- args: --ranks 4
-- Reduce to rank 0, then broadcast; the gather loop stops one rank short,
-- so rank 3's data is never added (and rank 3 never sends it).
return {
  name = "missing_contribution",
  collectives = { "allreduce" },
  chunks = 1,
  program = function(ctx)
    local n = ctx.nranks
    if ctx.rank == 0 then
      ctx:copy(IN, 0, OUT, 0)
      for peer = 1, n - 2 do ctx:recv_reduce(peer, OUT, 0, OUT, 0) end
      for peer = 1, n - 1 do ctx:send(peer, OUT, 0) end
    else
      if ctx.rank <= n - 2 then ctx:send(0, IN, 0) end
      ctx:recv(0, OUT, 0)
    end
  end,
}
