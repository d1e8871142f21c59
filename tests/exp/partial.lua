-- partial.lua -- for exp_verdict.sh: the second run cannot be measured (no
-- such algorithm); the first must still be measured, predicted and reported.
return {
  name = "partial",
  description = "Test-suite experiment: one run fails, the other is kept.",
  testbed = "local",
  topology = "local-cpu.lua",
  runs = { { algo = "ring", ranks = 2, label = "good" }, { algo = "nosuch", ranks = 2, label = "broken" } },
  min = "4K", max = "64K", factor = 4,
  warmup = 1, iters = 2, repeats = 2,
}
