-- A core whose memory is not declared (before it).
device { name = "c0", kind = "core", copy_bw = "10GB/s", mem = "dram" }
rank "c0"
