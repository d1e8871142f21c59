-- collnet.lua -- NCCL's CollNet allreduce: the network's switches reduce
-- (SHARP in InfiniBand), the nodes' ranks feed them.
--
-- With L ranks on each of N nodes and one hub per rail in the network
-- (hubs_in = "network": rail l's leaf switch, dgx-cluster --set sharp=true):
--   1. reduce-scatter inside each node, a ring over the node's ranks: the
--      rank at ring position p ends with shard p summed over its node;
--   2. that rank (local rank l) sends its shard to rail l's switch, which
--      sums the N nodes' copies and sends the sum back to each of them;
--   3. allgather of the shards inside each node, the ring again.
-- Each rank sends S/L over the network once and receives it once: half of
-- what a ring or tree across the nodes moves per rank, in one round trip.
-- The shard a rank holds is its node-ring position, the same on every node
-- (the nodes' rings are built alike), so rail l's switch sums one shard.
-- A loop iteration is --opt parts= rounds (default 4): a rank starts round
-- p+1's reduce-scatter before it takes round p's sum from the switch.
-- Only the simulator can run it (a plan with hubs).
local rings = require "ring"
local hier = require "hier"

local function parts(ctx) return math.max(1, ctx:opt("parts", 4)) end

local function node_ring(ctx, node)
  return rings.of(ctx:node_ranks(node), { reverse = ctx.channel % 2 == 1 })
end

local function hub_program(ctx)
  local P, rail = parts(ctx), hier.rail(ctx, ctx.this_hub)
  for p = 0, P - 1 do
    local s = p % 2
    ctx:recv(rail[1], SCRATCH, s)
    for i = 2, #rail do ctx:recv_reduce(rail[i], SCRATCH, s, SCRATCH, s) end
    for i = 1, #rail do ctx:send(rail[i], SCRATCH, s) end
  end
end

local function rank_program(ctx)
  local L, P = ctx.local_size, parts(ctx)
  local ring = node_ring(ctx, ctx.node)
  local shard = ring:position(ctx.rank)
  local hub = ctx:hub(ctx.local_rank)
  local function piece(p) return function(i) return p * L + i end end
  local function scatter(p)
    if L > 1 then
      rings.reduce_scatter(ctx, ring, IN, piece(p))
    else
      ctx:copy(IN, p, OUT, p)
    end
    ctx:send(hub, OUT, p * L + shard)
  end
  scatter(0)
  for p = 0, P - 1 do
    if p + 1 < P then scatter(p + 1) end
    ctx:recv(hub, OUT, p * L + shard) -- the sum over all nodes
    if L > 1 then rings.allgather(ctx, ring, piece(p)) end
  end
end

return {
  name = "collnet",
  collectives = { "allreduce" },
  rails = true,
  hubs_in = "network",
  supports = function(ctx)
    if ctx.nnodes < 2 then return false, "one node: nothing for the network to reduce" end
    if not hier.even(ctx) then return false, "collnet needs the same number of ranks on every node" end
    return true
  end,
  chunks = function(ctx) return parts(ctx) * ctx:node_size(0) end,
  scratch = 2,
  hubs = function(ctx) return ctx:node_size(0) end,
  program = function(ctx)
    if ctx.this_hub then hub_program(ctx) else rank_program(ctx) end
  end,
}
