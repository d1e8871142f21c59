-- expect: chunk_out_of_range allreduce nranks=4 nodes=1, rank 3 channel 0: .*chunk_out_of_range\.lua:12: send: chunk 4 out of range for in \(4 chunks, counting from 0\)
-- args: --ranks 4
-- Chunk indices count from 0: chunk n of an n-chunk buffer does not exist.
return {
  name = "chunk_out_of_range",
  collectives = { "allreduce" },
  chunks = function(ctx) return ctx.nranks end,
  program = function(ctx)
    local n, r = ctx.nranks, ctx.rank
    local next, prev = (r + 1) % n, (r - 1) % n
    -- This rank's chunk, "counting from 1": wrong for the last rank.
    ctx:send(next, IN, r + 1)
    ctx:recv(prev, OUT, r)
  end,
}
