-- A link bandwidth in a unit the loader does not know.
device { name = "a", kind = "host" }
device { name = "sw", kind = "switch" }
link { "a", "sw", bw = "400Gbit/s", lat = "1us" }
rank "a"
