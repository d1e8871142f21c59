-- pcie-8gpu.lua -- an 8-GPU host without NVLink: four GPUs on each of two
-- PCIe Gen4 switches (25 GB/s per direction), the switches on one CPU, so
-- traffic between the halves crosses the CPU. Ranks 0..7 on GPUs 0..7.
local cluster = require "cluster"

local h = cluster.pcie_host {
  name = "h0", gpus = 8, switches = 2, pcie_bw = param("pcie_bw", "25GB/s"), nic_bw = "100Gb/s",
  reduce_bw = cluster.gpus.a100.reduce_bw, copy_bw = cluster.gpus.a100.copy_bw, op_overhead = "0.1us",
}
for _, g in ipairs(h.gpus) do rank(g) end
cluster.protocols("pcie")
