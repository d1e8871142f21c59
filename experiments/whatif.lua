-- whatif.lua -- sizing without a cluster: ring, tree and hybrid allreduce of
-- 8 to 16,384 GPUs (1 to 2,048 DGX-H100-style hosts, 8 x 400 Gb/s NICs each
-- on a rail-optimised fat tree), with the tree 1:1 and 2:1 oversubscribed.
-- Predicted only (testbed none).
local runs = {}
for _, oversub in ipairs { 1, 2 } do
  for _, nodes in ipairs { 1, 4, 16, 64, 256, 1024, 2048 } do
    for _, algo in ipairs { "ring", "tree", "hybrid" } do
      -- Event mode replays every step; past 2,048 ranks only the ring's
      -- analytic form is affordable (chorus exp switches to it there).
      if algo == "ring" or nodes * 8 <= 2048 then
        runs[#runs + 1] = { collective = "allreduce", algo = algo, ranks = nodes * 8,
                            set = ("nodes=%d,oversub=%d"):format(nodes, oversub) }
      end
    end
  end
end
return {
  name = "whatif",
  description = "Predicted allreduce busbw from 8 to 16,384 GPUs on a rail-optimised fat tree, 1:1 and 2:1.",
  testbed = "none",
  topology = "dgx-cluster.lua",
  runs = runs,
  min = "1M", max = "1G", factor = 8,
}
