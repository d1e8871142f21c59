-- bruck.lua -- Bruck's allgather and reduce-scatter in ceil(log2 n) steps,
-- the schedule NCCL's PAT (2.23+) builds on for one GPU per node at scale.
--
-- allgather: rank r holds blocks r .. r+d-1 (mod n) before the step of
-- distance d (1, 2, 4, ...); it sends them to rank r-d and receives blocks
-- r+d .. r+2d-1 from rank r+d (min(d, n-d) of them, so n in all): ceil(log2
-- n) steps where the ring takes n-1, each step's blocks sent and received
-- one by one, each send one block ahead of its receive (a connection holds
-- two chunks, so d sent before any is received would deadlock).
-- reducescatter: the same schedule transposed, the steps in reverse order:
-- at distance d rank q sends its partial sums of blocks q+d .. q+2d-1 to
-- rank q+d and adds the partial sums of blocks q .. q+d-1 that rank q-d
-- sends; partial sums live in SCRATCH until the last step writes block q's
-- total to OUT.
-- Any shape; the CPU engine runs it too. As NCCL's PAT aggregates a step's
-- blocks into one message as far as its buffer allows, a step here sends
-- up to `window` blocks before it receives any: each connection holds that
-- many chunks (plan.h window: min(8, the largest step), the engine's and
-- the simulator's 8 slots, a chunk then one step), so a step of d blocks
-- costs about d / 8 round trips, not d / 2 (64 hosts of one GPU, 1 KiB:
-- see BENCHMARKS.md); PAT's are log2 n, as its messages carry several
-- blocks each (not in the plan IR).

local function distances(n)
  local ds, d = {}, 1
  while d < n do
    ds[#ds + 1] = d
    d = d * 2
  end
  return ds
end

-- The most blocks a step moves: min(d, n - d) at its largest distance.
local function widest(n)
  local w = 0
  for _, d in ipairs(distances(n)) do w = math.max(w, math.min(d, n - d)) end
  return w
end

-- The chunks each connection holds (the script's window, below).
local function window(n) return math.max(2, math.min(8, widest(n))) end

-- One step: blocks 0 .. cnt-1 sent and received one by one, at most w sent
-- and not yet received (a connection holds w chunks; one more would
-- deadlock, every rank sending and none receiving).
local function step(w, cnt, send, recv)
  for i = 0, math.min(w - 1, cnt) - 1 do send(i) end
  for i = 0, cnt - 1 do
    if i + w - 1 < cnt then send(i + w - 1) end
    recv(i)
  end
end

local function allgather(ctx)
  local n, r = ctx.nranks, ctx.rank
  ctx:copy(IN, 0, OUT, r)
  for _, d in ipairs(distances(n)) do
    local to, from = (r - d) % n, (r + d) % n
    step(window(n), math.min(d, n - d), function(i) ctx:send(to, OUT, (r + i) % n) end,
      function(i) ctx:recv(from, OUT, (r + d + i) % n) end)
  end
end

local function reducescatter(ctx)
  local n, q = ctx.nranks, ctx.rank
  if n == 1 then
    ctx:copy(IN, 0, OUT, 0)
    return
  end
  local partial = {} -- block -> true once its partial sum sits in SCRATCH
  local ds = distances(n)
  for s = #ds, 1, -1 do
    local d = ds[s]
    local to, from = (q + d) % n, (q - d) % n
    step(window(n), math.min(d, n - d), function(i)
      local b = (q + d + i) % n
      ctx:send(to, partial[b] and SCRATCH or IN, b)
    end, function(i)
      local b = (q + i) % n
      local src = partial[b] and SCRATCH or IN
      if s == 1 and b == q then
        ctx:recv_reduce(from, src, b, OUT, 0) -- the last sum: this rank's block
      else
        ctx:recv_reduce(from, src, b, SCRATCH, b)
        partial[b] = true
      end
    end)
  end
end

return {
  name = "bruck",
  collectives = { "allgather", "reducescatter" },
  chunks = 1,
  window = function(ctx) return window(ctx.nranks) end,
  scratch = function(ctx) return ctx.collective == "reducescatter" and ctx.nranks or 0 end,
  program = function(ctx)
    if ctx.collective == "allgather" then allgather(ctx) else reducescatter(ctx) end
  end,
}
