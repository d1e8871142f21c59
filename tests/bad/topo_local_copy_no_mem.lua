-- A copy between a rank's own buffers is a rate of the memory model: this
-- core names no memory.
device { name = "c0", kind = "core", copy_bw = "10GB/s", copy_local_bw = "40GB/s" }
rank "c0"
