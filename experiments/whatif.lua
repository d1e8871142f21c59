-- whatif.lua -- sizing without a cluster: ring, tree and hybrid allreduce of
-- 8 to 16,384 GPUs (1 to 2,048 DGX-H100-style hosts, 8 x 400 Gb/s NICs each
-- on a rail-optimised fat tree), with the tree 1:1 and 2:1 oversubscribed.
-- 8 channels, one per NIC rail, as NCCL runs such a machine. Predicted only
-- (testbed none). Event mode replays every step; the ring from 512 GPUs up
-- uses its analytic form (agreement with event mode is a test), and tree
-- and hybrid stop at 128 GPUs (with 8 channels event mode takes minutes beyond).
local runs = {}
for _, oversub in ipairs { 1, 2 } do
  for _, nodes in ipairs { 1, 4, 16, 64, 256, 1024, 2048 } do
    for _, algo in ipairs { "ring", "tree", "hybrid" } do
      local set = ("nodes=%d,oversub=%d"):format(nodes, oversub)
      if algo == "ring" then
        runs[#runs + 1] = { collective = "allreduce", algo = algo, ranks = nodes * 8, channels = 8, set = set,
                            model = nodes >= 64 and "analytic" or "event" }
      elseif nodes <= 16 then
        runs[#runs + 1] = { collective = "allreduce", algo = algo, ranks = nodes * 8, channels = 8, set = set }
      end
    end
  end
end
return {
  name = "whatif",
  description = "Predicted allreduce busbw from 8 to 16,384 GPUs on a rail-optimised fat tree, 1:1 and 2:1, 8 channels.",
  testbed = "none",
  topology = "dgx-cluster.lua",
  runs = runs,
  min = "1M", max = "256M", factor = 4,
}
