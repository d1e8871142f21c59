-- rd.lua -- recursive doubling allreduce: fewest steps, for tiny messages.
--
-- With n a power of two, in step j (j = 0 .. log2(n)-1) every rank swaps its
-- whole running sum with the rank whose number differs in bit j, and adds
-- what it gets: after step j each rank holds the sum over a group of 2^(j+1)
-- ranks, after log2(n) steps the sum over all. Each step moves the whole
-- buffer S, so it costs log2(n) * (alpha + S beta): the least latency of any
-- algorithm here, but log2(n) times the ring's bandwidth term for large S.
--
-- Other n: the fold (lib/fold.lua). With P the largest power of two <= n,
-- the first 2(n - P) ranks pair up; each even one sends its buffer to the
-- odd one after it and waits, the P ranks left run the doubling, and each
-- odd partner finally sends the result back: two more steps.
local fold = require "fold"

return {
  name = "rd",
  collectives = { "allreduce" },
  chunks = 1,
  program = function(ctx)
    local f = fold.new(ctx.nranks, ctx.rank)
    if ctx.nranks == 1 then
      ctx:copy(IN, 0, OUT, 0)
      return
    end
    if f.role == "out" then
      ctx:send(f.partner, IN, 0)
      ctx:recv(f.partner, OUT, 0)
      return
    end
    -- mine: where this rank's running sum is (IN until something is added).
    local mine = IN
    if f.role == "host" then
      ctx:recv_reduce(f.partner, IN, 0, OUT, 0)
      mine = OUT
    end
    local bit = 1
    while bit < f.P do
      local peer = f:rank(f.v ~ bit)
      -- Both send first: one message each way, which the slots hold.
      ctx:send(peer, mine, 0)
      ctx:recv_reduce(peer, mine, 0, OUT, 0)
      mine = OUT
      bit = bit * 2
    end
    if f.role == "host" then ctx:send(f.partner, OUT, 0) end
  end,
}
