-- bad_targets.lua -- a target that is not a number.
return {
  testbed = "local", topology = "local-cpu.lua", algos = { "ring" },
  targets = { large = "five", small = 15 },
}
