-- expect: io_open\.lua:4: io\.open is not available: Chorus scripts have no file, process or debug access
-- A script that reads its topology from a file of its own: no file access.
local ranks = {}
local f = io.open("/etc/hosts")
for line in f:lines() do ranks[#ranks + 1] = line end

return {
  name = "io_open",
  collectives = { "allreduce" },
  chunks = 1,
  program = function(ctx) ctx:copy(IN, 0, OUT, 0) end,
}
