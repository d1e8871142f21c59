-- dgx-cluster.lua -- `nodes` DGX-style 8-GPU hosts (gpu = "h100" or
-- "a100") on a rail-optimised two-tier fat tree: NIC i of every host on rail
-- i's leaves (leaf_ports hosts per leaf), every leaf with leaf_ports /
-- oversub uplinks to the shared spines. Ranks are numbered host by host.
--   chorus sim allreduce --topo dgx-cluster --set nodes=128,nic_bw=400Gb/s,oversub=2
local cluster = require "cluster"

local spec = cluster.gpus[param("gpu", "h100")] or error("gpu is h100 or a100")
local nodes = param("nodes", 4)
local nic_bw = param("nic_bw", "400Gb/s")
local hosts = {}
for n = 0, nodes - 1 do
  local h = cluster.nvswitch_host {
    name = "h" .. n, gpus = 8, nvlink_bw = param("nvlink_bw", spec.nvlink_bw), pcie_bw = spec.pcie_bw,
    nic_bw = nic_bw, reduce_bw = spec.reduce_bw, copy_bw = spec.copy_bw, op_overhead = spec.op_overhead,
  }
  for _, g in ipairs(h.gpus) do rank(g) end
  hosts[#hosts + 1] = h
end
cluster.rail_fat_tree(hosts, {
  leaf_ports = param("leaf_ports", 32), oversub = param("oversub", 1), bw = nic_bw,
  lat = param("switch_lat", "0.6us"), placement = param("placement", "packed"),
})
cluster.protocols(nodes > 1 and "net" or "nvlink")
