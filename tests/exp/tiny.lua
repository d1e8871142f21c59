-- tiny.lua -- the smallest end-to-end experiment, for the test suite: two
-- algorithms on 2 local ranks, four sizes, one repeat.
return {
  name = "tiny",
  description = "Test-suite experiment: ring and tree allreduce on 2 local ranks.",
  testbed = "local",
  topology = "local-cpu.lua",
  algos = { "ring", "tree" },
  ranks = { 2 },
  min = "4K", max = "256K", factor = 4,
  warmup = 1, iters = 2, repeats = 2,
}
