-- Calibrated topology, written by `chorus calibrate` on 2026-12-07 18:24:51 UTC.
-- machine: vm, AMD EPYC; 2 ranks on 1 hosts; kernels avx512
-- command: chorus calibrate -n 2 --topo local-cpu.lua --out /tmp/exp2/quickstart/calibrated.lua
-- base: /work/main/topologies/local-cpu.lua
-- calib_set: shm ping-pong 8 B-64 MiB, copy and reduce kernels, 1-rank 8 B call, ring broadcast and reduce of 1 4 64 MiB on 2 ranks (no allreduce, allgather or reduce-scatter)
-- warning: shm ping-pong fit is poor (R^2 0.940, a size missed by 38.4%; limits 0.90 and 20%): step_lat (its alpha) is uncertain
--
-- How it works: a topology script cannot read another file (the sandbox only
-- lets it require topologies/lib modules), so the base is copied below verbatim,
-- after a local `param` that shadows the loader's: a name in `calibrated` gets
-- its calibrated value as the default; --set still wins over it. A name the
-- base does not read has no effect (marked 'not read by the base').
--
-- Fit quality (t = alpha + size / bw per link class; weights 1/t^2; 95% CIs):
--   shm (rank 0 <-> 1), two pieces: alpha 0.814 us +- 0.073, bw 17.441 GB/s +- 4.645, R^2 0.93950, max residual 38.41%, break near 370728 B
--   copy kernel 14.216 GB/s [13.142, 15.287], 64 MiB buffers on all ranks at once (mem_bw below)
--   shm ping-pong bandwidth 17.441 GB/s +- 4.645 (a cross-check of the memory model; not written)
--   allreduce 8 B on 2 ranks (ring): 1.322 us [1.303, 1.322]
--   sizes 8..67108864 B (24), 5 repeats, medians with bootstrap CIs (seeded MT19937)

local calibrated = {
  copy_bw       = "30.92GB/s", -- the model's rate for the ring broadcast measured (1024 KiB 30.28, 4096 KiB 31.58; kernel in the cache 97.19)
  copy_local_bw = "97.19GB/s", -- copy kernel in the cache, all ranks at once, [83.482, 108.103] GB/s
  reduce_bw     = "24.07GB/s", -- the model's rate for the ring reduce measured (1024 KiB 25.48, 4096 KiB 22.73; kernel in the cache 47.61)
  mem_bw        = "33.1GB/s", -- the model's memory for the ring broadcast 34.95 and reduce 31.35 of 64 MiB (2 x copy kernel x 2 ranks 56.86)
  op_overhead   = "0.16us", -- 8-byte allreduce on one rank, [0.160, 0.160] us
  step_lat      = "0.6539us", -- shm alpha - op_overhead
  step_extra    = "8B:0us 16B:0us 32B:0us 64B:0us 128B:0us 256B:0.0716us 512B:0.0773us 1024B:0.227us 2048B:0.344us 4096B:0.294us 8192B:0.372us 16384B:0.418us 32768B:0.313us", -- a step's latency by size beyond step_lat: shm ping-pong of one step - op_overhead - step_lat - 2 copies at copy_bw (at most 0.418 us)
  wake_lat      = "14.05us", -- 2 ranks on one CPU: 8 B half round trip 14.863 us [14.615, 14.903] - shm alpha
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
-- `ranks` processes (default 2, its vCPU count) exchanging through shared
-- memory. Each rank's thread does its own copies and reductions: a copy
-- between cores (into a peer's slot, out of its own) at `copy_bw`, a copy
-- between its own buffers at `copy_local_bw`, a reduction at `reduce_bw`
-- (bytes of result), and once the call's buffers pass the cache the ranks
-- share the memory's `mem_bw` (buffer bytes read and written). Defaults:
-- `chorus calibrate -n 2` on the 2-vCPU EPYC of 2026-12-03 18:05 UTC, whose
-- copy_bw, reduce_bw and mem_bw are the rates at which this model gives back
-- the engine's measured ring allgather and reduce-scatter (1-4 MiB, 64 MiB;
-- since 2026-12-06 `chorus calibrate` solves them on ring broadcast and
-- reduce instead, so that no validated collective calibrates itself)
-- and copy_local_bw the copy kernel in a core's cache; the step latency
-- the shm ping-pong's alpha less the op overhead.
--
-- The machine's shape, as the engine's tuner passes it from hwloc: `cores`,
-- `numa` nodes and `packages` (defaults: a core for every rank on one NUMA
-- node; `chorus topo detect` writes this machine's). A step between NUMA
-- nodes crosses a `numa_bw` link inside a package and a `socket_bw` one
-- between packages (typical one-stream rates, not measured here: calibrate
-- a machine that has several nodes)
-- (lib/cpu.lua builds it).
local cpu = require "cpu"

local n = param("ranks", 2)
-- Each NUMA node's memory: `mem_bw` is what all its cores together read and
-- write per second (STREAM-counted: 2 threads of `add`, arrays past the
-- cache), `llc` the last-level cache in front of it. With more ranks than
-- cores a step usually waits for its peer to be scheduled first: `wake_lat`
-- more (chorus calibrate measures it with two ranks on one CPU: 12-13 us on
-- 2026-12-03); each of a rank's `channels` is a thread of its own, and
-- ranks x channels threads share the cores (where they outnumber them,
-- handing each call to a rank's workers and back costs a wake_lat too). `step_extra`: what a step of a
-- given size costs on top of step_lat, as SIZE:TIME points (chorus
-- calibrate reads it off the shm ping-pong of one step: its time less
-- op_overhead, step_lat and the two copies); default none.
cpu.host {
  ranks = n, cores = param("cores", n), numa = param("numa", 1), packages = param("packages", 1),
  channels = param("channels", 1),
  mem_bw = param("mem_bw", "50GB/s"), llc = param("llc", "32MiB"),
  numa_bw = param("numa_bw", "20GB/s"), numa_lat = param("numa_lat", "0.1us"),
  socket_bw = param("socket_bw", "10GB/s"), socket_lat = param("socket_lat", "0.2us"),
  copy_bw = param("copy_bw", "32GB/s"), copy_local_bw = param("copy_local_bw", "100GB/s"),
  reduce_bw = param("reduce_bw", "23GB/s"), op_overhead = param("op_overhead", "0.2us"),
  step_lat = param("step_lat", "0.7us"), wake_lat = param("wake_lat", "12us"),
  step_extra = param("step_extra", ""),
}
