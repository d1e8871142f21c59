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
