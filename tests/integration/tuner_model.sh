#!/usr/bin/env bash
# tuner_model.sh CHORUS -- the model tuner picks what chorus sim says is
# fastest (each candidate predicted directly), honours CHORUS_ALGO lists and
# exclusions, CHORUS_TUNER=rules and a bad CHORUS_TOPO (warning, rules),
# and a forced unknown algorithm is a clear error.
set -u
chorus=$1
fail() { echo "FAIL: $*"; exit 1; }
chose() { # chose SIZE [ENV...] -> "algo channels" the tuner logged for SIZE
  local size=$1; shift
  env CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=TUNE "$@" "$chorus" perf allreduce -n 2 -b $size -e $size -w 0 -i 1 \
    --inplace 0 2>&1 >/dev/null | sed -n "s/.*rank 0 .*allreduce of $size bytes .*: chose \([a-z]*\) on \([0-9]*\) channel.*/\1 \2/p" | head -1
}
for size in 4096 1048576; do
  got=$(chose $size)
  [ -n "$got" ] || fail "no choice logged at $size bytes"
  best="" best_t=""
  for algo in ring tree hybrid rd rhd direct; do
    t=$("$chorus" sim allreduce --topo local-cpu --set ranks=2 -n 2 -a $algo -c 1 -b $size -e $size 2>/dev/null \
        | awk '/^ +[0-9]/ { print $6; exit }')
    [ -n "$t" ] || continue
    echo "  $size B: $algo predicted $t us"
    if [ -z "$best_t" ] || awk -v a="$t" -v b="$best_t" 'BEGIN { exit !(a < b) }'; then best=$algo best_t=$t; fi
  done
  echo "$size B: tuner chose '$got', chorus sim's fastest is $best ($best_t us)"
  [ "${got% *}" = "$best" ] || fail "at $size bytes the tuner chose ${got% *}, the model's fastest is $best"
done
got=$(chose 4096 CHORUS_ALGO=^rd,ring)
case "${got% *}" in ""|rd|ring) fail "CHORUS_ALGO=^rd,ring chose '$got'" ;; esac
got=$(chose 4096 CHORUS_ALGO=tree,hybrid)
case "${got% *}" in tree|hybrid) ;; *) fail "CHORUS_ALGO=tree,hybrid chose '$got'" ;; esac
[ -z "$(chose 4096 CHORUS_TUNER=rules)" ] || fail "CHORUS_TUNER=rules still used the model"
out=$(CHORUS_TOPO=/nonexistent.lua "$chorus" perf allreduce -n 2 -b 4K -e 4K -w 0 -i 1 2>&1) || fail "a bad CHORUS_TOPO broke the run"
echo "$out" | grep -q "cost model cannot load topology /nonexistent.lua" || fail "no warning for a bad CHORUS_TOPO: $out"
out=$(CHORUS_ALGO=nosuch "$chorus" perf allreduce -n 2 -b 4K -e 4K -w 0 -i 1 2>&1) && fail "CHORUS_ALGO=nosuch succeeded"
echo "$out" | grep -q "unknown algorithm 'nosuch'" || fail "CHORUS_ALGO=nosuch: no clear error: $out"
echo ok
