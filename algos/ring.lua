-- ring.lua -- the ring algorithms, as NCCL runs them.
--
-- The ranks stand in a ring, node by node (lib/ring.lua), so the ring
-- crosses each node boundary once; with several channels the odd channels
-- run the other way round, so both directions of every link carry data.
--
-- allreduce: the buffer is cut into n chunks. Reduce-scatter first: in step
--   s every rank adds its own copy of one chunk to the partial sum arriving
--   from its predecessor and forwards the result without storing it
--   (recv_reduce_send); after n-1 steps each rank holds one chunk reduced
--   over all ranks, which it writes and forwards at once
--   (recv_reduce_copy_send). Allgather then passes the finished chunks
--   around n-2 more times (recv_copy_send) and a last receive completes
--   the buffer. Every rank sends and receives S/n bytes in each of 2(n-1)
--   steps: 2(n-1)/n * S per link, bandwidth-optimal, latency linear in n.
-- allgather: each rank's piece travels n-1 hops around the ring.
-- reducescatter: piece i starts at the rank after rank i and collects every
--   rank's contribution on its way round to rank i.
-- broadcast: a chain root -> next -> ... -> the root's predecessor, one
--   chunk per loop iteration: the executor pipelines the iterations, so a
--   long chain costs latency once and then runs at link speed.
-- reduce: the chain the other way: it starts after the root, forwards
--   partial sums (ranks other than the root have no output buffer) and ends
--   at the root.
local rings = require "ring"

local programs = {}

function programs.allreduce(ctx, ring)
  local n, p = ring.n, ring:position(ctx.rank)
  local prev, next = ring:prev(ctx.rank), ring:next(ctx.rank)
  if n == 1 then
    ctx:copy(IN, 0, OUT, 0)
    return
  end
  -- Reduce-scatter: chunk p - s arrives in step s; the rank at position p
  -- ends up owning chunk p + 1.
  ctx:send(next, IN, p)
  for s = 1, n - 2 do
    ctx:recv_reduce_send(prev, next, IN, (p - s) % n)
  end
  local own = (p + 1) % n
  ctx:recv_reduce_copy_send(prev, next, IN, own, OUT, own)
  -- Allgather: the finished chunks follow the same way round.
  for t = 1, n - 2 do
    ctx:recv_copy_send(prev, next, OUT, (own - t) % n)
  end
  ctx:recv(prev, OUT, (own + 1) % n)
end

function programs.allgather(ctx, ring)
  local n, p = ring.n, ring:position(ctx.rank)
  local prev, next = ring:prev(ctx.rank), ring:next(ctx.rank)
  -- OUT unit j is rank j's piece; in step t the piece of the rank t places
  -- behind arrives.
  if n > 1 then ctx:send(next, IN, 0) end
  ctx:copy(IN, 0, OUT, ctx.rank)
  for t = 1, n - 2 do
    ctx:recv_copy_send(prev, next, OUT, ring:at(p - t))
  end
  if n > 1 then ctx:recv(prev, OUT, ring:at(p + 1)) end
end

function programs.reducescatter(ctx, ring)
  local n, p = ring.n, ring:position(ctx.rank)
  local prev, next = ring:prev(ctx.rank), ring:next(ctx.rank)
  if n == 1 then
    ctx:copy(IN, 0, OUT, 0)
    return
  end
  -- Step s forwards the unit of the rank s + 1 places behind this one, so
  -- the last partial sum to arrive is this rank's own unit.
  ctx:send(next, IN, ring:at(p - 1))
  for s = 1, n - 2 do
    ctx:recv_reduce_send(prev, next, IN, ring:at(p - 1 - s))
  end
  ctx:recv_reduce(prev, IN, ctx.rank, OUT, 0)
end

function programs.broadcast(ctx, ring)
  local n = ring.n
  local q = (ring:position(ctx.rank) - ring:position(ctx.root)) % n -- hops from the root
  local prev, next = ring:prev(ctx.rank), ring:next(ctx.rank)
  if q == 0 then
    if n > 1 then ctx:send(next, IN, 0) end
    ctx:copy(IN, 0, OUT, 0)
  elseif q < n - 1 then
    ctx:recv_copy_send(prev, next, OUT, 0)
  else
    ctx:recv(prev, OUT, 0)
  end
end

function programs.reduce(ctx, ring)
  local n = ring.n
  local q = (ring:position(ctx.rank) - ring:position(ctx.root)) % n
  local prev, next = ring:prev(ctx.rank), ring:next(ctx.rank)
  if n == 1 then
    ctx:copy(IN, 0, OUT, 0)
  elseif q == 0 then
    ctx:recv_reduce(prev, IN, 0, OUT, 0)
  elseif q == 1 then
    ctx:send(next, IN, 0)
  else
    ctx:recv_reduce_send(prev, next, IN, 0)
  end
end

return {
  name = "ring",
  collectives = { "allreduce", "allgather", "reducescatter", "broadcast", "reduce" },
  chunks = function(ctx) return ctx.collective == "allreduce" and ctx.nranks or 1 end,
  program = function(ctx)
    programs[ctx.collective](ctx, rings.new(ctx))
  end,
}
