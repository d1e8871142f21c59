-- nvls.lua -- NVLink SHARP allreduce (NCCL's NVLS) on one NVSwitch node:
-- the switch reduces.
--
-- The NVSwitch is a hub (ctx:hub(0)): a participant that holds only
-- SCRATCH and reduces what it receives. Each rank is head for one chunk
-- of every loop iteration (chunk i for rank i), as each GPU is head for
-- 1/n of the data in NCCL (src/device/all_reduce.h):
--   1. every rank sends chunk j to the switch, which reduces the n copies
--      and returns the sum to head j (multimem.ld_reduce);
--   2. head j sends the sum back to the switch, which writes it to every
--      rank, the head included (multimem.st to the multicast address).
-- Per rank and direction that is S + S/n over its NVLink, against
-- 2(n-1)/n x S for the ring: the (n+1)/n that NVLS moves per byte of
-- algbw. The switch works one chunk ahead: it reduces chunk j+1 before it
-- broadcasts chunk j, so a head's round trip overlaps the next reduction.
--
-- Only the simulator can run it: the CPU engine has no switch that
-- reduces (a plan with hubs is refused). Across nodes NCCL uses NVLS-tree
-- (NVLS inside each node, a tree between them), not this.

-- The switch works `depth` chunks ahead (--opt depth=, default 2): it
-- reduces chunk j+depth before it broadcasts chunk j, so the heads' round
-- trips overlap later reductions, as NCCL's warps for the phases run at
-- once on different chunks.
local function depth(ctx) return math.max(1, math.min(ctx:opt("depth", 2), ctx.nranks - 1)) end

local function hub_program(ctx)
  local n, L = ctx.nranks, depth(ctx)
  local slots = L + 1
  local function reduce(j)
    local s = j % slots
    ctx:recv(0, SCRATCH, s)
    for r = 1, n - 1 do ctx:recv_reduce(r, SCRATCH, s, SCRATCH, s) end
    ctx:send(j, SCRATCH, s) -- the sum to its head
  end
  for j = 0, L - 1 do reduce(j) end
  for j = 0, n - 1 do
    if j + L < n then reduce(j + L) end
    local s = j % slots
    ctx:recv(j, SCRATCH, s) -- the head's store
    for r = 0, n - 1 do ctx:send(r, SCRATCH, s) end
  end
end

-- A rank's sends and receives in the switch's order, interleaved: its
-- chunks run at most depth+1 ahead of what it has received, and the head's
-- store goes as soon as it has the sum it stores.
local function rank_program(ctx)
  local n, i, H, L = ctx.nranks, ctx.rank, ctx:hub(0), depth(ctx)
  local sends, recvs = {}, {}
  for j = 0, n - 1 do
    sends[#sends + 1] = { IN, j }
    if j == math.min(i + L, n - 1) then sends[#sends + 1] = { OUT, i, store = true } end
  end
  for j = 0, n - 1 do
    if j == i - L then recvs[#recvs + 1] = { i, sum = true } end
    recvs[#recvs + 1] = { j }
  end
  if i < L then table.insert(recvs, 1, { i, sum = true }) end
  local si, ri, sent, have_sum = 1, 1, 0, false
  while si <= #sends or ri <= #recvs do
    local s = sends[si]
    if s and ((s.store and have_sum) or (not s.store and sent - (ri - 1) <= L)) then
      ctx:send(H, s[1], s[2])
      if not s.store then sent = sent + 1 end
      si = si + 1
    else
      local r = recvs[ri]
      ctx:recv(H, OUT, r[1])
      if r.sum then have_sum = true end
      ri = ri + 1
    end
  end
end

return {
  name = "nvls",
  collectives = { "allreduce" },
  chunks = function(ctx) return ctx.nranks end,
  scratch = function(ctx) return depth(ctx) + 1 end,
  hubs = 1,
  supports = function(ctx)
    if ctx.nnodes > 1 then return false, "NVLS reduces in one node's NVSwitch; across nodes NCCL uses NVLS-tree" end
    if ctx.nranks < 2 then return false, "one rank has nothing to reduce" end
    return true
  end,
  program = function(ctx)
    if ctx.this_hub then hub_program(ctx) else rank_program(ctx) end
  end,
}
