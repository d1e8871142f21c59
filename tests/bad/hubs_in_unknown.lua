-- expect: hubs_in_unknown\.lua: 'hubs_in' must be "node" \(a switch inside each node\) or "network"
-- args: --ranks 2
-- A script that places its hubs in "rack", which is neither a node's
-- switch nor the network's.
return {
  name = "hubs_in_unknown",
  collectives = { "allreduce" },
  chunks = 1,
  hubs = 1,
  hubs_in = "rack",
  program = function(ctx)
    if not ctx.this_hub then ctx:copy(IN, 0, OUT, 0) end
  end,
}
