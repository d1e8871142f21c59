-- bad_published.lua -- a published point names a system no run has.
return {
  testbed = "published",
  data = "bad_published.csv",
  topology = "star.lua",
  runs = { { label = "sys-a", ranks = 2, set = "nodes=2" } },
}
