-- expect: os_execute allreduce nranks=1 nodes=1, rank 0 channel 0: .*os_execute\.lua:9: os\.execute is not available: Chorus scripts have no file, process or debug access
-- args: --ranks 1
-- A script that tries to run a command while it plans.
return {
  name = "os_execute",
  collectives = { "allreduce" },
  chunks = 1,
  program = function(ctx)
    os.execute("touch /tmp/chorus-was-here")
    ctx:copy(IN, 0, OUT, 0)
  end,
}
