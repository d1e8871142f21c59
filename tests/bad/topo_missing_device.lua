-- A link to a device nobody declared.
device { name = "a", kind = "host" }
device { name = "sw", kind = "switch" }
link { "a", "sw", bw = "25GB/s", lat = "1us" }
link { "b", "sw", bw = "25GB/s", lat = "1us" }
rank "a"
