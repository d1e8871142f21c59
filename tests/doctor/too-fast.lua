-- too-fast.lua -- this machine described 100x faster than it is: chorus
-- doctor --topo too-fast.lua must find the measured bandwidth far below it.
device { name = "numa0", kind = "numa", host = "local" }
for r = 0, 1 do
  device { name = "core" .. r, kind = "core", host = "local", reduce_bw = "2000GB/s", copy_bw = "2000GB/s",
           op_overhead = "0us" }
  link { "core" .. r, "numa0", bw = "2000GB/s", lat = "0us" }
  rank("core" .. r)
end
protocol { "simple", latency = "0us", efficiency = 1.0 }
