-- files are out of reach: experiments run in the sandbox
local f = io.open("/etc/passwd")
return { topology = "local-cpu.lua", algos = { "ring" } }
