-- netns.lua -- the network-namespace testbed of scripts/testbed: `hosts`
-- namespaces on this machine, `ppn` ranks in each, every namespace joined
-- by a veth pair to one Linux bridge; tc tbf shapes both directions of each
-- veth to `rate`. Inside a namespace ranks exchange through shared memory
-- (each rank's thread copies, at one thread's rates, sharing the memory: the
-- memory model of local-cpu.lua); between namespaces through TCP, whose per-step cost is
-- the link latency `delay` on each of the two links a step crosses (half
-- the measured TCP loopback round trip when spinning, 11 us, split over the
-- two hops). `chorus calibrate` fits these on the real testbed.
local hosts = param("hosts", 4)
local ppn = param("ppn", 1)
local rate, delay = param("rate", "10Gb/s"), param("delay", "2.75us")
-- The hosts share this machine's memory, cache and `cores`: each host gets
-- its share of the memory and cache (`chorus calibrate` measures the share
-- with every rank busy at once); with more ranks than cores the ranks share
-- the cores' rates and a step waits `wake_lat` for its peer to be scheduled,
-- as in local-cpu.lua (chorus exp passes this machine's CPU count).
local cores = param("cores", hosts * ppn)
if cores < 1 then error("cores must be at least 1") end
local quantity = require "quantity"
local function scaled(v, by) return quantity.divide(v, by, "netns") end
local ranks_per_core = (hosts * ppn + cores - 1) // cores
local copy_bw = scaled(param("copy_bw", "32GB/s"), ranks_per_core)
local copy_local_bw = scaled(param("copy_local_bw", "100GB/s"), ranks_per_core)
local reduce_bw = scaled(param("reduce_bw", "23GB/s"), ranks_per_core)
local mem_bw, llc = param("mem_bw", scaled("50GB/s", hosts)), param("llc", scaled("32MiB", hosts))
-- Each host's share of the cores' private caches and of the llc's rate past
-- them (local-cpu.lua; "": the llc is no limit).
local cache, llc_bw = param("cache", ""), param("llc_bw", "")
local op_overhead = param("op_overhead", "0.5us")
-- Socket traffic costs the machine's cores too: the kernel's TCP/IP and
-- veth work for every byte a host sends and receives, and the engine's
-- socket proxies. `sock_bw` is what the cores move that way per second, both
-- directions together, shared by the hosts: each host's traffic crosses a
-- half-duplex link of its share on its way to its veth. `chorus calibrate`
-- solves it on the engine's ring broadcast over all hosts; unset ("", the
-- default), the cores are no limit.
local sock_bw = param("sock_bw", "")
device { name = "br0", kind = "switch" }
for i = 0, hosts - 1 do
  local h = "ns" .. i
  device { name = h, kind = "numa", host = h, mem_bw = mem_bw, llc = llc, cache = cache ~= "" and cache or nil,
           llc_bw = llc_bw ~= "" and llc_bw or nil }
  if sock_bw ~= "" then
    local k = h .. "tcp"
    device { name = k, kind = "nic", host = h }
    link { h, k, bw = scaled(sock_bw, hosts), lat = "0us", duplex = "half" }
    link { k, "br0", bw = rate, lat = delay }
  else
    link { h, "br0", bw = rate, lat = delay }
  end
  for c = 0, ppn - 1 do
    local core = h .. "c" .. c
    device { name = core, kind = "core", host = h, reduce_bw = reduce_bw, copy_bw = copy_bw,
             copy_local_bw = copy_local_bw, op_overhead = op_overhead, mem = h }
    link { core, h, bw = copy_bw, lat = "0us" }
    rank(core)
  end
end
local step_lat, wake_lat = param("step_lat", "0.7us"), param("wake_lat", "12us")
if ranks_per_core > 1 then step_lat = quantity.add_times(step_lat, wake_lat, "netns") end
protocol { "simple", latency = step_lat, efficiency = 1.0 }
