-- cpu.lua -- a CPU host as the CPU engine uses it (local-cpu.lua, and the
-- files `chorus topo detect` writes): o.ranks processes on o.cores cores of
-- o.numa NUMA nodes in o.packages packages, exchanging through shared
-- memory, each rank's thread doing its own copies and reductions (sim.h, the
-- memory model). The caller reads every rate with param() in its own file,
-- so that `chorus calibrate --topo FILE` can replace their defaults.
--   o.copy_bw        a copy between cores (into a peer's slot, out of its own)
--   o.copy_local_bw  a copy between a rank's own buffers
--   o.reduce_bw      a reduction (bytes of result)
--   o.mem_bw, o.llc  each NUMA node's memory (read plus write, STREAM-counted)
--                    and the last-level cache in front of it
--   o.cache, o.llc_bw  the cores' private caches in front of the llc (all
--                    together) and the llc's rate for a working set past
--                    them (nil or "" for none: the llc is no limit)
--   o.numa_bw, o.numa_lat, o.socket_bw, o.socket_lat  links between NUMA
--                    nodes inside a package and between packages
--   o.op_overhead, o.step_lat, o.wake_lat  per op, per step, and per step
--                    that waits for its peer to be scheduled (more threads
--                    than cores)
--   o.channels       the channels each rank runs, a thread each (default
--                    1): ranks x channels threads share the cores
--   o.step_extra     a step's latency by size on top of step_lat
--                    ("SIZE:TIME SIZE:TIME ...", the protocol's latency_by_size; nil or
--                    "" for none)
-- Ranks fill the NUMA nodes in order, one per core, as a launcher that binds
-- ranks to cores in order places them; ranks beyond the cores share them,
-- each getting its share of the copy and add rates.
local quantity = require "quantity"

local M = {}

function M.host(o)
  local n, cores, numa, packages = o.ranks, o.cores, o.numa, o.packages
  local channels = o.channels or 1
  if cores < 1 or numa < 1 or packages < 1 then error("cores, numa and packages must be at least 1", 2) end
  if channels < 1 then error("channels must be at least 1", 2) end
  if numa > cores then numa = cores end
  if packages > numa then packages = numa end
  -- Every channel of a rank is a thread of its own: ranks x channels
  -- threads share the cores.
  local share = math.max(1, (n * channels + cores - 1) // cores)
  -- A rate divided among the threads that share a core ("14.5GB/s" / 2 = "7.25GB/s").
  local function per_rank(v) return quantity.divide(v, share, "cpu.host") end
  local per_node = (cores + numa - 1) // numa
  local function package_of(node) return node * packages // numa end
  for m = 0, numa - 1 do
    local cache = o.cache ~= "" and o.cache or nil
    local llc_bw = o.llc_bw ~= "" and o.llc_bw or nil
    device { name = "numa" .. m, kind = "numa", host = "local", mem_bw = o.mem_bw, llc = o.llc, cache = cache,
             llc_bw = llc_bw }
  end
  for a = 0, numa - 1 do
    for b = a + 1, numa - 1 do
      local same = package_of(a) == package_of(b)
      link { "numa" .. a, "numa" .. b, bw = same and o.numa_bw or o.socket_bw, lat = same and o.numa_lat or o.socket_lat }
    end
  end
  local copy_bw, copy_local_bw = per_rank(o.copy_bw), per_rank(o.copy_local_bw)
  -- A rank of several channels hands each call to its workers and waits
  -- for them (engine/exec.c, run_channels): where the threads outnumber
  -- the cores, each hand-over waits for a thread to be scheduled, as a step
  -- does (wake_lat); on free cores the workers are still spinning.
  local channel_wake = (channels > 1 and share > 1) and o.wake_lat or "0us"
  for r = 0, n - 1 do
    local c = "core" .. r
    local node = (r % cores) // per_node
    device { name = c, kind = "core", host = "local", reduce_bw = per_rank(o.reduce_bw), copy_bw = copy_bw,
             copy_local_bw = copy_local_bw, op_overhead = o.op_overhead, mem = "numa" .. node,
             channel_wake = channel_wake }
    link { c, "numa" .. node, bw = copy_bw, lat = "0us" }
    rank(c)
  end
  local step_lat = o.step_lat
  if share > 1 then step_lat = quantity.add_times(step_lat, o.wake_lat, "cpu.host") end
  protocol { "simple", latency = step_lat, efficiency = 1.0, latency_by_size = o.step_extra }
end

return M
