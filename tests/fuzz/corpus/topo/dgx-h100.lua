-- dgx-h100.lua -- one 8-GPU host in the style of DGX H100: every GPU on one
-- NVSwitch at 450 GB/s per direction, two GPUs and two 400 Gb/s NICs per
-- PCIe Gen5 switch, the switches on two CPU sockets. Ranks 0..7 on GPUs 0..7.
local cluster = require "cluster"

local spec = cluster.gpus[param("gpu", "h100")] or error("gpu is h100 or a100")
local h = cluster.nvswitch_host {
  name = "h0", gpus = param("gpus", 8), nvlink_bw = param("nvlink_bw", spec.nvlink_bw),
  pcie_bw = param("pcie_bw", spec.pcie_bw), nic_bw = spec.nic_bw, reduce_bw = spec.reduce_bw,
  copy_bw = spec.copy_bw, op_overhead = spec.op_overhead,
}
for _, g in ipairs(h.gpus) do rank(g) end
cluster.protocols("nvlink")
