-- local-cpu.lua -- this development machine as the CPU engine uses it:
-- `ranks` processes (default 2, its vCPU count) exchanging through shared
-- memory. Each rank's path to the shared segment is the one-thread copy
-- rate, and its reductions the one-thread add rate, both measured here
-- (BENCHMARKS.md, "Kernels and memory bandwidth": DRAM copy ~29 GB/s
-- STREAM-counted = 14.5 GB/s copied, add ~33 GB/s counted = 11 GB/s of
-- result); the step latency is half the measured 1.4 us shared-memory
-- ping-pong (DOMAIN.md).
--
-- The machine's shape, as the engine's tuner passes it from hwloc: `cores`,
-- `numa` nodes and `packages` (defaults: a core for every rank on one NUMA
-- node). Ranks fill the NUMA nodes in order, one per core, as a launcher
-- that binds ranks to cores in order places them; ranks beyond the cores
-- share them, each getting its share of the copy and add rates. A step
-- between NUMA nodes crosses a `numa_bw` link inside a package and a
-- `socket_bw` one between packages (typical one-stream rates, not measured
-- here: calibrate a machine that has several nodes).
local n = param("ranks", 2)
local cores = param("cores", n)
local numa = param("numa", 1)
local packages = param("packages", 1)
if cores < 1 or numa < 1 or packages < 1 then error("cores, numa and packages must be at least 1") end
if numa > cores then numa = cores end
if packages > numa then packages = numa end

local share = (n + cores - 1) // cores
-- A rate divided among the ranks that share a core ("14.5GB/s" / 2 = "7.25GB/s").
local function per_rank(v)
  if share == 1 then return v end
  if type(v) == "number" then return v / share end
  local num, unit = tostring(v):match("^%s*([%d.]+)%s*(.-)%s*$")
  if not num then error("local-cpu: cannot divide the rate '" .. tostring(v) .. "'") end
  return string.format("%g%s", tonumber(num) / share, unit)
end

local per_node = (cores + numa - 1) // numa
local function package_of(node) return node * packages // numa end
for m = 0, numa - 1 do
  device { name = "numa" .. m, kind = "numa", host = "local" }
end
for a = 0, numa - 1 do
  for b = a + 1, numa - 1 do
    local same = package_of(a) == package_of(b)
    link { "numa" .. a, "numa" .. b,
           bw = same and param("numa_bw", "20GB/s") or param("socket_bw", "10GB/s"),
           lat = same and param("numa_lat", "0.1us") or param("socket_lat", "0.2us") }
  end
end
local copy_bw = per_rank(param("copy_bw", "14.5GB/s"))
for r = 0, n - 1 do
  local c = "core" .. r
  local node = (r % cores) // per_node
  device { name = c, kind = "core", host = "local", reduce_bw = per_rank(param("reduce_bw", "11GB/s")),
           copy_bw = copy_bw, op_overhead = param("op_overhead", "0.2us") }
  link { c, "numa" .. node, bw = copy_bw, lat = "0us" }
  rank(c)
end
protocol { "simple", latency = param("step_lat", "0.7us"), efficiency = 1.0 }
