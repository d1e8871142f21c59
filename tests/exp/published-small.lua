-- published-small.lua -- for exp_published.sh: two "systems" on a 2-node
-- star at 10 GB/s, one published near what the model gives (class a), one
-- at 4 GB/s (class b: 2.5x off, a miss), and a fit row that is not judged.
return {
  name = "published-small",
  description = "Test-suite experiment: published points.",
  testbed = "published",
  data = "published-small.csv",
  topology = "star.lua",
  runs = {
    { label = "sys-a", ranks = 2, channels = 1, set = "nodes=2,bw=10GB/s,lat=1us" },
    { label = "sys-b", topology = "star.lua", ranks = 2, channels = 1, set = "nodes=2,bw=10GB/s,lat=1us" },
  },
}
