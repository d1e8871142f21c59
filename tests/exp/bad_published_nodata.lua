-- bad_published_nodata.lua -- testbed published without its data file.
return { testbed = "published", topology = "star.lua", runs = { { label = "sys-a", ranks = 2, set = "nodes=2" } } }
