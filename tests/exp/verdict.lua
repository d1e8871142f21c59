-- verdict.lua -- for exp_verdict.sh: ring and hybrid on 2 local ranks. The
-- test copies this file with TARGET_LARGE and TARGET_SMALL replaced by
-- targets nobody can miss (1e6) or meet (0).
return {
  name = "verdict",
  description = "Test-suite experiment: the verdict follows the targets.",
  testbed = "local",
  topology = "local-cpu.lua",
  algos = { "ring", "hybrid" }, -- one schedule on one node: no crossing to judge
  ranks = { 2 },
  min = "4K", max = "1M", factor = 16,
  warmup = 1, iters = 2, repeats = 3,
  targets = { large = TARGET_LARGE, small = TARGET_SMALL },
}
