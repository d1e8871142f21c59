-- dgx-h100.lua -- one NVSwitch GPU host in the style of DGX H100: every GPU
-- on one NVSwitch (gpu = "h100": 450 GB/s per direction; also a100, h800,
-- h200, b200), two GPUs and two NICs per PCIe switch, the switches on two
-- CPU sockets. Links at datasheet rate x efficiency (nvlink_eff, pcie_eff:
-- lib/cluster.lua). Ranks 0..gpus-1 on GPUs 0..gpus-1.
local cluster = require "cluster"

local gpu = param("gpu", "h100")
local spec = cluster.gpus[gpu] or error("gpu is b200, h200, h100, h800 or a100, not " .. gpu)
local h = cluster.nvswitch_host {
  name = "h0", gpus = param("gpus", 8), nvlink_bw = param("nvlink_bw", spec.nvlink_bw),
  pcie_bw = param("pcie_bw", spec.pcie_bw), nic_bw = spec.nic_bw, nvls = spec.nvls, reduce_bw = param("reduce_bw", spec.reduce_bw),
  copy_bw = param("copy_bw", spec.copy_bw), op_overhead = spec.op_overhead, step_overhead = param("step_overhead", cluster.step_overhead),
  eff = { nvlink = param("nvlink_eff", spec.nvlink_eff), pcie = param("pcie_eff", cluster.efficiency.pcie) },
}
for _, g in ipairs(h.gpus) do rank(g) end
cluster.protocols("nvlink")
