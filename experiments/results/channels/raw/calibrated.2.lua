-- Calibrated topology, written by `chorus calibrate` on 2026-12-08 02:53:18 UTC.
-- machine: vm, Intel(R) Xeon(R) Processor; 2 ranks on 1 hosts; kernels avx512
-- command: chorus calibrate -n 2 --topo local-cpu.lua --out /tmp/xf/out5-channels/raw/calibrated.2.lua
-- base: /tmp/xf/topologies/local-cpu.lua
-- calib_set: shm ping-pong 8 B-64 MiB, copy and reduce kernels, 1-rank 8 B call, ring broadcast and reduce of 0.25 1 4 256 MiB on 2 ranks, the copy kernel by working set (no allreduce, allgather or reduce-scatter)
-- warning: shm ping-pong fit is poor (R^2 0.936, a size missed by 21.9%; limits 0.90 and 20%): step_lat (its alpha) is uncertain
--
-- How it works: a topology script cannot read another file (the sandbox only
-- lets it require topologies/lib modules), so the base is copied below verbatim,
-- after a local `param` that shadows the loader's: a name in `calibrated` gets
-- its calibrated value as the default; --set still wins over it. A name the
-- base does not read has no effect (marked 'not read by the base').
--
-- Fit quality (t = alpha + size / bw per link class; weights 1/t^2; 95% CIs):
--   shm (rank 0 <-> 1), two pieces: alpha 0.369 us +- 0.028, bw 11.150 GB/s +- 2.452, R^2 0.93612, max residual 21.90%, break near 1448 B
--   copy kernel 10.018 GB/s [9.894, 10.089], 502 MiB buffers on all ranks at once (mem_bw below)
--   shm ping-pong bandwidth 11.150 GB/s +- 2.452 (a cross-check of the memory model; not written)
--   allreduce 8 B on 2 ranks (ring): 0.867 us [0.824, 0.888]
--   sizes 8..67108864 B (24), 5 repeats, medians with bootstrap CIs (seeded MT19937)

local calibrated = {
  copy_bw       = "16.24GB/s", -- the model's rate for the ring broadcast measured (256 KiB, in the private caches; kernel in the cache 48.99)
  copy_local_bw = "48.99GB/s", -- copy kernel in the cache, all ranks at once, [47.057, 49.742] GB/s
  reduce_bw     = "10.86GB/s", -- the model's rate for the ring reduce measured (256 KiB, in the private caches; kernel in the cache 37.15)
  mem_bw        = "15.79GB/s", -- the model's memory for the ring broadcast 15.18 and reduce 16.43 of 256 MiB (2 x copy kernel x 2 ranks 40.07)
  llc           = "90.51MiB", -- where the copy kernel, all 2 ranks of the machine at once, leaves its last cache level (working set of the machine / 1 hosts; sysfs says 480 MiB)
  cache         = "5.657MiB", -- where the copy kernel, all 2 ranks of the machine at once, leaves the private caches (working set of the machine / 1 hosts)
  llc_bw        = "37.07GB/s", -- the model's last-level cache for the ring broadcast 40.39 and reduce 34.02 of 4096 KiB (2 x copy kernel there x 2 ranks 56.91)
  op_overhead   = "0.1665us", -- 8-byte allreduce on one rank, [0.164, 0.167] us
  step_lat      = "0.2023us", -- shm alpha - op_overhead
  step_extra    = "8B:0.0147us 16B:0.0174us 32B:0us 64B:0us 128B:0.0804us 256B:0.0839us 512B:0.115us 1024B:0.316us 2048B:0.61us 4096B:0.352us 8192B:0.575us 16384B:0.33us 32768B:0.246us", -- a step's latency by size beyond step_lat: shm ping-pong of one step - op_overhead - step_lat - 2 copies at copy_bw (at most 0.610 us)
  wake_lat      = "7.778us", -- 2 ranks on one CPU: 8 B half round trip 8.147 us [8.121, 8.168] - shm alpha
}

local loader_param = param
-- A calibrated value replaces a string default (quantities with units); a
-- numeric or boolean default is the base's own.
local function param(name, default)
  local v = calibrated[name]
  if v ~= nil and type(default) == "string" then return loader_param(name, v) end
  return loader_param(name, default)
end

-- ---- the base topology, /tmp/xf/topologies/local-cpu.lua, verbatim ----
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
-- cache), `llc` the last-level cache in front of it; `cache` the cores'
-- private caches in front of the llc (all together) and `llc_bw` the rate
-- of the llc for a working set past them (default "": the llc is no limit,
-- one level; `chorus calibrate` measures both where the copy kernel shows
-- three levels). With more ranks than
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
  mem_bw = param("mem_bw", "50GB/s"), llc = param("llc", "32MiB"), cache = param("cache", ""),
  llc_bw = param("llc_bw", ""),
  numa_bw = param("numa_bw", "20GB/s"), numa_lat = param("numa_lat", "0.1us"),
  socket_bw = param("socket_bw", "10GB/s"), socket_lat = param("socket_lat", "0.2us"),
  copy_bw = param("copy_bw", "32GB/s"), copy_local_bw = param("copy_local_bw", "100GB/s"),
  reduce_bw = param("reduce_bw", "23GB/s"), op_overhead = param("op_overhead", "0.2us"),
  step_lat = param("step_lat", "0.7us"), wake_lat = param("wake_lat", "12us"),
  step_extra = param("step_extra", ""),
}
