-- published.lua -- the simulator against published nccl-tests results:
-- every "check" point of published/allreduce.csv (each with its source and
-- what the source says of the system) predicted on a topology that
-- describes that system. The two "fit" points, maintainers' statements that
-- fix the NVLink and network efficiencies (topologies/lib/cluster.lua), are
-- not judged: they would be their own answer key.
--
-- Channels follow NCCL's graph search as shared/NCCL-MODEL.md derives it
-- (one node: 12 x 20-30 GB/s search channels, duplicated: 24; 8 NICs per
-- node: 8 x 48 or 24, duplicated: 16; 4 NICs: 4 x 24, duplicated: 8, or on
-- Hopper doubled at 48 GB/s: 16; the PCIe boxes: 8, as their user forced
-- with NCCL_MIN_NCHANNELS=8). The RTX 5090 box is the user's two-socket
-- Xeon 8480+ host with its host memory at the datasheet rate (8 channels
-- of DDR5-4800 per socket) x 0.8 (topologies/pcie-8gpu.lua); its 4-GPU run
-- is GPUs 0-3 of that box (nccl-tests -g 4: the first four, one socket). The Blackwell host's
-- 16 is assumed (Blackwell's speed table is not derived there).
-- Every point is a ring (forced, or NCCL's choice on these systems) but the
-- two 8 x H100 plateaus NCCL reaches with NVLink SHARP by default, which
-- algos/nvls.lua predicts (its 16 channels: NCCL's NVLS count on Hopper,
-- shared/NCCL-MODEL.md section 3). NCCL
-- picks its protocol per size by its cost model, so the prediction is, per
-- size, the fastest of the ring under Simple, LL and LL128 (proto = "auto"),
-- each with NCCL's per-step overhead and base latency and cut as NCCL cuts
-- Simple (2 MiB chunks of 512 KiB steps: chorus sim's default on GPUs;
-- topologies/lib/cluster.lua). The points are judged together (median
-- |error| 10 % over all, 15 % per class, none beyond 2x:
-- experiments/README.md), not per run.
local runs = {
  { label = "azure-nd-a100-v4", topology = "dgx-h100.lua", set = "gpu=a100", ranks = 8, channels = 24 },
  { label = "a100-1node-nt175", topology = "dgx-h100.lua", set = "gpu=a100", ranks = 8, channels = 24 },
  { label = "a100-pcie-nvlink-bridge", topology = "dgx-h100.lua", set = "gpu=a100,gpus=2", ranks = 2, channels = 24 },
  { label = "azure-nd-gb200-v6", topology = "dgx-h100.lua", set = "gpu=b200,gpus=4", ranks = 4, channels = 16 },
  { label = "h100-1node-nvls", topology = "dgx-h100.lua", set = "gpu=h100", ranks = 8, channels = 16, algo = "nvls" },
  { label = "h100-1node-nvls-nt290", topology = "dgx-h100.lua", set = "gpu=h100", ranks = 8, channels = 16,
    algo = "nvls" },
  { label = "dgx-a100-8hdr-2node", topology = "dgx-cluster.lua", set = "gpu=a100,nodes=2", ranks = 16,
    channels = 16 },
  { label = "a100-4hdr-2node", topology = "dgx-cluster.lua", set = "gpu=a100,nodes=2,nics=4", ranks = 16,
    channels = 8 },
  { label = "a100-4hdr-3node", topology = "dgx-cluster.lua", set = "gpu=a100,nodes=3,nics=4", ranks = 24,
    channels = 8 },
  { label = "h100-4gpu-4ndr-2node", topology = "dgx-cluster.lua", set = "gpu=h100,nodes=2,gpus=4", ranks = 8,
    channels = 16 },
  { label = "rtx5090-8gpu-pcie", topology = "pcie-8gpu.lua", set = "gpus=8,pcie_bw=64GB/s,p2p=false,sockets=2",
    ranks = 8, channels = 8 },
  { label = "rtx5090-4gpu-pcie", topology = "pcie-8gpu.lua", set = "gpus=8,pcie_bw=64GB/s,p2p=false,sockets=2",
    ranks = 4, channels = 8 },
}
return {
  name = "published",
  description = "Predicted allreduce busbw (ring, or NVLS where NCCL uses NVLink SHARP), per size under the "
    .. "protocol NCCL would pick (the fastest predicted), against 23 published nccl-tests points (NVLink, "
    .. "NVLink SHARP, InfiniBand with 8 and fewer NICs, PCIe), each with its source.",
  testbed = "published",
  data = "published/allreduce.csv",
  topology = "dgx-h100.lua",
  algo = "ring",
  proto = "auto",
  runs = runs,
}
