-- A core whose memory has no bandwidth.
device { name = "numa0", kind = "numa" }
device { name = "c0", kind = "core", copy_bw = "10GB/s", mem = "numa0" }
link { "c0", "numa0", bw = "10GB/s", lat = "0us" }
rank "c0"
