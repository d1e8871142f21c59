-- expect: require_outside\.lua:5: require: no module 'direct' in .*algos/lib
-- Modules load from algos/lib only; algos/direct.lua is an algorithm, not
-- a library, and nothing outside algos/lib can be required.
local rings = require "ring"
local direct = require "direct"

return {
  name = "require_outside",
  collectives = direct.collectives,
  chunks = 1,
  program = direct.program,
}
