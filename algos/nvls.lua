-- nvls.lua -- NVLink SHARP allreduce (NCCL's NVLS) on one NVSwitch node:
-- the switch reduces.
--
-- The NVSwitch reduces for every GPU at once; here it is one hub per rank
-- (ctx:hub(i)), each a participant that holds only SCRATCH. Rank i is head
-- for chunk i of every loop iteration, as each GPU heads 1/n of every
-- chunk in NCCL (src/device/all_reduce.h), and hub i serves that head:
--   1. every rank sends chunk i to hub i, which sums the n copies and
--      returns the sum to head i (multimem.ld_reduce);
--   2. head i sends the sum back to hub i, which writes it to every rank,
--      the head included (multimem.st to the multicast address).
-- Per rank and direction that is S + S/n over its NVLink, against
-- 2(n-1)/n x S for the ring: the (n+1)/n NVLS moves per byte of algbw.
-- The n heads work at once, each on its own connections.
--
-- Only the simulator can run it: the CPU engine has no switch that
-- reduces (a plan with hubs is refused). Across nodes NCCL uses NVLS-tree
-- (NVLS inside each node, a tree between them), not this.

-- A loop iteration is `parts` rounds (--opt parts=, default 4) of n
-- chunks, chunk p*n + i headed by rank i; a rank sends round p+1's chunks
-- before it takes round p's sums, so that its NVLink carries both ways at
-- once, as NCCL's warps for scatter and gather run at once.
local function parts(ctx) return math.max(1, ctx:opt("parts", 4)) end

local function hub_program(ctx)
  local n, i = ctx.nranks, ctx.this_hub
  for p = 0, parts(ctx) - 1 do
    local c = p * n + i
    local s = p % 2
    ctx:recv(0, SCRATCH, s)
    for r = 1, n - 1 do ctx:recv_reduce(r, SCRATCH, s, SCRATCH, s) end
    ctx:send(i, SCRATCH, s) -- the sum to its head
    ctx:recv(i, SCRATCH, s) -- the head's store
    for k = 0, n - 1 do ctx:send((i + k) % n, SCRATCH, s) end -- to every rank, the head first
  end
end

local function rank_program(ctx)
  local n, i, P = ctx.nranks, ctx.rank, parts(ctx)
  local function scatter(p)
    for k = 0, n - 1 do
      local j = (i + k) % n -- its own chunk first
      ctx:send(ctx:hub(j), IN, p * n + j)
    end
  end
  scatter(0)
  for p = 0, P - 1 do
    local c = p * n + i
    ctx:recv(ctx:hub(i), OUT, c) -- the sum this rank heads
    ctx:send(ctx:hub(i), OUT, c) -- back to the switch, for everyone
    if p + 1 < P then scatter(p + 1) end
    for j = 0, n - 1 do ctx:recv(ctx:hub(j), OUT, p * n + j) end
  end
end

return {
  name = "nvls",
  collectives = { "allreduce" },
  chunks = function(ctx) return parts(ctx) * ctx.nranks end,
  scratch = 2,
  hubs = function(ctx) return ctx.nranks end,
  supports = function(ctx)
    if ctx.nnodes > 1 then return false, "NVLS reduces in one node's NVSwitch; across nodes NCCL uses NVLS-tree" end
    if ctx.nranks < 2 then return false, "one rank has nothing to reduce" end
    return true
  end,
  program = function(ctx)
    if ctx.this_hub then hub_program(ctx) else rank_program(ctx) end
  end,
}
