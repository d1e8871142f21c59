-- A hub is a switch that reduces; a GPU cannot be one.
device { name = "sw", kind = "switch" }
device { name = "g0", kind = "gpu" }
hub "g0"
link { "g0", "sw", bw = "10GB/s" }
rank "g0"
