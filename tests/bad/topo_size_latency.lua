-- A protocol's latency by step size must list sizes that grow.
device { name = "a", kind = "host" }
device { name = "b", kind = "host" }
link { "a", "b", bw = "10GB/s", lat = "1us" }
protocol { "simple", latency = "0.5us", latency_by_size = "4KiB:0.4us 2KiB:0.3us" }
rank "a"
rank "b"
