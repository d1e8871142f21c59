-- algos must be a list of strings
return { topology = "local-cpu.lua", algos = { "ring", {} } }
