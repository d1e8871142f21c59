-- nvlstree.lua -- NCCL's NVLS-tree allreduce across NVSwitch nodes:
-- NVLink SHARP inside each node, a tree between the nodes.
--
-- With L ranks on each of N nodes, one hub per (node, local rank) -- the
-- node's NVSwitch reducing for that head, as in algos/nvls.lua -- and the
-- buffer cut into L shards of m pieces (chunk l*m + j: piece j of shard l):
--   1. every rank sends piece j of every shard l to its node's hub l, which
--      sums the node's L copies and returns the sum to local rank l, the
--      head (multimem.ld_reduce);
--   2. the heads of shard l, one per node (a rail), allreduce it across
--      the nodes on NCCL's double binary tree (m = 2, one piece per tree);
--   3. each head sends the result back to its hub, which writes it to
--      every rank of the node, the head included (multimem.st).
-- Inside a node a rank moves S + S/L each way over its NVLink; across
-- nodes each rank moves only its shard, S/L (the order of the rounds:
-- below, rank_program). The hub works a round ahead
-- (it sums round p+1 before it takes round p's results), so each of its
-- connections holds at most the two chunks the flow control allows; a ring
-- across the nodes (N pieces a shard) would not fit so, and NCCL's
-- NVLS-tree is a tree.
--
-- Only the simulator can run it (a plan with hubs). One node is
-- algos/nvls.lua.
local trees = require "tree"
local hier = require "hier"

local function pieces(ctx) return 2 end -- one per tree of the double binary tree
-- Rounds per loop iteration (--opt parts=, default 4): a rank scatters
-- round p+1 before round p crosses the nodes, so NVLink and the network
-- work at once (NCCL's warps for the phases run at the same time).
local function parts(ctx) return math.max(1, ctx:opt("parts", 4)) end

local function hub_program(ctx)
  local L, m, P = ctx:node_size(0), pieces(ctx), parts(ctx)
  local node, l = ctx.this_hub // L, ctx.this_hub % L
  local ranks = ctx:node_ranks(node)
  local head = ranks[l + 1]
  local function reduce(p)
    for j = 0, m - 1 do
      local s = (p * m + j) % (2 * m)
      ctx:recv(ranks[1], SCRATCH, s)
      for i = 2, L do ctx:recv_reduce(ranks[i], SCRATCH, s, SCRATCH, s) end
      ctx:send(head, SCRATCH, s) -- the node's sum to the head
    end
  end
  reduce(0)
  for p = 0, P - 1 do
    if p + 1 < P then reduce(p + 1) end
    for j = 0, m - 1 do
      local s = (p * m + j) % (2 * m)
      ctx:recv(head, SCRATCH, s) -- the head's result, across all nodes
      for d = 0, L - 1 do ctx:send(ranks[(l + d) % L + 1], SCRATCH, s) end -- to every rank, the head first
    end
  end
end

local function rank_program(ctx)
  local L, m, P, l = ctx.local_size, pieces(ctx), parts(ctx), ctx.local_rank
  local function hub(i) return ctx:hub(ctx.node * L + i) end
  local function chunk(p, i, j) return (p * L + i) * m + j end
  -- f(hub, chunk) for every piece of round p, piece by piece, its own shard's first.
  local function each(p, f)
    for j = 0, m - 1 do
      for d = 0, L - 1 do
        local i = (l + d) % L
        f(hub(i), chunk(p, i, j))
      end
    end
  end
  local function scatter(p) -- every piece of round p to its hub
    each(p, function(h, c) ctx:send(h, IN, c) end)
  end
  local function sums(p) -- this rank's shard of round p, summed over the node
    for j = 0, m - 1 do ctx:recv(hub(l), OUT, chunk(p, l, j)) end
  end
  local function results(p) -- every shard's result of round p, from the hubs
    each(p, function(h, c) ctx:recv(h, OUT, c) end)
  end
  -- A rank's ops run one after another, where NCCL runs the phases on
  -- warps of their own at once; so the rounds are software-pipelined: while
  -- round p crosses the nodes, NVLink carries round p+1's pieces and round
  -- p-1's results. Round p's piece where this rank is a tree's leaf leaves
  -- first (nothing waits on it), then round p+1's pieces go to the hubs,
  -- whose sums are ready by the time this rank asks for them; the wait on
  -- the tree's other pieces is covered by those sends, and the wait on the
  -- network's last piece by round p-1's results. Measured in the simulator
  -- on two 8 x H100 nodes, 1 GiB: 465 GB/s busbw against 245 with the
  -- phases in sequence (tests/sim.cmake, sim_nvlstree_two_h100_nodes).
  scatter(0)
  sums(0)
  for p = 0, P - 1 do
    local tree = trees.allreduce_phases(ctx, hier.rail(ctx), OUT, function(j) return chunk(p, l, j) end)
    tree.leaf_up()
    if p + 1 < P then scatter(p + 1) end
    tree.up()
    tree.down()
    if p > 0 then results(p - 1) end
    tree.leaf_down()
    for j = 0, m - 1 do ctx:send(hub(l), OUT, chunk(p, l, j)) end -- back to the switch
    if p + 1 < P then sums(p + 1) end
  end
  results(P - 1)
end

return {
  name = "nvlstree",
  collectives = { "allreduce" },
  rails = true, -- local rank l talks across nodes through its own NIC l
  supports = function(ctx)
    if ctx.nnodes < 2 then return false, "one node: NVLS alone (algos/nvls.lua)" end
    if not hier.even(ctx) then return false, "nvlstree needs the same number of ranks on every node" end
    return true
  end,
  chunks = function(ctx) return parts(ctx) * ctx:node_size(0) * pieces(ctx) end,
  scratch = function(ctx) return 2 * pieces(ctx) end,
  hubs = function(ctx) return ctx.nnodes * ctx:node_size(0) end,
  program = function(ctx)
    if ctx.this_hub then hub_program(ctx) else rank_program(ctx) end
  end,
}
