-- no topology
return { testbed = "local", algos = { "ring" } }
