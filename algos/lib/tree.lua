-- tree.lua -- trees for algorithm scripts: the double binary tree (two
-- complementary binary trees over the same ranks) and binomial trees rooted
-- anywhere. Every function works on positions 0 .. n-1; `over` maps them to
-- the ranks of any group (all ranks, the ranks of one node, one rank per node).

local M = {}

-- Tree 0 of the double binary tree: the in-order binary tree on 0..n-1 in
-- which position x with lowest set bit b sits at height log2(b): its
-- children are x - b/2 and x + b/2 and its parent is x + b or x - b, whichever
-- clears bit b and sets bit 2b. Odd positions are the leaves. Position 0 has
-- no set bit: it is the root, with one child, the largest power of two below
-- n. Near the top end, children and parents that would lie beyond n - 1 are
-- replaced by the nearest ones inside. Returns parent (-1 at the root) and a
-- list of children (lower first).
function M.btree(n, x)
  if x == 0 then
    if n == 1 then return -1, {} end
    local top = 1
    while top * 2 < n do top = top * 2 end
    return -1, { top }
  end
  local b = x & -x
  local parent = (x ~ b) | (b << 1)
  if parent >= n then parent = x ~ b end
  local children = {}
  local half = b >> 1
  if half > 0 then
    children[1] = x - half
    -- The upper child is x + half when it exists; otherwise the largest
    -- x + b' (b' < half, a power of two) below n, whose own parent rule
    -- then points back here.
    local d = half
    while d > 0 and x + d >= n do d = d >> 1 end
    if d > 0 then children[2] = x + d end
  end
  return parent, children
end

-- Tree t (0 or 1) of the double binary tree at position x. Tree 1 relabels
-- tree 0 so that leaves and interior positions trade places: mirrored
-- (x -> n-1-x) when n is even, shifted by one (x -> x-1) when n is odd.
function M.dbtree(n, x, t)
  if t == 0 or n == 1 then return M.btree(n, x) end
  local to, from
  if n % 2 == 0 then
    to = function(y) return n - 1 - y end
    from = to
  else
    to = function(y) return (y - 1) % n end
    from = function(y) return (y + 1) % n end
  end
  local parent, children = M.btree(n, to(x))
  local mapped = {}
  for i, c in ipairs(children) do mapped[i] = from(c) end
  return parent >= 0 and from(parent) or -1, mapped
end

-- The root of tree t of the double binary tree over n positions.
function M.dbtree_root(n, t)
  if t == 0 or n == 1 then return 0 end
  return n % 2 == 0 and n - 1 or 1
end

-- The binomial tree over n positions rooted at `root`, at position x. With
-- v = (x - root) mod n, v's parent is v with its lowest set bit cleared, and
-- its children are v + 2^j for every 2^j below that bit (every 2^j < n at the
-- root). Children come in send order: largest subtree first, so a broadcast
-- starts the longest chain first; a reduce receives them in reverse.
function M.binomial(n, x, root)
  local v = (x - root) % n
  local low = v & -v
  local parent = v == 0 and -1 or ((v - low) + root) % n
  local top = 1
  while top < n do top = top << 1 end
  local limit = v == 0 and top or low
  local children = {}
  local m = limit >> 1
  while m > 0 do
    if v + m < n then children[#children + 1] = (v + m + root) % n end
    m = m >> 1
  end
  return parent, children
end

-- Map a (parent, children) pair of positions to the ranks of a group: a
-- 1-based list whose element i + 1 is the rank at position i.
function M.over(group, parent, children)
  local ranks = {}
  for i, c in ipairs(children) do ranks[i] = group[c + 1] end
  return parent >= 0 and group[parent + 1] or -1, ranks
end

-- Self-check: the trees a function gives (f(x) -> parent, children over
-- 0..n-1) form one tree rooted at `root`: each child names its parent back,
-- and a walk from the root reaches every position exactly once. Raises an
-- error naming the first fault.
local function check_tree(what, n, root, f)
  local parent, children = {}, {}
  for x = 0, n - 1 do parent[x], children[x] = f(x) end
  if parent[root] ~= -1 then error(string.format("%s n=%d: root %d has parent %d", what, n, root, parent[root]), 3) end
  local seen, stack, count = { [root] = true }, { root }, 1
  while #stack > 0 do
    local x = table.remove(stack)
    for _, c in ipairs(children[x]) do
      if c < 0 or c >= n then error(string.format("%s n=%d: %d has child %d out of range", what, n, x, c), 3) end
      if seen[c] then error(string.format("%s n=%d: %d is reached twice", what, n, c), 3) end
      if parent[c] ~= x then
        error(string.format("%s n=%d: %d lists child %d, whose parent is %d", what, n, x, c, parent[c]), 3)
      end
      seen[c] = true
      count = count + 1
      stack[#stack + 1] = c
    end
  end
  if count ~= n then error(string.format("%s n=%d: the walk from %d reaches %d of %d positions", what, n, root, count, n), 3) end
end

-- Check both trees of the double binary tree over n positions, and that
-- they complement each other: no position is interior in both, except
-- position 0 when n is odd.
function M.check_dbtree(n)
  local interior = 0
  for t = 0, 1 do
    check_tree("dbtree " .. t, n, M.dbtree_root(n, t), function(x) return M.dbtree(n, x, t) end)
  end
  for x = 0, n - 1 do
    local _, c0 = M.dbtree(n, x, 0)
    local _, c1 = M.dbtree(n, x, 1)
    if #c0 > 0 and #c1 > 0 then interior = interior + 1 end
  end
  if interior > 1 then
    error(string.format("dbtree n=%d: %d positions are interior in both trees", n, interior), 2)
  end
end

function M.check_binomial(n, root)
  check_tree("binomial root " .. root, n, root, function(x) return M.binomial(n, x, root) end)
end

-- The trees of the double binary tree over n positions that position x is
-- a leaf of, as a table t -> true/false, for taking them leaf first (a
-- leaf's piece goes up before, and comes down after, the other tree's): so
-- the two trees' pieces cross between two positions at once, both ways,
-- where in one order for all (tree 0, then 1) one waits on the other's. A
-- leaf tree whose parent is x's parent in the other tree too (n odd) counts
-- as not a leaf: that parent receives both in the order 0, 1 (a connection
-- is FIFO). Also the two orders: up (leaf trees first) and down (last).
function M.leaves(n, x)
  local parent, kids, leaf = {}, {}, {}
  for t = 0, 1 do parent[t], kids[t] = M.dbtree(n, x, t) end
  for t = 0, 1 do leaf[t] = parent[t] >= 0 and #kids[t] == 0 and parent[t] ~= parent[1 - t] end
  local ups, downs = { 0, 1 }, { 0, 1 }
  if leaf[1] and not leaf[0] then ups = { 1, 0 } end
  if leaf[0] and not leaf[1] then downs = { 1, 0 } end
  return leaf, ups, downs
end

-- The double binary tree allreduce over a group (a 1-based list of ranks,
-- this rank among them) as its phases, so that a caller can do other work
-- between them: chunk(0) travels on tree 0 and chunk(1) on tree 1; `src`
-- holds this rank's data (IN, or OUT when an earlier phase left partial
-- sums there); the result lands in OUT at both chunks. A rank is a leaf in
-- at least one of the two trees (interior in both only at position 0 with
-- n odd), and in its leaf tree it only sends up and receives down; so
--   leaf_up     sends up the trees this rank is a leaf of (nothing waits),
--   up          reduces up the others (receives from the children, sends on),
--   down        broadcasts down the others (the parent's result to the children),
--   leaf_down   receives the leaf trees' results,
-- run in that order, let a leaf's piece cross while the rank waits on its
-- children in the other tree (leaves, above).
-- Returns a table of the four, and of reduce_up(t) and bcast_down(t), one
-- tree's halves.
function M.allreduce_phases(ctx, group, src, chunk)
  local n, x = #group, nil
  for i, r in ipairs(group) do
    if r == ctx.rank then x = i - 1 end
  end
  if not x then error("tree.allreduce: rank " .. ctx.rank .. " is not in the group", 3) end
  local up, down, leaf = {}, {}, M.leaves(n, x)
  for t = 0, 1 do
    up[t], down[t] = M.over(group, M.dbtree(n, x, t))
  end
  local function reduce_up(t)
    local c, acc = chunk(t), src
    for _, child in ipairs(down[t]) do
      ctx:recv_reduce(child, acc, c, OUT, c)
      acc = OUT
    end
    if up[t] >= 0 then
      ctx:send(up[t], acc, c)
    elseif acc ~= OUT then
      ctx:copy(acc, c, OUT, c) -- the root of a group of one
    end
  end
  local function bcast_down(t)
    local c = chunk(t)
    if up[t] >= 0 then ctx:recv(up[t], OUT, c) end
    for _, child in ipairs(down[t]) do ctx:send(child, OUT, c) end
  end
  local function each(is_leaf, f)
    return function()
      for t = 0, 1 do
        if leaf[t] == is_leaf then f(t) end
      end
    end
  end
  return {
    leaf_up = each(true, reduce_up),
    up = each(false, reduce_up),
    down = each(false, bcast_down),
    leaf_down = each(true, bcast_down),
    reduce_up = reduce_up,
    bcast_down = bcast_down,
  }
end

-- The double binary tree allreduce over a group, a building block for
-- hierarchical scripts (algos/hybrid.lua, --opt inter=tree): its phases in
-- the leaf-first order, as algos/tree.lua takes them. For hybrid's rails on
-- 8 x H100 nodes at 256 MiB the simulator predicts 244 / 161 / 102 GB/s
-- busbw on 2 / 4 / 16 nodes, where both trees reducing up before either
-- broadcast down (this function's order until 2026-12-07) gave 182 / 113 /
-- 71: a rank's piece of one tree no longer waits for the other tree's.
function M.allreduce(ctx, group, src, chunk)
  local ph = M.allreduce_phases(ctx, group, src, chunk)
  ph.leaf_up()
  ph.up()
  ph.down()
  ph.leaf_down()
end

return M
