-- expect: pcall_loop allreduce nranks=2 nodes=1, rank 0 channel 0: .*pcall_loop\.lua:1[0-3]: script ran too long: more than [0-9]+ instructions in one call
-- args: --ranks 2
-- An endless loop that catches the instruction cap's error and starts
-- over: once the budget is spent, pcall and xpcall pass the error on.
return {
  name = "pcall_loop",
  collectives = { "allreduce" },
  chunks = 1,
  program = function(ctx)
    while true do
      pcall(function() while true do end end)
      xpcall(function() while true do end end, function(m) return m end)
    end
  end,
}
