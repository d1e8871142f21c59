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
