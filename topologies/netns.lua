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
local copy_bw, reduce_bw = param("copy_bw", "40GB/s"), param("reduce_bw", "22GB/s")
-- The hosts share this machine's memory and cache: each gets its share of
-- them (`chorus calibrate` measures the share with every rank busy at once).
local function share(v)
  local num, unit = tostring(v):match("^%s*([%d.]+)%s*(.-)%s*$")
  return string.format("%g%s", tonumber(num) / hosts, unit)
end
local mem_bw, llc = param("mem_bw", share("27GB/s")), param("llc", share("32MiB"))
local op_overhead = param("op_overhead", "0.5us")
device { name = "br0", kind = "switch" }
for i = 0, hosts - 1 do
  local h = "ns" .. i
  device { name = h, kind = "numa", host = h, mem_bw = mem_bw, llc = llc }
  link { h, "br0", bw = rate, lat = delay }
  for c = 0, ppn - 1 do
    local core = h .. "c" .. c
    device { name = core, kind = "core", host = h, reduce_bw = reduce_bw, copy_bw = copy_bw,
             op_overhead = op_overhead, mem = h }
    link { core, h, bw = copy_bw, lat = "0us" }
    rank(core)
  end
end
protocol { "simple", latency = param("step_lat", "0.7us"), efficiency = 1.0 }
