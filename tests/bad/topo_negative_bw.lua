-- A negative bandwidth.
device { name = "a", kind = "host" }
device { name = "sw", kind = "switch" }
link { "a", "sw", bw = "-25GB/s", lat = "1us" }
rank "a"
