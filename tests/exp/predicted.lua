-- predicted.lua -- for exp_predicted_only.sh: a predicted-only experiment
-- (testbed none), ring and tree on two DGX-style nodes, whose crossing is
-- predicted but has nothing measured to be held against.
return {
  name = "predicted",
  description = "Test-suite experiment: predictions only.",
  testbed = "none",
  topology = "dgx-cluster.lua",
  runs = {
    { collective = "allreduce", algo = "ring", ranks = 16, channels = 8, set = "nodes=2" },
    { collective = "allreduce", algo = "tree", ranks = 16, channels = 8, set = "nodes=2" },
  },
  min = "1M", max = "64M", factor = 4,
}
