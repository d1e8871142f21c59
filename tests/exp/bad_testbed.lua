-- unknown testbed
return { testbed = "cloud", topology = "local-cpu.lua", algos = { "ring" } }
