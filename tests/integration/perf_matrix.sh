#!/usr/bin/env bash
# perf_matrix.sh CHORUS MODE -- every collective x shipped algorithm x data
# type x op x 1..8 ranks through `chorus perf`, which checks every element
# against its own reference and exits non-zero on any wrong one. MODE is
# "procs" (forked ranks) or "threads". Sizes 1 B .. 161 KiB by x11 give
# counts 0, 1 and odd ones; every root is tried at 3 and 5 ranks. A shape
# an algorithm declines (its supports()) is reported and skipped.
set -u
chorus=$1 mode=${2:-procs}
extra=()
[ "$mode" = threads ] && extra=(--threads)
export CHORUS_TIMEOUT=${CHORUS_TIMEOUT:-20}
fail=0 runs=0 skipped=0
declare -A algos=(
  [allreduce]="ring tree hybrid rd rhd" [broadcast]="ring tree" [reduce]="ring tree"
  [allgather]="ring direct" [reducescatter]="ring" [alltoall]="direct")
dtypes="int8 uint8 int32 uint32 int64 uint64 half bfloat16 float double"
ops="sum prod min max avg"
one() {
  runs=$((runs + 1))
  out=$("$chorus" perf "$@" "${extra[@]}" -w 0 -i 1 2>&1)
  rc=$?
  if [ $rc -ne 0 ]; then
    if grep -qiE "declin|not support|unsupported" <<<"$out"; then
      skipped=$((skipped + 1)); echo "skip (declined): chorus perf $*"; return
    fi
    # Every rank's own lines (the first failure is often not the last line), then the end.
    fail=$((fail + 1)); echo "FAIL rc=$rc: chorus perf $* ${extra[*]}"; grep -E "chorus (perf|WARN)|ERROR|Sanitizer" <<<"$out" | head -20; tail -5 <<<"$out"
  fi
}
for coll in allreduce reduce reducescatter broadcast allgather alltoall; do
  for a in ${algos[$coll]}; do
    case $coll in allreduce|reduce|reducescatter) red=1 ;; *) red=0 ;; esac
    # Every type and op (or every type) at 3 ranks.
    for d in $dtypes; do
      if [ $red = 1 ]; then for o in $ops; do one $coll -n 3 -a $a -d $d -o $o -b 1 -e 161K -f 11; done
      else one $coll -n 3 -a $a -d $d -b 1 -e 161K -f 11; fi
    done
    # 1..8 ranks, a few types and ops.
    for n in 1 2 4 5 6 7 8; do
      one $coll -n $n -a $a -d float -o sum -b 1 -e 161K -f 11
      [ $red = 1 ] && one $coll -n $n -a $a -d int8 -o min -b 1 -e 161K -f 11
      [ $red = 1 ] && one $coll -n $n -a $a -d half -o avg -b 1 -e 161K -f 11
    done
    if [ $coll = broadcast ] || [ $coll = reduce ]; then
      for n in 3 5; do for ((r = 0; r < n; r++)); do one $coll -n $n -a $a -r $r -d int32 -b 4 -e 40K -f 100; done; done
    fi
  done
done
# A large one: 2 channels, many loop iterations, a count that is no multiple of anything.
one allreduce -n 2 -a ring -c 2 -d float -b 100000004 -e 100000004
echo "$runs runs, $fail failed, $skipped declined"
[ $fail -eq 0 ]
