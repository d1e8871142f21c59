-- unknown collective
return { topology = "local-cpu.lua", collectives = { "allsum" }, algos = { "ring" } }
