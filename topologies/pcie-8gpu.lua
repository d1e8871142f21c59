-- pcie-8gpu.lua -- a GPU host without NVLink: `gpus` GPUs (default 8) on
-- `switches` PCIe switches (default 2, so traffic between the halves
-- crosses the CPU), at pcie_bw per direction (default Gen4 x16, 32 GB/s) x
-- pcie_eff (lib/cluster.lua). p2p = false (consumer GPUs, or peer-to-peer
-- off): every transfer is staged through the CPU's memory, at mem_bw per
-- socket (default 8 channels of DDR5-4800, 307.2 GB/s) x mem_eff. sockets =
-- 2: a two-socket box, half the switches on each, joined at socket_bw.
-- Ranks 0..gpus-1.
local cluster = require "cluster"

local h = cluster.pcie_host {
  name = "h0", gpus = param("gpus", 8), switches = param("switches", 2), pcie_bw = param("pcie_bw", "32GB/s"),
  nic_bw = "100Gb/s", reduce_bw = param("reduce_bw", cluster.gpus.a100.reduce_bw),
  copy_bw = param("copy_bw", cluster.gpus.a100.copy_bw), op_overhead = "0.1us", p2p = param("p2p", true),
  step_overhead = param("step_overhead", cluster.step_overhead), sockets = param("sockets", 1),
  socket_bw = param("socket_bw", "64GB/s"), mem_bw = param("mem_bw", "307.2GB/s"),
  eff = { pcie = param("pcie_eff", cluster.efficiency.pcie), mem = param("mem_eff", cluster.efficiency.mem) },
}
for _, g in ipairs(h.gpus) do rank(g) end
cluster.protocols("pcie")
