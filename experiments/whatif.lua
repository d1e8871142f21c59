-- whatif.lua -- sizing without a cluster: allreduce of 8 to 16,384 GPUs (1
-- to 2,048 DGX-H100-style hosts, 8 x 400 Gb/s NICs each, links at the
-- derated rates of topologies/lib/cluster.lua) on a rail-optimised fat tree
-- 1:1, 2:1 and 4:1 oversubscribed (hosts packed on the leaves, and spread
-- over them from 64 hosts), and "what if 2x the NICs, or faster
-- ones": 16 hosts with 4 or 8 NICs of 200, 400 or 800 Gb/s. Channels as
-- NCCL's search gives them (16 on 8 NICs, 8 on 4). Predicted only (testbed
-- none). Algorithms: the rail-aware ring and hybrid (from 64 and 256 hosts
-- by the analytic model, which replays one node for all: plan/fold.h;
-- test_sim holds it to the event model), NCCL's tree (nccltree: chains in
-- the nodes, double binary tree across them; all 16,384 GPUs packed, 2,048
-- spread), and NVLink SHARP (below). The trees' nodes differ (a root is not
-- a leaf), so they are replayed step by step.
-- Every size is predicted under the Simple protocol (chorus sim's default):
-- NCCL would pick LL or LL128 below a few MiB (published.lua predicts so,
-- with proto = "auto"), so the small sizes here are the Simple protocol's,
-- not NCCL's choice; auto would triple the experiment's time.
-- NVLink SHARP: nvls on one host (16 channels, NCCL's NVLS count on
-- Hopper), nvlstree (NVLS in each host, NCCL's tree across them) from 4 to
-- 256 hosts at every oversubscription and to 2,048 hosts (16,384 GPUs) at
-- 1:1 (about 8 minutes of event replay there).
local runs = {}
for _, oversub in ipairs { 1, 2, 4 } do
  for _, nodes in ipairs { 1, 4, 16, 64, 256, 1024, 2048 } do
    if nodes > 1 or oversub == 1 then
      local set = ("nodes=%d,oversub=%d"):format(nodes, oversub)
      runs[#runs + 1] = { algo = "ring", ranks = nodes * 8, set = set, model = nodes >= 64 and "analytic" or "event" }
      runs[#runs + 1] = { algo = "nccltree", ranks = nodes * 8, set = set, model = "event" }
      runs[#runs + 1] = { algo = "hybrid", ranks = nodes * 8, set = set, model = nodes >= 256 and "analytic" or "event" }
      if nodes == 1 then runs[#runs + 1] = { algo = "nvls", ranks = 8, set = set, channels = 16 } end
      if nodes > 1 and (nodes <= 256 or oversub == 1) then
        runs[#runs + 1] = { algo = "nvlstree", ranks = nodes * 8, set = set, model = "event" }
      end
    end
  end
end
-- Jobs scattered over the leaves (placement = spread: consecutive hosts on
-- different leaves, as a busy scheduler leaves them): a rail's traffic then
-- crosses the spines, and oversubscription starts to count.
for _, oversub in ipairs { 1, 2, 4 } do
  for _, nodes in ipairs { 64, 256, 1024, 2048 } do
    local set = ("nodes=%d,oversub=%d,placement=spread"):format(nodes, oversub)
    runs[#runs + 1] = { algo = "ring", ranks = nodes * 8, set = set, model = "analytic" }
    if nodes <= 256 then runs[#runs + 1] = { algo = "nccltree", ranks = nodes * 8, set = set, model = "event" } end
  end
end
for _, nics in ipairs { 4, 8 } do
  for _, bw in ipairs { "200Gb/s", "400Gb/s", "800Gb/s" } do
    local set = ("nodes=16,nics=%d,nic_bw=%s"):format(nics, bw)
    runs[#runs + 1] = { algo = "ring", ranks = 128, set = set }
    runs[#runs + 1] = { algo = "nccltree", ranks = 128, set = set }
  end
end
return {
  name = "whatif",
  description = "Predicted allreduce busbw from 8 to 16,384 GPUs on a rail-optimised fat tree, 1:1, 2:1 and 4:1 "
    .. "(hosts packed and spread), "
    .. "and 16 nodes with 4 or 8 NICs of 200, 400 or 800 Gb/s; channels as NCCL's search gives them.",
  testbed = "none",
  topology = "dgx-cluster.lua",
  channels = 0,
  runs = runs,
  min = "1M", max = "256M", factor = 4,
}
