-- local.lua -- every allreduce algorithm on 2 and 4 local processes over
-- shared memory (4 ranks oversubscribe the 2 cores of the development
-- machine: that is part of what is measured), predicted on local-cpu.lua.
return {
  name = "local",
  description = "Allreduce algorithms (ring, tree, hybrid, rd, rhd) on 2 and 4 local ranks over shared memory.",
  testbed = "local",
  topology = "local-cpu.lua",
  calibrate = true,
  collectives = { "allreduce" },
  algos = { "ring", "tree", "hybrid", "rd", "rhd" },
  ranks = { 2, 4 },
  channels = 1,
  min = "1K", max = "64M", factor = 4,
  warmup = 3, iters = 10, repeats = 5,
}
