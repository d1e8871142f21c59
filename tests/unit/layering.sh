#!/usr/bin/env bash
# layering.sh ROOT: the tree as committed passes scripts/layering, and a copy
# of it with one breach planted per rule (a forbidden include of each kind,
# a file without a header, a long function) fails, naming where -- so the
# check can fail.
set -u
root=$1
"$root/scripts/layering" "$root" || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
copy() { # a fresh copy of the floors and the check in $tmp/t
  rm -rf "$tmp/t" && mkdir -p "$tmp/t/scripts"
  cp -r "$root"/core "$root"/plan "$root"/sim "$root"/engine "$root"/cli "$root"/include "$tmp/t/"
  cp "$root/scripts/layering" "$tmp/t/scripts/"
}
plant() { # plant FILE HEADER: a copy of the floors with FILE including HEADER
  copy
  printf '#include "%s"\n' "$2" >> "$tmp/t/$1"
  out=$("$tmp/t/scripts/layering" "$tmp/t")
  rc=$?
  if [ $rc = 0 ] || ! grep -q "$1:.*\"$2\"" <<< "$out"; then
    echo "FAIL: $1 including $2 was not caught (rc=$rc): $out"
    exit 1
  fi
  echo "caught: $out"
}
plant core/geom.h plan.h          # core sees nothing above it
plant plan/plan.c comm.h          # plan does not see the engine
plant sim/sim.c exec.h            # the simulator does not see the engine
plant engine/transport/sock.c plan.h   # transports see core only
plant engine/kernels/kernels.c transport/transport.h
plant engine/exec.c sim.h         # of sim/, the engine sees cost.h only
plant engine/comm.c perf.h        # nothing below cli/ sees cli/
plant plan/verify.c missing.h     # an include no floor holds
# A library file without a header stating its contract.
copy
echo 'int orphan(void) { return 0; }' > "$tmp/t/plan/orphan.c"
out=$("$tmp/t/scripts/layering" "$tmp/t") && { echo "FAIL: plan/orphan.c without a header passed"; exit 1; }
grep -q "plan/orphan.c has no header plan/orphan.h" <<< "$out" || { echo "FAIL: not named: $out"; exit 1; }
echo "caught: $out"
# A library function of 101 lines.
copy
{ echo 'int too_long(void) {'; for i in $(seq 99); do echo '  (void)0;'; done; echo '}'; } >> "$tmp/t/sim/busbw.c"
out=$("$tmp/t/scripts/layering" "$tmp/t") && { echo "FAIL: a 101-line function passed"; exit 1; }
grep -q "sim/busbw.c:.*101 lines" <<< "$out" || { echo "FAIL: not named: $out"; exit 1; }
echo "caught: $out"
echo "layering: 10 planted breaches caught"
