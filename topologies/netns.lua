-- netns.lua -- the network-namespace testbed: `hosts` namespaces on this
-- machine, one rank each, each joined by a veth pair to one Linux bridge;
-- tc shapes every veth to `rate` and adds `delay`. Compute is this
-- machine's (see local-cpu.lua); the step latency is half the measured TCP
-- loopback round trip when spinning (11 us, DOMAIN.md).
local hosts = param("hosts", 4)
local rate, delay = param("rate", "10Gb/s"), param("delay", "20us")
device { name = "br0", kind = "switch" }
for i = 0, hosts - 1 do
  local h = "ns" .. i
  device { name = h, kind = "host", host = h, reduce_bw = "11GB/s", copy_bw = "14.5GB/s", op_overhead = "0.5us" }
  link { h, "br0", bw = rate, lat = delay }
  rank(h)
end
protocol { "simple", latency = param("step_lat", "5.5us"), efficiency = 1.0 }
