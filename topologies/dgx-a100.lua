-- dgx-a100.lua -- one 8-GPU host in the style of DGX A100: NVSwitch at 300
-- GB/s per direction, PCIe Gen4, 200 Gb/s NICs; links at datasheet rate x
-- efficiency (nvlink_eff, pcie_eff: lib/cluster.lua). Ranks 0..7 on GPUs 0..7.
local cluster = require "cluster"

local spec = cluster.gpus.a100
local h = cluster.nvswitch_host {
  name = "h0", gpus = 8, nvlink_bw = param("nvlink_bw", spec.nvlink_bw), pcie_bw = spec.pcie_bw,
  nic_bw = spec.nic_bw, reduce_bw = spec.reduce_bw, copy_bw = spec.copy_bw, op_overhead = spec.op_overhead,
  step_overhead = param("step_overhead", cluster.step_overhead), eff = { nvlink = param("nvlink_eff", spec.nvlink_eff), pcie = param("pcie_eff", cluster.efficiency.pcie) },
}
for _, g in ipairs(h.gpus) do rank(g) end
cluster.protocols("nvlink")
