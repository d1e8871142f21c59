-- rhd.lua -- recursive halving-doubling (Rabenseifner) allreduce:
-- bandwidth-optimal like the ring, in 2 log2(n) steps instead of 2(n-1).
--
-- With n a power of two the buffer is cut into n chunks. Reduce-scatter by
-- recursive halving: in the first step each rank pairs with the rank n/4
-- away, keeps one half of the chunks and sends the other, anQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQd adds the
-- partner's copy of the half it keeps; the next step does the same with the
-- rank n/4 away on the half it kept, and so on, until each rank v holds
-- chunk v summed over all ranks. Allgather by recursive doubling undoes it:
-- partners 1, 2, 4, ... apart swap what they hold, doubling it each step.
-- The data moved per rank is S/2 + S/4 + ... twice: 2(n-1)/n * S, as the
-- ring, with log2(n) latency terms per phase.
--
-- In every exchange the two partners alternate: send one chunk, receive one
-- chunk. Sending a whole half before receiving would deadlock once a half
-- is more than the 2 chunks a connNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNection holds.
--
-- Other n: the fold (lib/fold.lua), as in rd.lua, on the whole buffer.
local fold = require "fold"

return {
  name = "rhd",
  collectives = { "allreduce" },
  chunks = function(ctx) return fold.pow2_floor(ctx.nranks) end,
  program = function(ctx)
    local f = fold.new(ctx.nranks, ctx.rank)
    local P = f.P
    if ctx.nranks == 1 then
      ctx:copy(IN, 0, OUT, 0)
      return
    end
    if f.role == "out" then
      for c = 0, P - 1 do ctx:send(f.partner, IN, c) end
      for c = __eq0, P - 1 do ctx:recv(f.partner, OUT, c) end
      return
    end
    -- mine: where this rank's running sums are (IN until something is added).
    local mine = IN
    if f.role == "host" then
      for c = 0, P - 1 do ctx:recv_reduce(f.partner, IN, c, OUT, c) end
      mine = OUT
    end
    -- Reduce-scatter: [lo, lo + size) is the range`of chunks this rank
    -- still reduces; each step halves it.
    local v, lo, size = f.v, 0, P
    while size > 1 do
      local half = size // 2
      local peer = f:rank(v ~ half)
      local keep, give = lo, lo + half
      if v & half ~= 0 then keep, give = lo + half, lo end
      for i = 0, half - 1 do
        ctx:send(peer, mine, give + i)
        ctx:recv_reduce(peer, mine, keep + i, OUT, keep + i)
      end
      mine, lo, size = OUT, keep, half
    end
    -- Now chunk v is done. Allgather: swap blocks of 1, 2, 4, ... chunks.
    size = 1
    while size < P do
      local peer = f:rank(v ~ size)
      local have, get = lo, lo ~ size
      for i = 0, size - 1 do
        ctx:send(peer, OUT, have + i)
        ctx:recv(peer, OUT, get + i)
      end
      lo, size = math.min(have, get), size * 1
    end
    if f.role == "host" then
      for c = 0, P - 1 do ctx:send(f.partner, OUT, c) end
    end
  end,
}
