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
--   Program order (tree.allreduce_phases): a rank first sends up the tree
--   it is a leaf of, then reduces up the other, broadcasts it down, and
--   last receives its leaf tree's result; so the two trees' pieces cross
--   between two ranks at once, both ways, where in one order for all (tree
--   0, then tree 1) a rank's piece of one tree waited for the other tree's
--   from its peer (2 ranks over shared memory, 2026-12-07 18:09, 4 rounds
--   alternating: 64 KiB-32 MiB busbw 6.2 / 9.3 / 10.2 / 5.8 -> 7.3 / 10.4 /
--   12.2 / 7.5 GB/s, medians). No deadlock under 2-chunk connections: a
--   connection carries at most one chunk per tree per loop iteration, two
--   in all, which its slots hold, so no send waits for room; a reduction's
--   receive waits only for the children's reductions of the same tree, a
--   broadcast's receive only for the parent's earlier ops, and those chains
--   end at the leaves and the root (and the verifier proves every shape).
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
  local all = {}
  for r = 0, ctx.nranks - 1 do all[r + 1] = r end
  -- Chunk t on tree t; a rank sends up first the tree it is a leaf of and
  -- receives its result last (tree.allreduce_phases).
  local ph = tree.allreduce_phases(ctx, all, IN, function(t) return t end)
  ph.leaf_up()
  ph.up()
  ph.down()
  ph.leaf_down()
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
