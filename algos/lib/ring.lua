-- ring.lua -- rings for algorithm scripts: an order of ranks, each rank's
-- position in it, and its neighbours. The default ring is node-aware: the
-- ranks of one node are consecutive, so the ring crosses each node boundary
-- exactly once (and back to the first node once), never a slow link twice.

local hier = require "hier"

local M = {}

local Ring = {}
Ring.__index = Ring

-- A ring over a list of ranks (a 1-based Lua list, in ring order).
-- opts.reverse: walk the list backwards (the other direction of each link).
function M.of(list, opts)
  local ranks = {}
  local n = #list
  for i = 1, n do
    ranks[i] = (opts and opts.reverse) and list[n + 1 - i] or list[i]
  end
  local pos = {}
  for i = 1, n do
    if pos[ranks[i]] then error("ring: rank " .. ranks[i] .. " is in the list twice", 2) end
    pos[ranks[i]] = i - 1
  end
  return setmetatable({ ranks = ranks, n = n, pos = pos }, Ring)
end

-- Every rank, node by node, each node's ranks in local-rank order.
function M.node_order(ctx)
  local order = {}
  for node = 0, ctx.nnodes - 1 do
    for _, r in ipairs(ctx:node_ranks(node)) do order[#order + 1] = r end
  end
  return order
end

-- Whether some node of the plan has more than one NIC.
local function has_rails(ctx)
  if ctx.memo.rails == nil then
    local any = false
    for node = 0, ctx.nnodes - 1 do
      if ctx:node_nics(node) > 1 then any = true end
    end
    ctx.memo.rails = any
  end
  return ctx.memo.rails
end

-- The rail-aware ring of channel c, as NCCL's ring search builds it on
-- multi-NIC nodes: the channel's traffic between nodes goes through NIC
-- c mod k of each node (the simulator routes it so), so the ring enters every
-- node at the first rank nearest that NIC, then visits the node's other ranks
-- in local order from there (backwards when reverse), and leaves from the
-- last of them; nodes in order (reversed when reverse). Each channel's
-- crossings then sit on its own rail, and with as many channels as NICs every
-- NIC carries one channel each way.
function M.rail_order(ctx, c, reverse)
  local order = {}
  local first, last, step = 0, ctx.nnodes - 1, 1
  if reverse then first, last, step = last, first, -1 end
  for node = first, last, step do
    local ranks = ctx:node_ranks(node)
    local m = #ranks
    local entry = hier.nic_entry(ctx, ranks, c % ctx:node_nics(node))
    for j = 0, m - 1 do
      local i = reverse and (entry - 1 - j) % m + 1 or (entry - 1 + j) % m + 1
      order[#order + 1] = ranks[i]
    end
  end
  return order
end

-- The node-aware ring of all ranks for this channel. opts.reverse_odd (the
-- default: true) runs odd channels the other way round, so that two channels
-- use both directions of every link. On nodes with several NICs the ring of
-- each channel is rail-aware (M.rail_order), built once per plan and channel.
-- Otherwise ranks are numbered node by node, so the node order is 0..n-1
-- whatever the node sizes: the ring depends only on n and the direction, and
-- is built once per (n, direction) and shared (ring objects are never
-- modified).
local made = {}

function M.new(ctx, opts)
  local reverse_odd = not (opts and opts.reverse_odd == false)
  local reverse = reverse_odd and ctx.channel % 2 == 1
  if ctx.nnodes > 1 and has_rails(ctx) then
    local key = "ring" .. ctx.channel .. (reverse and "r" or "")
    local ring = ctx.memo[key]
    if not ring then
      ring = M.of(M.rail_order(ctx, ctx.channel, reverse))
      ctx.memo[key] = ring
    end
    return ring
  end
  local key = ctx.nranks * 2 + (reverse and 1 or 0)
  local ring = made[key]
  if not ring then
    ring = M.of(M.node_order(ctx), { reverse = reverse })
    made[key] = ring
  end
  return ring
end

-- The rank at position i (any integer: taken modulo the ring's length).
function Ring:at(i)
  return self.ranks[i % self.n + 1]
end

-- The position (0-based) of rank r, or nil when r is not on the ring.
function Ring:position(r)
  return self.pos[r]
end

-- The rank after r, and the rank before it.
function Ring:next(r)
  return self:at(self.pos[r] + 1)
end

function Ring:prev(r)
  return self:at(self.pos[r] - 1)
end

-- Ring phases over any ring, the building blocks of scripts that compose
-- rings (hybrid.lua; algos/ring.lua spells the same steps out for the
-- reader). Each works on the ring's ranks alone; chunk(i) maps the ring's i-th piece
-- (0 .. n-1) to a buffer chunk, and
-- `src` is the buffer the rank's own data sits in (IN, or OUT when an
-- earlier phase left partial results there).

-- Reduce-scatter: position p ends with piece p reduced over the ring, in
-- OUT. Every piece starts at the position
-- after its owner and travels around: the middle hops forward partial sums
-- without writing them.
function M.reduce_scatter(ctx, ring, src, chunk)
  local n, p = ring.n, ring:position(ctx.rank)
  local prev, next = ring:at(p - 1), ring:at(p + 1)
  if n == 1 then
    if src ~= OUT then ctx:copy(src, chunk(0), OUT, chunk(0)) end
    return
  end
  ctx:send(next, src, chunk((p - 1) % n))
  for s = 1, n - 2 do
    ctx:recv_reduce_send(prev, next, src, chunk((p - 1 - s) % n))
  end
  ctx:recv_reduce(prev, src, chunk(p), OUT, chunk(p))
end

-- Allgather: position p holds piece p in OUT; every position ends with
-- every piece in OUT.
function M.allgather(ctx, ring, chunk)
  local n, p = ring.n, ring:position(ctx.rank)
  if n == 1 then return end
  local prev, next = ring:at(p - 1), ring:at(p + 1)
  ctx:send(next, OUT, chunk(p))
  for t = 1, n - 2 do
    ctx:recv_copy_send(prev, next, OUT, chunk((p - t) % n))
  end
  ctx:recv(prev, OUT, chunk((p + 1) % n))
end

-- Allreduce of n pieces: reduce-scatter, then allgather, with the step
-- between them fused (the last reduction is written and forwarded at once).
-- Position p ends the reduce-scatter owning piece p + 1.
function M.allreduce(ctx, ring, src, chunk)
  local n, p = ring.n, ring:position(ctx.rank)
  local prev, next = ring:at(p - 1), ring:at(p + 1)
  if n == 1 then
    if src ~= OUT then ctx:copy(src, chunk(0), OUT, chunk(0)) end
    return
  end
  ctx:send(next, src, chunk(p))
  for s = 1, n - 2 do
    ctx:recv_reduce_send(prev, next, src, chunk((p - s) % n))
  end
  local own = chunk((p + 1) % n)
  ctx:recv_reduce_copy_send(prev, next, src, own, OUT, own)
  for t = 1, n - 2 do
    ctx:recv_copy_send(prev, next, OUT, chunk((p + 1 - t) % n))
  end
  ctx:recv(prev, OUT, chunk((p + 2) % n))
end

return M
