-- hier.lua -- the node hierarchy for hierarchical scripts: which ranks share
-- this rank's node, and which rank of every node has this rank's local rank
-- (its "rail": on a GPU cluster, the ranks that talk through the same NIC
-- index on each host).

local M = {}

-- Whether every node holds the same number of ranks.
function M.even(ctx)
  local size = ctx:node_size(0)
  for node = 1, ctx.nnodes - 1 do
    if ctx:node_size(node) ~= size then return false end
  end
  return true
end

-- The ranks of this rank's node, in local-rank order (a 1-based list).
function M.node_group(ctx)
  return ctx:node_ranks(ctx.node)
end

-- The rank with local rank lr (default: this rank's) on every node that has
-- one, in node order (a 1-based list). Ranks are numbered node by node, so a
-- node's first rank is the sum of the sizes before it: no node's rank list
-- need be built.
function M.rail(ctx, lr)
  lr = lr or ctx.local_rank
  local group, first = {}, 0
  for node = 0, ctx.nnodes - 1 do
    local size = ctx:node_size(node)
    if lr < size then group[#group + 1] = first + lr end
    first = first + size
  end
  return group
end

-- The position (1-based) in `ranks`, one node's ranks, of the first rank
-- nearest that node's NIC `rail` (ctx:nic_of), where a channel on that NIC
-- enters and leaves the node; 1 when none is (one NIC, or none known).
function M.nic_entry(ctx, ranks, rail)
  for i = 1, #ranks do
    if ctx:nic_of(ranks[i]) == rail then return i end
  end
  return 1
end

return M
