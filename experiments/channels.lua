-- channels.lua -- ring allreduce on 2 local ranks with 1, 2 and 4 channels
-- (a channel is a thread per rank and a connection per peer): where do more
-- channels pay on a 2-core machine, and does the simulator know?
local runs = {}
for _, c in ipairs { 1, 2, 4 } do
  runs[#runs + 1] = { collective = "allreduce", algo = "ring", ranks = 2, channels = c, label = "ring-c" .. c }
end
return {
  name = "channels",
  description = "Ring allreduce on 2 local ranks with 1, 2 and 4 channels.",
  testbed = "local",
  topology = "local-cpu.lua",
  calibrate = true,
  runs = runs,
  min = "64K", max = "64M", factor = 4,
  warmup = 3, iters = 10, repeats = 5,
  targets = { large = 10, small = 20 }, -- several channels: the looser targets of issue 19
}
