-- local.lua -- the five allreduce algorithms on 2 and on 4 local ranks over
-- shared memory. On this 2-core machine 4 ranks share the cores (the
-- topology is told cores=, and models their threads taking turns), so the
-- 4-rank runs have the looser targets of issue 19: median |error| at most
-- 10% from 1 MiB up and 20% below; 2 ranks: 5% and 15%.
local runs = {}
for _, n in ipairs { 2, 4 } do
  for _, algo in ipairs { "ring", "tree", "hybrid", "rd", "rhd" } do
    runs[#runs + 1] = { collective = "allreduce", algo = algo, ranks = n,
                        targets = n > 2 and { large = 10, small = 20 } or nil }
  end
end
return {
  name = "local",
  description = "Allreduce algorithms (ring, tree, hybrid, rd, rhd) on 2 and 4 local ranks over shared memory.",
  testbed = "local",
  topology = "local-cpu.lua",
  calibrate = true,
  runs = runs,
  min = "1K", max = "64M", factor = 4,
  warmup = 3, iters = 10, repeats = 5,
}
