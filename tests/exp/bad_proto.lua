-- unknown protocol
return { testbed = "none", topology = "star.lua", algos = { "ring" }, proto = "fast" }
