-- fat-tree.lua -- single-NIC hosts (one rank each) on a two-tier leaf-spine
-- fat tree. oversub = 2 halves the uplinks of every leaf; placement =
-- "spread" deals consecutive ranks to different leaves, so that a ring
-- crosses the spines at every step instead of once per leaf.
local cluster = require "cluster"

local nodes = param("nodes", 16)
local eps = {}
for i = 0, nodes - 1 do
  local h = "h" .. i
  device { name = h, kind = "host", host = h, reduce_bw = param("reduce_bw", "0GB/s"),
           copy_bw = param("copy_bw", "0GB/s"), op_overhead = param("op_overhead", "0us") }
  rank(h)
  eps[#eps + 1] = h
end
cluster.fat_tree {
  endpoints = eps,
  leaf_ports = param("leaf_ports", 4),
  oversub = param("oversub", 1),
  bw = param("nic_bw", "400Gb/s"),
  lat = param("lat", "0.5us"),
  placement = param("placement", "packed"),
}
protocol { "simple", latency = param("step_lat", "0us"), efficiency = 1.0 }
-- How the switches pick among equal up-links: "ecmp" hashes each flow (as
-- Ethernet and RoCE fabrics do; collisions can put two flows on one
-- link), "dmodk" takes the destination's port (InfiniBand's fat-tree
-- routing: flows to distinct destinations of one leaf spread over the
-- spines).
routing(param("routing", "ecmp"))
