-- expect: bytecode_load\.lua:10: attempt to load a binary chunk \(mode is 't'\)
-- Precompiled code (the Lua 5.4 bytecode of "return 1", as string.dump
-- writes it): load accepts text only.
local blob = "\27\76\117\97\84\0\25\147\13\10\26\10\4\8\8\120\86\0\0\0\0\0\0\0\0\0\0\0\40\119\64\1\128\128"
  .. "\128\0\1\2\132\81\0\0\0\1\0\0\128\70\0\2\1\70\0\1\1\128\129\1\0\0\128\128\128\128\128"

local f, why = load(blob)
if not f then
  -- Report load's own reason, at this line.
  error(why)
end

return f()
