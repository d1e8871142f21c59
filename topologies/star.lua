-- star.lua -- N endpoints, one rank each, each joined to a single switch by
-- one full-duplex link: the uniform cluster of the alpha-beta model. With
-- the defaults (no compute costs, no protocol latency), a ring allreduce of S
-- bytes takes 2(n-1)(2*lat + S/(n*bw)) without pipelining; the simulator's
-- tests and the SimGrid comparison use it.
local cluster = require "cluster"

cluster.star {
  nodes = param("nodes", 8),
  bw = param("bw", "25GB/s"),
  lat = param("lat", "1us"),
  duplex = param("duplex", "full"),
  reduce_bw = param("reduce_bw", "0GB/s"),
  copy_bw = param("copy_bw", "0GB/s"),
  op_overhead = param("op_overhead", "0us"),
  step_overhead = param("step_overhead", "0us"),
  ranks_per_node = param("ranks_per_node", 1),
  switch_bw = param("switch_bw", "0GB/s"),
}
-- overhead, base: the Simple protocol's per-step overhead and per-call base
-- (topologies/README.md, protocol{}); LL and LL128 keep the defaults (free
-- of both, at 0.5 and 120/128 of the payload per byte) for chorus sim -p
-- auto to choose between.
protocol { "simple", latency = param("step_lat", "0us"), efficiency = 1.0, overhead = param("overhead", "0us"),
           base = param("base", "0us") }
