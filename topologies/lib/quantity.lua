-- quantity.lua -- arithmetic on the quantities topologies write with units
-- ("40GB/s", "0.7us"), for descriptions whose values follow from others:
-- a rate shared by the ranks of a core, a step latency plus a wake-up.
local M = {}

-- v divided by `by`, in v's own unit ("14.5GB/s" / 2 = "7.25GB/s"); a plain
-- number is divided as it is.
function M.divide(v, by, who)
  if by == 1 then return v end
  if type(v) == "number" then return v / by end
  local num, unit = tostring(v):match("^%s*([%d.]+)%s*(.-)%s*$")
  if not num then error((who or "quantity") .. ": cannot divide '" .. tostring(v) .. "'") end
  return string.format("%g%s", tonumber(num) / by, unit)
end

-- The sum of two times ("0.7us" + "5us" = "5.7us").
function M.add_times(a, b, who)
  local function seconds(v)
    local num, unit = tostring(v):match("^%s*([%d.eE+-]+)%s*(%a*)%s*$")
    local scale = ({ s = 1, ms = 1e-3, us = 1e-6, ns = 1e-9 })[unit]
    if not num or not scale then error((who or "quantity") .. ": cannot read the time '" .. tostring(v) .. "'") end
    return tonumber(num) * scale
  end
  return string.format("%.6gus", (seconds(a) + seconds(b)) * 1e6)
end

return M
