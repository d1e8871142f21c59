-- nccltree.lua -- allreduce as NCCL's tree algorithm builds it on a cluster
-- (NCCL_ALGO=Tree): inside every node a chain of its ranks, across nodes the
-- double binary tree over the nodes (lib/tree.lua).
--
-- For tree t of channel c, every node's chain starts at its first rank
-- nearest NIC c mod k (the node's member of the inter-node tree: the
-- channel's traffic between nodes leaves and enters there) and walks the
-- node's other ranks in local order. A chain head's parent is the head of its
-- node's parent in node tree t, and its children are the heads of its node's
-- children and the next rank of its chain; any other rank's parent is the
-- previous rank of its chain, its child the next.
--
-- As tree.lua, chunk t on tree t, each tree carrying half of the data; but
-- `depth` pairs of chunks per loop iteration (--opt depth=, default 4):
-- reduce up every pair, then broadcast down every pair. A channel's ops run
-- one after another, so a loop iteration ends only when its broadcast came
-- back down: the chain's round trip is paid once per `depth` pairs. NCCL
-- runs the reduction and the broadcast of a channel on separate warps, so it
-- pays it once per call. A node takes the two trees in the order that lets
-- them cross between nodes at once (lib/tree.lua, leaves), the tree it is
-- a leaf of one pair ahead going up and one pair behind coming down (--opt
-- ahead=, behind=; 0 for none), so that its pieces do not wait on the
-- other tree's whole round trip: on two 8 x H100 nodes at 1 GiB the
-- simulator predicts 430 GB/s busbw at depth 4 (440 at 16), above the
-- ring's 360, as NCCL's tree is there; 266 on 4 nodes and 166 on 16, where
-- the ring (359, 267) wins again at GB sizes, as in NCCL's own model
-- (shared/NCCL-MODEL.md section 5). In one order for all (tree 0, then 1)
-- two nodes gave 251, four 117.
-- The last child's sum goes on to the parent fused (recv_reduce_send, piece
-- by piece) and the broadcast is passed on fused (recv_copy_send), so a
-- chain is a pipeline, not a relay of whole chunks. Only the roots write the
-- sum before the broadcast; everyone ends with it in OUT.
-- One node: the chain alone (NCCL's tree inside one node). One rank per
-- node: the double binary tree over the ranks, tree.lua's allreduce.
local tree = require "tree"
local hier = require "hier"

-- This node's chain for channel c: its ranks from the first one nearest NIC
-- c mod k, in local order.
local function chain(ctx, node, c)
  local ranks = ctx:node_ranks(node)
  local m, entry = #ranks, hier.nic_entry(ctx, ranks, c % ctx:node_nics(node))
  local out = {}
  for j = 0, m - 1 do out[j + 1] = ranks[(entry - 1 + j) % m + 1] end
  return out
end

-- Parent (-1 at the root) and children (a list) of rank r in tree t.
local function links(ctx, r, t)
  local node = ctx:node_of(r)
  local ch = chain(ctx, node, ctx.channel)
  local j = 1
  while ch[j] ~= r do j = j + 1 end
  local children = {}
  if j > 1 then
    if ch[j + 1] then children[1] = ch[j + 1] end
    return ch[j - 1], children
  end
  local pnode, cnodes = tree.dbtree(ctx.nnodes, node, t)
  for _, cn in ipairs(cnodes) do children[#children + 1] = chain(ctx, cn, ctx.channel)[1] end
  if ch[2] then children[#children + 1] = ch[2] end
  return pnode >= 0 and chain(ctx, pnode, ctx.channel)[1] or -1, children
end

return {
  name = "nccltree",
  collectives = { "allreduce" },
  chunks = function(ctx) return 2 * ctx:opt("depth", 4) end,
  supports = function(ctx)
    tree.check_dbtree(ctx.nnodes)
    return true
  end,
  program = function(ctx)
    if ctx.nranks == 1 then
      for c = 0, 2 * ctx:opt("depth", 4) - 1 do ctx:copy(IN, c, OUT, c) end
      return
    end
    local parent, children = {}, {}
    for t = 0, 1 do parent[t], children[t] = links(ctx, ctx.rank, t) end
    -- Every rank of a node takes the two trees in its node's order, leaf
    -- first (tree.leaves): a chain passes them on in it.
    local leaf, ups, downs = tree.leaves(ctx.nnodes, ctx.node)
    local depth = ctx:opt("depth", 4)
    local ahead = leaf[ups[1]] and math.max(0, ctx:opt("ahead", 1)) or 0
    -- The leaf tree's pieces go up `ahead` pairs before the other tree's and
    -- come down `behind` pairs after them (more than 1 overfills a
    -- connection's two chunks on 4 nodes or more: chorus check says where).
    local function up(d, t) -- reduce up
      local c, acc, kids = 2 * d + t, IN, children[t]
      local last = parent[t] >= 0 and #kids or #kids + 1 -- the child fused into the send, if any
      for i, child in ipairs(kids) do
        if i == last then
          ctx:recv_reduce_send(child, parent[t], acc, c)
        else
          ctx:recv_reduce(child, acc, c, OUT, c)
          acc = OUT
        end
      end
      if parent[t] >= 0 and #kids == 0 then ctx:send(parent[t], IN, c) end
      if parent[t] < 0 and #kids == 0 then ctx:copy(IN, c, OUT, c) end
    end
    for d = 0, depth - 1 + ahead do
      if d < depth then up(d, ups[1]) end
      if d >= ahead then up(d - ahead, ups[2]) end
    end
    local function down(d, t) -- broadcast down
      local c, kids, first = 2 * d + t, children[t], 1
      if parent[t] >= 0 then
        if #kids > 0 then
          ctx:recv_copy_send(parent[t], kids[1], OUT, c)
          first = 2
        else
          ctx:recv(parent[t], OUT, c)
        end
      end
      for i = first, #kids do ctx:send(kids[i], OUT, c) end
    end
    local behind = leaf[downs[2]] and math.max(0, ctx:opt("behind", 1)) or 0
    for d = 0, depth - 1 + behind do
      if d < depth then down(d, downs[1]) end
      if d >= behind then down(d - behind, downs[2]) end
    end
  end,
}
