-- expect: write_in allreduce nranks=2 nodes=1, rank 0 channel 0: .*write_in\.lua:12: recv_reduce: IN is read-only; write OUT or SCRATCH
-- args: --ranks 2
-- A pairwise exchange that adds the peer's data into IN in place.
return {
  name = "write_in",
  collectives = { "allreduce" },
  chunks = 1,
  supports = function(ctx) return ctx.nranks == 2, "two ranks only" end,
  program = function(ctx)
    local peer = 1 - ctx.rank
    ctx:send(peer, IN, 0)
    ctx:recv_reduce(peer, IN, 0, IN, 0)
    ctx:copy(IN, 0, OUT, 0)
  end,
}
