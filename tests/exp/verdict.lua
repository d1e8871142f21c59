-- verdict.lua -- for exp_verdict.sh: ring and tree on 2 local ranks, with
-- the targets the test passes in through `set`-free fields below. The test
-- copies this file and rewrites TARGET_LARGE / TARGET_SMALL.
return {
  name = "verdict",
  description = "Test-suite experiment: the verdict follows the targets.",
  testbed = "local",
  topology = "local-cpu.lua",
  algos = { "ring", "tree" },
  ranks = { 2 },
  min = "4K", max = "1M", factor = 16,
  warmup = 1, iters = 2, repeats = 3,
  targets = { large = TARGET_LARGE, small = TARGET_SMALL },
  crossover_ratio = 1000,
}
