-- quickstart.lua -- the main job's experiment: ring, tree and hybrid
-- allreduce over 2 local processes (shared memory), measured by chorus perf
-- and predicted by chorus sim on the topology of this machine, after a
-- calibration of that topology. About 15 seconds on 2 cores.
return {
  name = "quickstart",
  description = "Ring, tree and hybrid allreduce on 2 local ranks over shared memory: measured against predicted.",
  testbed = "local",
  topology = "local-cpu.lua",
  calibrate = true,
  collectives = { "allreduce" },
  algos = { "ring", "tree", "hybrid" },
  ranks = { 2 },
  channels = 1,
  min = "4K", max = "16M", factor = 4,
  warmup = 10, iters = 40, repeats = 5, -- interleaved; the median and its interquartile range are reported
}
