-- expect: string_dump\.lua:5: attempt to call a nil value \(field 'dump'\)
-- Bytecode made in the sandbox itself: string.dump is not there.
local function program(ctx) ctx:copy(IN, 0, OUT, 0) end

local code = string.dump(program)

return {
  name = "string_dump",
  collectives = { "allreduce" },
  chunks = 1,
  program = load(code, "program", "b"),
}
