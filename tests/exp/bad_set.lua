-- the topology takes no parameter "gpus"
return { testbed = "none", topology = "local-cpu.lua", set = "gpus=8", algos = { "ring" }, min = "1K", max = "1K" }
