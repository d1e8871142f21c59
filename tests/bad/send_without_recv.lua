-- expect: send_without_recv allgather nranks=4 nodes=1: rank 0 channel 0 op 4 \(send_without_recv\.lua:14, recv_copy_send from 3 to 1 out\[1\]\): sends out\[1\] to rank 1, which never receives it
-- args: --ranks 4
-- A ring allgather that forwards the last piece too: its last receive is a
-- recv_copy_send, whose message nobody takes.
return {
  name = "send_without_recv",
  collectives = { "allgather" },
  chunks = 1,
  program = function(ctx)
    local n, p = ctx.nranks, ctx.rank
    local prev, next = (p - 1) % n, (p + 1) % n
    ctx:copy(IN, 0, OUT, p)
    if n > 1 then ctx:send(next, IN, 0) end
    for t = 1, n - 1 do ctx:recv_copy_send(prev, next, OUT, (p - t) % n) end -- should stop at n - 2, then recv
  end,
}
