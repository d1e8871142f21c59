-- netns.lua -- the network-namespace testbed of scripts/testbed: `hosts`
-- namespaces on this machine, `ppn` ranks in each, every namespace joined
-- by a veth pair to one Linux bridge; tc tbf shapes both directions of each
-- veth to `rate`. Inside a namespace ranks exchange through shared memory
-- (each rank's path to the segment is the one-thread copy rate, as in
-- local-cpu.lua); between namespaces through TCP, whose per-step cost is
-- the link latency `delay` on each of the two links a step crosses (half
-- the measured TCP loopback round trip when spinning, 11 us, split over the
-- two hops). `chorus calibrate` fits these on the real testbed.
local hosts = param("hosts", 4)
local ppn = param("ppn", 1)
local rate, delay = param("rate", "10Gb/s"), param("delay", "2.75us")
local copy_bw, reduce_bw = param("copy_bw", "14.5GB/s"), param("reduce_bw", "11GB/s")
local op_overhead = param("op_overhead", "0.5us")
device { name = "br0", kind = "switch" }
for i = 0, hosts - 1 do
  local h = "ns" .. i
  device { name = h, kind = "numa", host = h }
  link { h, "br0", bw = rate, lat = delay }
  for c = 0, ppn - 1 do
    local core = h .. "c" .. c
    device { name = core, kind = "core", host = h, reduce_bw = reduce_bw, copy_bw = copy_bw,
             op_overhead = op_overhead }
    link { core, h, bw = copy_bw, lat = "0us" }
    rank(core)
  end
end
protocol { "simple", latency = param("step_lat", "0.7us"), efficiency = 1.0 }
