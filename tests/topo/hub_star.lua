-- hub_star.lua -- four hosts on one switch that reduces (a hub): every
-- link 1 GB/s per direction and 1 us, the switch's reductions 1 GB/s.
-- With tests/algos/hub_sum.lua and one step per chunk, a 64 KiB allreduce
-- takes 2 x (65.536 + 1) us on the wire plus 3 x 65.536 us of reduction
-- in the switch (the first input is copied, free): 329.680 us.
-- Its Simple protocol takes its costs from --set: a step to or from a hub
-- pays neither latency nor overhead, and a call with hubs pays hub_latency
-- instead of base (sim/topo.h).
protocol { "simple", latency = param("step_lat", "0us"), overhead = param("overhead", "0us"),
           base = param("base", "0us"), hub_latency = param("hub_latency", "0us") }
device { name = "sw", kind = "switch", reduce_bw = "1GB/s" }
hub "sw"
for i = 0, 3 do
  device { name = "h" .. i, kind = "host" }
  link { "h" .. i, "sw", bw = "1GB/s", lat = "1us" }
  rank("h" .. i)
end
