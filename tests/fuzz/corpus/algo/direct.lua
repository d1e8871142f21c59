-- direct.lua -- every rank talks to every other rank directly.
--
-- alltoall: rank i's piece j goes to rank j. In step s (s = 1 .. n-1) rank
--   i sends its piece for rank i+s and receives rank (i-s)'s piece for it,
--   so in every step each rank sends to exactly one peer and receives from
--   exactly one: no rank is swamped by all the others at once. Its own
--   piece is a local copy.
-- allgather: the same shifted order, each rank sending its one piece to
--   every other rank: n-1 steps of S/n each, all in parallel, one hop each
--   (the ring needs n-1 hops in sequence).
-- Each connection carries one chunk per loop iteration, so no send ever
-- waits for room, and step s of a rank waits only on step s of its sender.

local programs = {}

function programs.alltoall(ctx)
  local n, i, k = ctx.nranks, ctx.rank, ctx.chunks
  for s = 1, n - 1 do
    local to, from = (i + s) % n, (i - s) % n
    for c = 0, k - 1 do
      ctx:send(to, IN, to * k + c)
      ctx:recv(from, OUT, from * k + c)
    end
  end
  for c = 0, k - 1 do ctx:copy(IN, i * k + c, OUT, i * k + c) end
end

function programs.allgather(ctx)
  local n, i, k = ctx.nranks, ctx.rank, ctx.chunks
  for s = 1, n - 1 do
    local to, from = (i + s) % n, (i - s) % n
    for c = 0, k - 1 do
      ctx:send(to, IN, c)
      ctx:recv(from, OUT, from * k + c)
    end
  end
  for c = 0, k - 1 do ctx:copy(IN, c, OUT, i * k + c) end
end

return {
  name = "direct",
  collectives = { "alltoall", "allgather" },
  chunks = 1,
  program = function(ctx)
    programs[ctx.collective](ctx)
  end,
}
