-- dgx-cluster.lua -- `nodes` NVSwitch GPU hosts (gpu = "h100"; also a100,
-- h800, h200, b200; `gpus` per host, default 8) with `nics` NICs each
-- (default one per GPU; 4 on 8 GPUs puts one on every PCIe switch) on a
-- rail-optimised two-tier fat tree: NIC i of every host on rail i's leaves
-- (leaf_ports hosts per leaf), every leaf with leaf_ports / oversub uplinks
-- to the shared spines; sharp = true makes each rail's leaf reduce (SHARP,
-- algos/collnet.lua; one leaf per rail). Links at datasheet rate x efficiency (nvlink_eff,
-- pcie_eff, net_eff: lib/cluster.lua). Ranks are numbered host by host.
--   chorus sim allreduce --topo dgx-cluster --set nodes=128,nic_bw=400Gb/s,oversub=2
local cluster = require "cluster"

local gpu = param("gpu", "h100")
local spec = cluster.gpus[gpu] or error("gpu is b200, h200, h100, h800 or a100, not " .. gpu)
local nodes = param("nodes", 4)
local gpus = param("gpus", 8)
local nic_bw = param("nic_bw", spec.nic_bw)
local eff = { nvlink = param("nvlink_eff", spec.nvlink_eff), pcie = param("pcie_eff", cluster.efficiency.pcie) }
local hosts = {}
for n = 0, nodes - 1 do
  local h = cluster.nvswitch_host {
    name = "h" .. n, gpus = gpus, nics = param("nics", gpus), nvlink_bw = param("nvlink_bw", spec.nvlink_bw),
    pcie_bw = spec.pcie_bw, nic_bw = nic_bw, reduce_bw = spec.reduce_bw, copy_bw = spec.copy_bw,
    op_overhead = spec.op_overhead, step_overhead = param("step_overhead", cluster.step_overhead), eff = eff, nvls = spec.nvls,
  }
  for _, g in ipairs(h.gpus) do rank(g) end
  hosts[#hosts + 1] = h
end
cluster.rail_fat_tree(hosts, {
  leaf_ports = param("leaf_ports", 32), oversub = param("oversub", 1),
  bw = cluster.derate(nic_bw, param("net_eff", cluster.efficiency.net)),
  lat = param("switch_lat", "0.6us"), placement = param("placement", "packed"),
  sharp = param("sharp", false),
})
cluster.protocols("nvlink")
-- How the switches pick among equal up-links: "ecmp" hashes each flow (as
-- Ethernet and RoCE fabrics do; collisions can put two flows on one
-- link), "dmodk" takes the destination's port (InfiniBand's fat-tree
-- routing: flows to distinct destinations of one leaf spread over the
-- spines).
routing(param("routing", "ecmp"))
