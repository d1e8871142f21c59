-- expect: double_count allreduce nranks=4 nodes=1: rank 0 channel 0 op 4 \(double_count\.lua:18, recv_reduce_copy_send from 3 to 1 in\[0\] -> out\[0\]\): double-counts the contribution of rank 0
-- args: --ranks 4
-- A ring allreduce whose reduce-scatter runs one step too long: the partial
-- sum comes back to the rank it started from, which adds its data again.
return {
  name = "double_count",
  collectives = { "allreduce" },
  chunks = function(ctx) return ctx.nranks end,
  supports = function(ctx) return ctx.nranks > 1, "needs two ranks" end,
  program = function(ctx)
    local n, p = ctx.nranks, ctx.rank
    local prev, next = (p - 1) % n, (p + 1) % n
    ctx:send(next, IN, p)
    for s = 1, n - 1 do -- should be n - 2
      ctx:recv_reduce_send(prev, next, IN, (p - s) % n)
    end
    local own = p
    ctx:recv_reduce_copy_send(prev, next, IN, own, OUT, own)
    for t = 1, n - 2 do ctx:recv_copy_send(prev, next, OUT, (own - t) % n) end
    ctx:recv(prev, OUT, (own + 1) % n)
  end,
}
