-- netns-4g.lua -- 4 namespace hosts x 2 ranks (shared memory inside a
-- host, TCP between), every link shaped to 4 Gb/s by scripts/testbed;
-- ring, tree and hybrid allreduce, predicted on netns.lua. Needs root.
return {
  name = "netns-4g",
  description = "Allreduce on 4 namespace hosts x 2 ranks, links shaped to 4 Gb/s: ring, tree, hybrid, rd, rhd.",
  testbed = "netns", hosts = 4, ranks_per_host = 2, rate = "4Gb/s",
  topology = "netns.lua",
  calibrate = true,
  collectives = { "allreduce" },
  algos = { "ring", "tree", "hybrid", "rd", "rhd" },
  channels = 1,
  min = "4K", max = "16M", factor = 4,
  warmup = 1, iters = 5, repeats = 3,
}
