-- cluster.lua -- builders for topology scripts: hosts (NVSwitch GPU boxes,
-- PCIe GPU boxes, CPU machines), and the networks between them (a star, a
-- two-tier leaf-spine fat tree with an oversubscription ratio, rails of
-- NICs). They only call the loader's declarations: device{}, link{},
-- rank(), protocol{}; see topologies/README.md.

local M = {}

-- Per-step protocol latencies from NCCL's tuning model (src/graph/tuning.cc,
-- hwLat, ring rows), for the fabric a ring step crosses. They are model
-- inputs to be calibrated, not measurements of this project.
M.latency = {
  nvlink = { simple = "3.4us", LL = "0.6us", LL128 = "1.9us" },
  pcie = { simple = "5.7us", LL = "1.0us", LL128 = "2.5us" },
  net = { simple = "14us", LL = "2.7us", LL128 = "4.0us" },
}

-- What a GPU channel's thread block spends on every step it receives,
-- besides moving the bytes (waiting for the peer's flag, the fence, posting
-- its own), per protocol: NCCL's tuning model charges each step at least
-- an "overhead" of 1 us on an Intel host (2 on AMD), three times that for
-- Simple, whose steps are fenced and flagged as a whole (src/graph/
-- tuning.cc; shared/NCCL-MODEL.md section 4). The simulator charges it as
-- time the channel moves nothing (sim.h: a protocol's overhead), and a GPU
-- with an overhead stores its own steps over NVLink and PCIe.
M.overhead = { simple = "3us", LL = "1us", LL128 = "1us" }

-- A call's fixed cost per protocol, outside its steps (kernel launch, the
-- work's set-up): NCCL's base latency of the ring rows (tuning.cc baseLat;
-- NCCL-MODEL.md section 4). `chorus sim -p auto` then picks per size the
-- protocol that is fastest, as NCCL's tuner does by its own model.
M.base = { simple = "8.4us", LL = "6.6us", LL128 = "14us" }

-- NVLS (a switch that reduces, algos/nvls.lua) runs on Simple alone, and
-- NCCL times it by one latency per call with no per-step cost: base 0 plus
-- the NVLink row's NVLS latency, 25 us (tuning.cc hwLat; NCCL-MODEL.md
-- section 4). The protocol's hub_latency (sim/topo.h).
M.hub_latency = "25us"

-- fabric: what a step inside a node crosses (nvlink or pcie); a step whose
-- route crosses a NIC pays the network's row instead, as NCCL's ring
-- latency charges its network steps (NCCL-MODEL.md section 4).
function M.protocols(fabric)
  local l = M.latency[fabric] or error("cluster.protocols: fabric is nvlink, pcie or net", 2)
  local n, o, b = M.latency.net, M.overhead, M.base
  protocol { "simple", latency = l.simple, net_latency = n.simple, efficiency = 1.0, overhead = o.simple,
             base = b.simple, hub_latency = M.hub_latency }
  protocol { "LL", latency = l.LL, net_latency = n.LL, efficiency = 0.5, overhead = o.LL, base = b.LL }
  protocol { "LL128", latency = l.LL128, net_latency = n.LL128, efficiency = 120 / 128, overhead = o.LL128,
             base = b.LL128 }
end

-- GPU generations: NVLink per direction through the NVSwitch (B200: 1800
-- GB/s bidirectional, H100/H200: 900, A100: 600, H800: 400), PCIe per
-- direction (Gen6 / Gen5 / Gen4 x16, line rate), the NIC that generation's 8-GPU
-- boxes ship with (ConnectX-8 XDR / ConnectX-7 NDR / ConnectX-6 HDR), and
-- the memory-bound rates of a reduction (HBM bandwidth / 3: two reads and a
-- write per result byte) and a copy (HBM / 2). Datasheet figures, not
-- measurements. nvlink_eff: the share of an NVLink's line rate NCCL's graph
-- search counts on, per generation (src/graph/topo.h: 20.0 GB/s of a 25
-- GB/s NVLink3 link on A100, 20.6 of 25 on NVLink4, 40.1 of 50 on NVLink5;
-- shared/NCCL-MODEL.md section 1). NCCL's figures, not fitted here.
M.gpus = {
  b200 = { nvls = true, nvlink_bw = "900GB/s", pcie_bw = "128GB/s", nic_bw = "800Gb/s", reduce_bw = "2660GB/s",
           copy_bw = "4000GB/s", op_overhead = "0.1us", nvlink_eff = 0.92 * (40.1 / 50) / (20.6 / 25) },
  h200 = { nvls = true, nvlink_bw = "450GB/s", pcie_bw = "64GB/s", nic_bw = "400Gb/s", reduce_bw = "1600GB/s",
           copy_bw = "2400GB/s", op_overhead = "0.1us", nvlink_eff = 0.92 },
  h100 = { nvls = true, nvlink_bw = "450GB/s", pcie_bw = "64GB/s", nic_bw = "400Gb/s", reduce_bw = "1100GB/s",
           copy_bw = "1650GB/s", op_overhead = "0.1us", nvlink_eff = 0.92 },
  h800 = { nvls = true, nvlink_bw = "200GB/s", pcie_bw = "64GB/s", nic_bw = "400Gb/s", reduce_bw = "1100GB/s",
           copy_bw = "1650GB/s", op_overhead = "0.1us", nvlink_eff = 0.92 },
  a100 = { nvlink_bw = "300GB/s", pcie_bw = "32GB/s", nic_bw = "200Gb/s", reduce_bw = "670GB/s",
           copy_bw = "1000GB/s", op_overhead = "0.1us", nvlink_eff = 0.92 * 20.0 / 20.6 },
}

-- The share of a link's datasheet rate that moves payload, per link type;
-- the builders declare every link at rate x this. NVLink's is the GPU
-- generation's (M.gpus: NCCL's own per-link figures); nvlink here is the
-- default for a GPU that has none. The network's is fitted to the "fit"
-- point of experiments/published/allreduce.csv (never judged there):
--   net 0.94: "For NDR @ 400Gbps you should see 46-48GB/s per NIC"
--     (NVIDIA/nccl-tests#290) -- 47 / 50;
--   pcie 0.80: not fitted (no published point isolates a PCIe link): a
--     Gen4/Gen5 x16 link's usual 256-byte-payload TLP and flow-control
--     overhead leaves about 80 %;
--   mem 0.80: a host's DRAM under streaming reads and writes, not fitted
--     (STREAM-style rates are commonly 75-85 % of the channels' peak).
-- A topology lets --set nvlink_eff=, net_eff=, pcie_eff=, mem_eff= override them.
M.efficiency = { nvlink = 0.92, net = 0.94, pcie = 0.80, mem = 0.80 }

-- What a GPU channel's thread block spends per step besides moving its
-- bytes (NCCL's Simple protocol: wait for the peer's flag, copy, fence,
-- post), during which it moves nothing: a device's step_overhead (sim.h).
M.step_overhead = "0us"

-- rate x efficiency, in rate's unit ("450GB/s", 0.82 -> "369GB/s").
function M.derate(rate, eff)
  if not (eff > 0 and eff <= 1) then error("an efficiency is in (0, 1], not " .. tostring(eff), 2) end
  return require("quantity").divide(rate, 1 / eff, "cluster.derate")
end

-- o.eff: the efficiencies the box's links are declared at ({ nvlink =,
-- pcie = }, default M.efficiency).
local function effs(o)
  local e = o.eff or {}
  return e.nvlink or M.efficiency.nvlink, e.pcie or M.efficiency.pcie
end

-- A GPU box with an NVSwitch: o.gpus GPUs (default 8) each joined to the
-- switch by o.nvlink_bw per direction; GPUs on PCIe switches (two GPUs per
-- switch, as in DGX H100), switches on two CPU sockets. With o.nic_bw,
-- o.nics NICs (default one per GPU) spread evenly over the PCIe switches:
-- 8 on 8 GPUs puts NIC i beside GPU i, 4 on 8 one per switch, beside GPUs
-- 0, 2, 4, 6. Returns { gpus = {names}, nics = {names} }.
function M.nvswitch_host(o)
  local h = o.name
  local g = o.gpus or 8
  local nics = o.nic_bw and (o.nics or g) or 0
  local nv_eff, pcie_eff = effs(o)
  local nvlink, pcie = M.derate(o.nvlink_bw, nv_eff), M.derate(o.pcie_bw, pcie_eff)
  local out = { gpus = {}, nics = {} }
  device { name = h .. ".nvsw", kind = "nvswitch", host = h, reduce_bw = o.nvls and o.nvls_reduce_bw or nil }
  -- NVLink SHARP (Hopper and newer): the switch reduces, a plan's hub.
  -- One hub per GPU: the switch reduces for every GPU at once (algos/nvls.lua).
  if o.nvls then hub(h .. ".nvsw", g) end
  device { name = h .. ".cpu0", kind = "cpu", host = h }
  device { name = h .. ".cpu1", kind = "cpu", host = h }
  link { h .. ".cpu0", h .. ".cpu1", bw = o.socket_bw or "64GB/s", lat = "0.3us" }
  local nsw = math.max(1, g // 2)
  for s = 0, nsw - 1 do
    local sw = h .. ".pcie" .. s
    device { name = sw, kind = "pcie", host = h }
    link { sw, h .. ".cpu" .. (s < nsw / 2 and 0 or 1), bw = pcie, lat = "0.25us" }
  end
  for i = 0, g - 1 do
    local gpu = h .. ".gpu" .. i
    device { name = gpu, kind = "gpu", host = h, reduce_bw = o.reduce_bw, copy_bw = o.copy_bw,
             op_overhead = o.op_overhead, step_overhead = o.step_overhead or M.step_overhead }
    link { gpu, h .. ".nvsw", bw = nvlink, lat = o.nvlink_lat or "0.15us" }
    link { gpu, h .. ".pcie" .. (i // 2), bw = pcie, lat = "0.25us" }
    out.gpus[#out.gpus + 1] = gpu
  end
  for j = 0, nics - 1 do
    local nic = h .. ".nic" .. j
    device { name = nic, kind = "nic", host = h }
    link { nic, h .. ".pcie" .. (j * nsw // nics), bw = pcie, lat = "0.25us" }
    out.nics[#out.nics + 1] = nic
  end
  return out
end

-- A GPU box without NVLink: o.gpus GPUs (default 8) on o.switches PCIe
-- switches (default 2), the switches spread over o.sockets CPU sockets
-- (default 1; with 2, switch s on socket s * 2 // switches, the sockets
-- joined by one link of o.socket_bw, default 64GB/s per direction, as UPI
-- or xGMI); one NIC on switch 0 when o.nic_bw is given. With o.p2p = false
-- (consumer GPUs, or peer-to-peer off in the BIOS) the GPUs cannot read
-- each other through a switch: every transfer is staged through the CPU's
-- memory, so each GPU hangs off its socket directly and all traffic
-- crosses it (and the socket link, between GPUs of different sockets).
-- With o.mem_bw (per socket, bytes read plus written per second, derated
-- by o.eff.mem) the staging costs that memory: every step through a
-- socket is written into it and read out, so the socket passes at most
-- half its memory's rate (a forward_bw). A step between sockets is charged
-- at both, where its buffer lives in one: an over-count of one write and
-- one read.
function M.pcie_host(o)
  local h = o.name
  local g, nsw, nsock = o.gpus or 8, o.switches or 2, o.sockets or 1
  if nsock ~= 1 and nsock ~= 2 then error("cluster.pcie_host: sockets is 1 or 2, not " .. tostring(nsock), 2) end
  local _, pcie_eff = effs(o)
  local pcie = M.derate(o.pcie_bw, pcie_eff)
  local stage = o.p2p == false and o.mem_bw and M.derate(o.mem_bw, ((o.eff or {}).mem or M.efficiency.mem) / 2) or nil
  local out = { gpus = {}, nics = {} }
  for c = 0, nsock - 1 do device { name = h .. ".cpu" .. c, kind = "cpu", host = h, forward_bw = stage } end
  if nsock == 2 then link { h .. ".cpu0", h .. ".cpu1", bw = o.socket_bw or "64GB/s", lat = "0.3us" } end
  local function socket_of(s) return h .. ".cpu" .. (s * nsock // nsw) end
  for s = 0, nsw - 1 do
    device { name = h .. ".pcie" .. s, kind = "pcie", host = h }
    link { h .. ".pcie" .. s, socket_of(s), bw = pcie, lat = "0.3us" }
  end
  for i = 0, g - 1 do
    local gpu = h .. ".gpu" .. i
    device { name = gpu, kind = "gpu", host = h, reduce_bw = o.reduce_bw, copy_bw = o.copy_bw,
             op_overhead = o.op_overhead, step_overhead = o.step_overhead or M.step_overhead }
    local sw = i * nsw // g
    local up = o.p2p == false and socket_of(sw) or h .. ".pcie" .. sw
    link { gpu, up, bw = pcie, lat = "0.3us" }
    out.gpus[#out.gpus + 1] = gpu
  end
  if o.nic_bw then
    device { name = h .. ".nic0", kind = "nic", host = h }
    link { h .. ".nic0", h .. ".pcie0", bw = pcie, lat = "0.3us" }
    out.nics[1] = h .. ".nic0"
  end
  return out
end

-- A star: o.nodes endpoints (kind o.kind, default "host"), each with
-- o.ranks_per_node ranks (default 1), each joined to one switch by a link of
-- o.bw and o.lat (full duplex unless o.duplex = "half"); o.switch_bw, when
-- given, is what all traffic through the switch shares (its forward_bw).
function M.star(o)
  device { name = "sw", kind = "switch", forward_bw = o.switch_bw }
  for i = 0, o.nodes - 1 do
    local n = "n" .. i
    device { name = n, kind = o.kind or "host", host = n, reduce_bw = o.reduce_bw, copy_bw = o.copy_bw,
             op_overhead = o.op_overhead, step_overhead = o.step_overhead }
    link { n, "sw", bw = o.bw, lat = o.lat, duplex = o.duplex }
    rank(n, o.ranks_per_node or 1)
  end
end

-- A two-tier leaf-spine fat tree over a list of endpoints (NIC or host
-- names). o.leaf_ports endpoints per leaf; each leaf has leaf_ports / oversub
-- uplinks, one to each spine, so there are that many spines. o.placement:
-- "packed" (default) fills leaf 0 first, endpoint i on leaf i // leaf_ports;
-- "spread" deals endpoints round robin, endpoint i on leaf i % leaves.
-- o.prefix names the switches (several trees, e.g. one per rail, need
-- different prefixes); o.spines_prefix lets trees share spines.
-- A leaf needs at least one port: oversub must be above 0, leaf_ports at least 1.
local function check_tree(o)
  if not o.leaf_ports or o.leaf_ports < 1 then error("leaf_ports must be at least 1, not " .. tostring(o.leaf_ports), 3) end
  if o.oversub ~= nil and not (o.oversub > 0) then error("oversub must be above 0, not " .. tostring(o.oversub), 3) end
end

function M.fat_tree(o)
  check_tree(o)
  local eps = o.endpoints
  local ports = o.leaf_ports
  local up = math.max(1, math.ceil(ports / (o.oversub or 1)))
  local leaves = math.max(1, math.ceil(#eps / ports))
  local pre, spre = o.prefix or "", o.spines_prefix or o.prefix or ""
  for l = 0, leaves - 1 do device { name = pre .. "leaf" .. l, kind = "switch" } end
  local uplinks = leaves > 1 or o.spines_declared
  if leaves > 1 and not o.spines_declared then
    for s = 0, up - 1 do device { name = spre .. "spine" .. s, kind = "switch" } end
  end
  for i, ep in ipairs(eps) do
    local l = (o.placement == "spread") and ((i - 1) % leaves) or ((i - 1) // ports)
    link { ep, pre .. "leaf" .. l, bw = o.bw, lat = o.lat }
  end
  if uplinks then
    for l = 0, leaves - 1 do
      for s = 0, up - 1 do
        link { pre .. "leaf" .. l, spre .. "spine" .. s, bw = o.uplink_bw or o.bw, lat = o.switch_lat or o.lat }
      end
    end
  end
  return { leaves = leaves, spines = leaves > 1 and up or 0 }
end

-- Rail-optimised: NIC r of every host on rail r's own leaves, all rails
-- under one spine layer -- at every size, so that traffic between rails
-- (NIC r of one host to NIC r' of another) crosses a spine as it does in a
-- real rail-optimised cluster, not a host's PCIe and CPUs. hosts is a list of
-- { nics = {...} } as the host builders return.
function M.rail_fat_tree(hosts, o)
  check_tree(o)
  local rails = #hosts[1].nics
  local ports = o.leaf_ports
  local up = math.max(1, math.ceil(ports / (o.oversub or 1)))
  local spines = #hosts > ports or (rails > 1 and #hosts > 1)
  if spines then
    for s = 0, up - 1 do device { name = "spine" .. s, kind = "switch" } end
  end
  for r = 1, rails do
    local eps = {}
    for _, h in ipairs(hosts) do eps[#eps + 1] = h.nics[r] end
    M.fat_tree { endpoints = eps, leaf_ports = ports, oversub = o.oversub, bw = o.bw, lat = o.lat,
                 uplink_bw = o.uplink_bw, placement = o.placement, prefix = "rail" .. (r - 1) .. ".",
                 spines_prefix = "", spines_declared = spines }
  end
  -- o.sharp: each rail's leaf reduces what its hosts send (SHARP in an
  -- InfiniBand switch, NCCL's CollNet), one hub per rail in rail order
  -- (algos/collnet.lua). A rail of several leaves would reduce up an
  -- aggregation tree through the spines, which is not modelled.
  if o.sharp then
    if #hosts > ports then
      error(("sharp: %d hosts need %d leaves per rail; SHARP is modelled on one leaf per rail (at most leaf_ports = %d hosts)")
        :format(#hosts, math.ceil(#hosts / ports), ports), 2)
    end
    for r = 1, rails do hub("rail" .. (r - 1) .. ".leaf0") end
  end
end

return M
