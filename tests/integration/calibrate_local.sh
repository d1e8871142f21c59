#!/usr/bin/env bash
# calibrate_local.sh CHORUS -- `chorus calibrate` end to end on this host:
# two forked ranks over shared memory, a short sweep, the topology it writes
# loaded back by the simulator (and a --set on it still wins).
set -u
chorus=$1
dir=$(mktemp -d /tmp/chorus_cal_XXXXXX)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Up to 4 MiB: with a 1 MiB top a loaded ASan run in CI once measured no
# growth of time with size at all, and the fit rightly refused.
rc=0
"$chorus" calibrate -n 2 --sizes 8:4M --repeats 3 --out "$dir/cal.lua" --csv "$dir/cal.csv" >"$dir/out" 2>&1 || rc=$?
[ $rc -eq 0 ] || { cat "$dir/out"; fail "chorus calibrate exited $rc"; }
cat "$dir/out"
grep -q "^# shm: alpha .* R^2 .* max residual" "$dir/out" || fail "no shm fit line in the report"
grep -q "^  copy_bw " "$dir/out" || fail "no copy_bw in the report"
grep -q "^-- Calibrated topology, written by .chorus calibrate. on 20..-..-.. ..:..:.. UTC" "$dir/cal.lua" ||
  fail "the written topology has no dated header"
grep -q "^local calibrated = {" "$dir/cal.lua" || fail "no calibrated table"
for p in copy_bw copy_local_bw reduce_bw mem_bw op_overhead step_lat; do
  grep -q "^  $p *= \"" "$dir/cal.lua" || fail "the written topology lacks $p"
done
[ "$(head -1 "$dir/cal.csv")" = "quantity,peer,size_bytes,iters,repeat,value,unit" ] || fail "csv header"
[ "$(grep -c '^shm_pingpong,1,' "$dir/cal.csv")" = 60 ] || fail "csv: expected 20 sizes x 3 repeats of shm samples"

# On one host copy_bw and reduce_bw (and mem_bw past the cache) are the
# rates at which the simulator gives back the measured ring broadcast and
# reduce: replayed on the written topology, the 1 MiB broadcast comes out
# near its measured time (the rate is the geometric mean of two sizes'
# solutions, so not exactly). Out of sample: no allreduce on more than one
# rank, no allgather or reduce-scatter is measured -- the experiments
# validate those -- and the file says what was on its calib_set line.
[ "$(grep -c '^ring_broadcast,-1,' "$dir/cal.csv")" = 12 ] || fail "csv: expected 4 sizes x 3 repeats of ring_broadcast"
[ "$(grep -c '^ring_reduce,-1,' "$dir/cal.csv")" = 12 ] || fail "csv: expected 4 sizes x 3 repeats of ring_reduce"
# The caches: the copy kernel by working set, every size in the report and
# the csv, and the levels found (machine-dependent: three on a 2-core Xeon
# VM whose sysfs reports its host's 480 MiB L3; the written llc is the
# measured one, with what sysfs said beside it).
grep -q "^# copy kernel by working set, all 2 ranks of the machine at once" "$dir/out" || fail "no working-set table"
[ "$(grep -c '^copy_kernel_level,-1,' "$dir/cal.csv")" -ge 30 ] || fail "csv: expected 10+ working sets x 3 repeats"
grep -qE "^  (three levels: private caches to|two levels: a cache to|no level found)" "$dir/out" || fail "no levels line"
levels3=0
if grep -q "^  three levels:" "$dir/out"; then
  levels3=1
  for p in cache llc_bw llc; do grep -q "^  $p *= \"" "$dir/cal.lua" || fail "three levels, but no $p written"; done
  grep -q '^  llc *= ".*leaves its last cache level.*sysfs says' "$dir/cal.lua" || fail "llc is not the measured one"
fi
! grep -qE '^ring_(allgather|reducescatter)' "$dir/cal.csv" || fail "csv: a collective the experiments validate was measured"
# On a busy moment (or both ranks on one CPU) the model's fixed costs, fitted
# then, can exceed the measured broadcast: no rate solves it, and calibrate
# keeps the kernels' rates and says so in the report and in the file
# (issue 19: this is what the suite met on a loaded CI run). That outcome is
# checked as such; otherwise the solved rates are.
if grep -q "^# warning: copy_bw, reduce_bw and mem_bw are the kernels' rates, not the engine's" "$dir/out"; then
  echo "calibrate_local: the broadcast and reduce could not be solved on this run; the kernels' rates stay, as the warning says"
  grep -q "^-- warning: copy_bw, reduce_bw and mem_bw are the kernels' rates" "$dir/cal.lua" ||
    fail "the written topology does not carry the warning"
  grep -q '^-- calib_set: shm ping-pong .*1-rank 8 B call (no allreduce' "$dir/cal.lua" &&
    ! grep -q '^-- calib_set: .*ring broadcast and reduce' "$dir/cal.lua" ||
    { grep calib_set "$dir/cal.lua"; fail "calib_set names a broadcast that was not used"; }
else
  # With three levels the threads' rates come from the size in the private
  # caches (256 KiB) and llc_bw from 4 MiB; else from 1 and 4 MiB.
  kib=1024
  [ $levels3 = 1 ] && kib=256
  grep -q "^  ring broadcast *$kib KiB .* -> copy_bw " "$dir/out" || fail "no solved copy_bw per size in the report"
  grep -q "^  ring reduce *$kib KiB .* -> reduce_bw " "$dir/out" || fail "no solved reduce_bw per size"
  [ $levels3 = 0 ] || grep -q "^  ring broadcast *4096 KiB .* -> llc_bw " "$dir/out" || fail "no solved llc_bw"

  grep -q "^  ring broadcast .* -> mem_bw " "$dir/out" || fail "no solved mem_bw in the report"
  grep -q '^  copy_bw *= ".*the model.s rate for the ring broadcast measured' "$dir/cal.lua" ||
    fail "copy_bw in the written topology is not the solved rate"
  grep -q '^-- calib_set: shm ping-pong .*ring broadcast and reduce of 0.25 1 4 [0-9]* MiB on 2 ranks, the copy kernel by working set (no allreduce' "$dir/cal.lua" ||
    { grep calib_set "$dir/cal.lua"; fail "no calib_set line naming the measurements"; }
  measured=$(sed -n "s/^  ring broadcast *$kib KiB *\([0-9.]*\) us.*/\1/p" "$dir/out")
  "$chorus" sim broadcast --topo "$dir/cal.lua" --set "ranks=2,cores=$(nproc)" -n 2 -a ring -b ${kib}K -e ${kib}K >"$dir/bc" 2>&1 ||
    { cat "$dir/bc"; fail "chorus sim broadcast on the written topology"; }
  predicted=$(awk -v b=$((kib * 1024)) '$1 == b { print $6 }' "$dir/bc")
  echo "ring broadcast $kib KiB: measured $measured us, predicted $predicted us"
  awk -v m="$measured" -v p="$predicted" 'BEGIN { e = (p - m) / m; exit !(m > 0 && e < 0.35 && e > -0.35) }' ||
    fail "the solved copy_bw does not give back the measured broadcast (measured $measured us, predicted $predicted us)"
fi

"$chorus" sim allreduce --topo "$dir/cal.lua" -n 2 -b 1M -e 1M >"$dir/sim" 2>&1 ||
  { cat "$dir/sim"; fail "chorus sim could not use the written topology"; }
cat "$dir/sim"
grep -q "predicted" "$dir/sim" || fail "chorus sim printed no prediction"

# The calibrated value is the default topo show lists; --set still wins.
"$chorus" topo show "$dir/cal.lua" >"$dir/show" 2>&1 || { cat "$dir/show"; fail "topo show"; }
want=$(sed -n 's/^  copy_bw *= "\([^"]*\)".*/\1/p' "$dir/cal.lua")
grep -q "copy_bw=$want" "$dir/show" || { cat "$dir/show"; fail "topo show does not list copy_bw=$want"; }
"$chorus" topo show "$dir/cal.lua" --set copy_bw=1GB/s 2>&1 | grep -q "copy_bw=1GB/s" || fail "--set copy_bw lost"
echo "calibrate_local: ok"
