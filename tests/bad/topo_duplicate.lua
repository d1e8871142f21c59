-- Two devices with one name.
device { name = "a", kind = "host" }
device { name = "sw", kind = "switch" }
device { name = "a", kind = "gpu" }
link { "a", "sw", bw = "25GB/s", lat = "1us" }
rank "a"
