-- long-netns.lua -- a namespace experiment that runs for many seconds (ring
-- up to 64 MiB at 1 Gb/s), for the test that interrupts one.
return {
  name = "long-netns",
  testbed = "netns", hosts = 2, ranks_per_host = 1, rate = "1Gb/s",
  topology = "netns.lua",
  algos = { "ring", "tree" },
  min = "16M", max = "64M", factor = 2,
  warmup = 2, iters = 20, repeats = 3,
}
