-- expect: syntax_error\.lua:11: 'then' expected near 'ctx'
-- A missing 'then'.
return {
  name = "syntax_error",
  collectives = { "allreduce" },
  chunks = 1,
  program = function(ctx)
    if ctx.nranks == 1 then
      ctx:copy(IN, 0, OUT, 0)
    elseif ctx.rank == 0
      ctx:send(1, IN, 0)
    end
  end,
}
