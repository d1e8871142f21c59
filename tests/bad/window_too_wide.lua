-- expect: window_too_wide\.lua: 'window' must give a whole number from 2 to 8
-- args: --ranks 2
-- A script that asks its connections to hold more chunks than a
-- connection has slots (8): no cut of the call could keep that promise.
return {
  name = "window_too_wide",
  collectives = { "allreduce" },
  chunks = 1,
  window = 16,
  program = function(ctx)
    ctx:copy(IN, 0, OUT, 0)
  end,
}
