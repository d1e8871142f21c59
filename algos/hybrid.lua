-- hybrid.lua -- hierarchical allreduce for clusters of nodes.
--
-- Inside a node the ranks share a fast fabric (NVLink, shared memory);
-- between nodes they share NICs, an order of magnitude slower. So, with L
-- ranks on each of N nodes:
--   1. reduce-scatter inside each node, a ring over the node's ranks: local
--      rank l ends with shard l of the buffer summed over its node;
--   2. allreduce of shard l across the nodes among the ranks of local rank
--      l, one per node (a "rail": each local rank drives its own NIC):
--      a ring by default, the double binary tree with --opt inter=tree;
--   3. allgather of the shards inside each node, the ring again.
-- Each rank sends only 1/L of the buffer over the network, in N-1 (ring) or
-- about 2 log2 N (tree) steps. The buffer is cut into L shards of m chunks:
-- m = N for the inter-node ring (it splits a shard once more, into one
-- piece per node), 2 for the tree (one per tree); chunk l*m + j is piece j
-- of shard l. Each piece j is its own ring sequence inside the node: a
-- rank sending all m pieces of a step before receiving any would deadlock
-- against 2-chunk connections once m > 2.
-- One node: steps 1 and 3 alone. One rank per node: step 2 alone, on IN.
local rings = require "ring"
local trees = require "tree"
local hier = require "hier"

local function inter_kind(ctx)
  local kind = ctx:opt("inter", "ring")
  if kind ~= "ring" and kind ~= "tree" then
    error("hybrid: option inter must be ring or tree, not '" .. kind .. "'", 0)
  end
  return kind
end

-- Pieces per shard.
local function pieces(ctx)
  if ctx.nnodes == 1 then return 1 end
  return inter_kind(ctx) == "tree" and 2 or ctx.nnodes
end

return {
  name = "hybrid",
  collectives = { "allreduce" },
  rails = true, -- local rank l talks across nodes through its own NIC l
  supports = function(ctx)
    if not hier.even(ctx) then return false, "hybrid needs the same number of ranks on every node" end
    inter_kind(ctx)
    return true
  end,
  chunks = function(ctx) return ctx.local_size * pieces(ctx) end,
  program = function(ctx)
    local L, N, m = ctx.local_size, ctx.nnodes, pieces(ctx)
    local odd = ctx.channel % 2 == 1 -- odd channels run the rings backwards
    local node_ring = rings.of(hier.node_group(ctx), { reverse = odd })
    local shard = node_ring:position(ctx.rank) -- the shard this rank reduces
    local function piece_of(j) return function(l) return l * m + j end end
    local function in_shard(i) return shard * m + i end
    -- The ring across the nodes sends piece p first (p: this node's place
    -- on it) and receives piece p+2 last (lib/ring.lua allreduce): the node
    -- reduces its pieces ending with p and gathers them starting with p+2,
    -- so that each phase's last op and the next one's first fuse into one
    -- step, on every node alike -- and every node's program is node 0's
    -- moved on (the analytic model replays one node for all: plan/fold.h).
    local rail = N > 1 and inter_kind(ctx) == "ring" and rings.of(hier.rail(ctx), { reverse = odd })
    local p = rail and rail:position(ctx.rank) or 0
    local function reduced(i) return rail and (p + 1 + i) % m or i end
    local function gathered(i) return rail and (p + 2 + i) % m or i end
    -- 1. Inside the node; the partial sums land in OUT.
    local src = IN
    if L > 1 then
      for i = 0, m - 1 do rings.reduce_scatter(ctx, node_ring, IN, piece_of(reduced(i))) end
      src = OUT
    end
    -- 2. Across the nodes, on this rank's shard.
    if rail then
      rings.allreduce(ctx, rail, src, in_shard)
    elseif N > 1 then
      trees.allreduce(ctx, hier.rail(ctx), src, in_shard)
    elseif L == 1 then
      ctx:copy(IN, 0, OUT, 0)
    end
    -- 3. Inside the node: every shard to every local rank.
    if L > 1 then
      for i = 0, m - 1 do rings.allgather(ctx, node_ring, piece_of(gathered(i))) end
    end
  end,
}
