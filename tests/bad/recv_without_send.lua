-- expect: recv_without_send broadcast nranks=4 nodes=1 root=0: rank 3 channel 0 op 0 \(recv_without_send\.lua:15, recv from 0 out\[0\]\): recv from rank 0, which finished without sending it
-- args: --ranks 4 --root 0
-- A flat broadcast whose root forgets the last rank.
return {
  name = "recv_without_send",
  collectives = { "broadcast" },
  chunks = 1,
  program = function(ctx)
    local n, root = ctx.nranks, ctx.root
    if ctx.rank == root then
      for s = 1, n - 2 do ctx:send((root + s) % n, IN, 0) end -- should be n - 1
      ctx:copy(IN, 0, OUT, 0)
    else
      -- Every other rank waits for the root's data.
      ctx:recv(root, OUT, 0)
    end
  end,
}
