-- expect: rails_not_boolean\.lua: 'rails' must be true or false
-- args: --ranks 2
-- A declaration that gives 'rails' a NIC number instead of saying whether
-- each rank keeps to its own NIC.
return {
  name = "rails_not_boolean",
  collectives = { "allreduce" },
  chunks = 1,
  rails = 1,
  program = function(ctx)
    ctx:copy(IN, 0, OUT, 0)
  end,
}
