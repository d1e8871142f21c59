-- expect: wrong_slot reducescatter nranks=4 nodes=1: rank 0 channel 0 output chunk 0 holds the data of position in\[1\], expected in\[0\]; written last by op 3 \(wrong_slot\.lua:15, recv_reduce from 3 in\[1\] -> out\[0\]\)
-- args: --ranks 4
-- A ring reducescatter that starts each piece one place too late round the
-- ring, so rank i ends with the sum of piece i+1 instead of piece i.
return {
  name = "wrong_slot",
  collectives = { "reducescatter" },
  chunks = 1,
  supports = function(ctx) return ctx.nranks > 1, "needs two ranks" end,
  program = function(ctx)
    local n, p = ctx.nranks, ctx.rank
    local prev, next = (p - 1) % n, (p + 1) % n
    ctx:send(next, IN, p) -- should be the piece of rank p - 1
    for s = 1, n - 2 do ctx:recv_reduce_send(prev, next, IN, (p - s) % n) end
    ctx:recv_reduce(prev, IN, (p + 1) % n, OUT, 0)
  end,
}
