-- tiny-netns.lua -- 2 namespace hosts x 1 rank at 1 Gb/s, ring only, small
-- sizes: the testbed end to end, for the test suite (needs root).
return {
  name = "tiny-netns",
  testbed = "netns", hosts = 2, ranks_per_host = 1, rate = "1Gb/s",
  topology = "netns.lua",
  algos = { "ring" },
  min = "4K", max = "64K", factor = 4,
  warmup = 1, iters = 2, repeats = 1,
}
