-- nic_pair.lua -- two GPU hosts joined through their NICs and a switch, for
-- the protocol's net_latency: a step between them crosses a NIC and pays
-- net_latency (1 ms) instead of latency (1 us).
for h = 0, 1 do
  device { name = "h" .. h .. ".gpu", kind = "gpu", host = "h" .. h }
  device { name = "h" .. h .. ".nic", kind = "nic", host = "h" .. h }
  link { "h" .. h .. ".gpu", "h" .. h .. ".nic", bw = "1GB/s", lat = "0us" }
end
device { name = "sw", kind = "switch" }
link { "h0.nic", "sw", bw = "1GB/s", lat = "0us" }
link { "h1.nic", "sw", bw = "1GB/s", lat = "0us" }
rank "h0.gpu"
rank "h1.gpu"
protocol { "simple", latency = "1us", net_latency = "1ms", efficiency = 1.0 }
