-- Calibrated topology, written by `chorus calibrate` on 2026-12-02 18:09:23 UTC.
-- machine: vm, AMD EPYC; 2 ranks on 1 hosts; kernels avx512
-- command: chorus calibrate -n 2 --topo local-cpu.lua --out /work/main/experiments/results/quickstart/calibrated.lua
-- base: /work/main/topologies/local-cpu.lua
--
-- How it works: a topology script cannot read another file (the sandbox only
-- lets it require topologies/lib modules), so the base is copied below verbatim,
-- after a local `param` that shadows the loader's: a name in `calibrated` gets
-- its calibrated value as the default; --set still wins over it. A name the
-- base does not read has no effect (marked 'not read by the base').
--
-- Fit quality (t = alpha + size / bw per link class; weights 1/t^2; 95% CIs):
--   shm (rank 0 <-> 1), two pieces: alpha 0.886 us +- 0.079, bw 26.208 GB/s +- 3.970, R^2 0.90878, max residual 26.74%, break near 92682 B
--   copy kernel 17.362 GB/s [16.144, 18.389] (cross-check; not written)
--   allreduce 8 B on 2 ranks (ring): 1.432 us [1.353, 1.477]
--   sizes 8..67108864 B (24), 5 repeats, medians with bootstrap CIs (seeded MT19937)

local calibrated = {
  copy_bw      = "26.21GB/s", -- shm ping-pong bandwidth, +- 3.970 GB/s
  reduce_bw    = "11.96GB/s", -- reduce kernel, all ranks at once, [6.365, 12.247] GB/s
  op_overhead  = "0.16us", -- 8-byte allreduce on one rank, [0.160, 0.160] us
  step_lat     = "0.7264us", -- shm alpha - op_overhead
}

local loader_param = param
-- A calibrated value replaces a string default (quantities with units); a
-- numeric or boolean default is the base's own.
local function param(name, default)
  local v = calibrated[name]
  if v ~= nil and type(default) == "string" then return loader_param(name, v) end
  return loader_param(name, default)
end

-- ---- the base topology, /work/main/topologies/local-cpu.lua, verbatim ----
-- local-cpu.lua -- this development machine as the CPU engine uses it:
-- `ranks` processes (default 2, its vCPU count) on one NUMA node,
-- exchanging through shared memory. Each rank's path to the shared segment
-- is the one-thread copy rate, and its reductions the one-thread add rate,
-- both measured here (BENCHMARKS.md, "Kernels and memory bandwidth": DRAM
-- copy ~29 GB/s STREAM-counted = 14.5 GB/s copied, add ~33 GB/s counted = 11
-- GB/s of result); the step latency is half the measured 1.4 us
-- shared-memory ping-pong (DOMAIN.md).
local n = param("ranks", 2)
device { name = "numa0", kind = "numa", host = "local" }
for r = 0, n - 1 do
  local c = "core" .. r
  device { name = c, kind = "core", host = "local", reduce_bw = param("reduce_bw", "11GB/s"),
           copy_bw = param("copy_bw", "14.5GB/s"), op_overhead = param("op_overhead", "0.2us") }
  link { c, "numa0", bw = param("copy_bw", "14.5GB/s"), lat = "0us" }
  rank(c)
end
protocol { "simple", latency = param("step_lat", "0.7us"), efficiency = 1.0 }
