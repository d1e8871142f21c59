-- tree.lua -- tree algorithms: logarithmic depth, for many ranks and small
-- messages.
--
-- allreduce: the double binary tree (lib/tree.lua), as NCCL builds it. A
--   plain binary tree reduces up and broadcasts down in about 2 log2(n)
--   hops, but its leaves (half the ranks) only ever send once and receive
--   once, and interior ranks move the whole buffer twice per child: half the
--   ring's bandwidth. Two trees fix that: tree 1 is tree 0 mirrored (or
--   shifted by one for odd n), so a rank interior in one tree is a leaf in
--   the other. The buffer is cut into 2 chunks per loop iteration, chunk 0
--   on tree 0 and chunk 1 on tree 1, and each tree carries half of the data.
--   Program order: reduce up tree 0, reduce up tree 1, broadcast down tree 0,
--   broadcast down tree 1, so that the tree-1 reduction runs alongside the
--   tree-0 one instead of waiting for tree 0's broadcast. Why it cannot
--   deadlock under 2-chunk connections: a connection carries at most one
--   chunk per tree per loop iteration, two in all, which its slots hold, so
--   no send ever waits for room; a receive of a reduction waits only for the
--   children's reductions of the same tree, a receive of a broadcast only
--   for the parent's earlier ops, and those chains end at the leaves and at
--   the root.
-- broadcast: the binomial tree from the root: the root sends to the rank
--   half-way round (relative to it), then a quarter of the way, and so on;
--   every rank that receives does the same within its part, so log2(n)
--   rounds reach all, the largest part (the longest way to go) first.
-- reduce: the same tree the other way; a rank adds each child's partial sum
--   to its own data, smallest subtree (first finished) first. Only the root
--   has an output buffer, so the other interior ranks accumulate in SCRATCH.
local tree = require "tree"

local programs = {}

function programs.allreduce(ctx)
  local n, r = ctx.nranks, ctx.rank
  if n == 1 then
    ctx:copy(IN, 0, OUT, 0)
    ctx:copy(IN, 1, OUT, 1)
    return
  end
  local parent, children = {}, {}
  for t = 0, 1 do parent[t], children[t] = tree.dbtree(n, r, t) end
  -- Reduce up, tree 0 then tree 1: chunk t collects the subtree's sum in
  -- OUT[t] (a leaf sends its input as it is).
  for t = 0, 1 do
    local acc = IN
    for _, child in ipairs(children[t]) do
      ctx:recv_reduce(child, acc, t, OUT, t)
      acc = OUT
    end
    if parent[t] >= 0 then ctx:send(parent[t], acc, t) end
  end
  -- Broadcast down: the root of each tree holds the full sum; everyone
  -- else receives it from its parent and passes it on.
  for t = 0, 1 do
    if parent[t] >= 0 then ctx:recv(parent[t], OUT, t) end
    for _, child in ipairs(children[t]) do ctx:send(child, OUT, t) end
  end
end

function programs.broadcast(ctx)
  local parent, children = tree.binomial(ctx.nranks, ctx.rank, ctx.root)
  if parent < 0 then
    for _, child in ipairs(children) do ctx:send(child, IN, 0) end
    ctx:copy(IN, 0, OUT, 0)
  else
    ctx:recv(parent, OUT, 0)
    for _, child in ipairs(children) do ctx:send(child, OUT, 0) end
  end
end

function programs.reduce(ctx)
  local parent, children = tree.binomial(ctx.nranks, ctx.rank, ctx.root)
  local nc = #children
  if parent < 0 then
    local acc = IN
    for i = nc, 1, -1 do
      ctx:recv_reduce(children[i], acc, 0, OUT, 0)
      acc = OUT
    end
    if nc == 0 then ctx:copy(IN, 0, OUT, 0) end
  elseif nc == 0 then
    ctx:send(parent, IN, 0)
  else
    local acc = IN
    for i = nc, 2, -1 do
      ctx:recv_reduce(children[i], acc, 0, SCRATCH, 0)
      acc = SCRATCH
    end
    -- The last child's sum goes straight on to the parent, unwritten.
    ctx:recv_reduce_send(children[1], parent, acc, 0)
  end
end

return {
  name = "tree",
  collectives = { "allreduce", "broadcast", "reduce" },
  chunks = function(ctx) return ctx.collective == "allreduce" and 2 or 1 end,
  scratch = function(ctx) return ctx.collective == "reduce" and 1 or 0 end,
  -- The trees are computed, not stored: prove their shape for this n
  -- before trusting them (each rank reached exactly once).
  supports = function(ctx)
    if ctx.collective == "allreduce" then
      tree.check_dbtree(ctx.nranks)
    else
      tree.check_binomial(ctx.nranks, ctx.root)
    end
    return true
  end,
  program = function(ctx)
    programs[ctx.collective](ctx)
  end,
}
