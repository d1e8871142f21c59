-- expect: pattern_bomb\.lua:9: pattern too costly: more than [0-9]+ matching steps
-- args: --ranks 1
-- A pattern that backtracks exponentially: 30 "a*" against 60 a's and no
-- "b" would try about 10^17 ways. Lua's own matcher runs in C, out of reach
-- of the instruction hook, and would hang the planner; the sandbox's
-- matcher counts its steps and stops.
local subject = string.rep("a", 60)
local pattern = string.rep("a*", 30) .. "b"
local found = subject:find(pattern)
return {
  name = "pattern_bomb",
  collectives = { "allreduce" },
  chunks = 1,
  program = function(ctx) if not found then ctx:copy(IN, 0, OUT, 0) end end,
}
