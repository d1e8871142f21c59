-- Only a device that routes pass through can limit what passes through it.
device { name = "g0", kind = "gpu", forward_bw = "10GB/s" }
rank "g0"
