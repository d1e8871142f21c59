-- fold.lua -- the fold step that lets power-of-two algorithms (recursive
-- doubling, recursive halving-doubling) run on any number of ranks.
--
-- With P the largest power of two <= n and extra = n - P, the first
-- 2 * extra ranks pair up: each even one hands its data to the odd one
-- after it and sits out; the P ranks left (the odd ones of the pairs and
-- every rank from 2 * extra on) run the power-of-two algorithm, numbered
-- 0 .. P-1 in rank order; at the end each odd partner hands the result back.

local M = {}

-- The largest power of two <= n (n >= 1).
function M.pow2_floor(n)
  local p = 1
  while p * 2 <= n do p = p * 2 end
  return p
end

-- This rank's part in the fold of n ranks: a table with
--   P, extra   the power of two and the ranks beyond it;
--   role       "out" (hands its data over and waits), "host" (takes a
--              folded rank's data, then runs), or "run" (just runs);
--   partner    the other rank of the pair ("out" and "host"), else nil;
--   v          the index among the P running ranks (nil for "out").
-- f:rank(v) is the rank of running index v.
function M.new(n, rank)
  local P = M.pow2_floor(n)
  local extra = n - P
  local f = { P = P, extra = extra }
  if rank < 2 * extra then
    if rank % 2 == 0 then
      f.role, f.partner = "out", rank + 1
    else
      f.role, f.partner, f.v = "host", rank - 1, rank // 2
    end
  else
    f.role, f.v = "run", rank - extra
  end
  function f:rank(v)
    return v < extra and 2 * v + 1 or v + extra
  end
  return f
end

return M
