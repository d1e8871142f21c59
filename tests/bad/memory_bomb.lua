-- expect: memory_bomb allreduce nranks=1 nodes=1, rank 0 channel 0: .*memory_bomb\.lua:13: script exceeded its memory limit \([0-9]+ MiB\)
-- args: --ranks 1
-- A table of strings that grows without bound: the memory cap stops it.
local cache = {}

return {
  name = "memory_bomb",
  collectives = { "allreduce" },
  chunks = 1,
  program = function(ctx)
    local i = 0
    while true do
      i = i + 1; cache[i] = string.rep("x", 4096) .. i
    end
  end,
}
