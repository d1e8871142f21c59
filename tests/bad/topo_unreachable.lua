-- Rank 1 sits on a host no link reaches.
device { name = "a", kind = "host" }
device { name = "b", kind = "host" }
device { name = "sw", kind = "switch" }
link { "a", "sw", bw = "25GB/s", lat = "1us" }
rank "a"
rank "b"
