#!/usr/bin/env bash
# doctor_latency.sh -- how far does a healthy pair's latency stray from what
# `chorus doctor` expects of it (the larger of the cost model's prediction
# and the two hosts' own blocking call, measured by each host just before),
# on this shared machine, with and without extra load? The doctor calls a
# pair a problem at 3x and 200 us above the expectation; this measures how
# close healthy pairs come to that.
# 3 namespace hosts at 1 Gb/s (scripts/testbed); ROUNDS rounds, each runs
# the doctor twice in a random order: as the machine is, and with LOAD
# busy-loop processes added (started here, killed here by PID). Per run and
# pair: measured latency, expected, the cost model's prediction, ratio.
# Writes results/doctor_latency.csv and prints per condition the median and
# worst ratio and excess, and how many runs reported a latency problem.
# Usage: scripts/bench/doctor_latency.sh BUILD_DIR   (env: ROUNDS=10, LOAD=2; root)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
rounds=${ROUNDS:-10}
load=${LOAD:-2}
res=$root/scripts/bench/results
mkdir -p "$res"
[ "$(id -u)" -eq 0 ] || { echo "doctor_latency.sh: needs root (network namespaces); skipped" >&2; exit 77; }
name=dlat
tmp=$(mktemp -d /tmp/chorus_doctor_latency_XXXXXX)
hogs=()
stop_hogs() { for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; hogs=(); }
trap 'stop_hogs; "$root/scripts/testbed" down $name; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
export CHORUS_ALGOS=$root/algos CHORUS_TOPOLOGIES=$root/topologies CHORUS_TIMEOUT=10
"$root/scripts/testbed" up $name 3 1Gb/s >/dev/null
csv=$res/doctor_latency.csv
echo "round,condition,pair,measured_us,expected_us,model_us,ratio,latency_problems,pairs_measured_again" >"$csv"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; 3 namespace hosts at 1 Gb/s; $rounds rounds; load before:$(uptime | sed 's/.*load average://')"
for ((r = 1; r <= rounds; r++)); do
  conds="idle loaded"
  [ $((RANDOM % 2)) -eq 0 ] && conds="loaded idle"
  for cond in $conds; do
    if [ "$cond" = loaded ]; then
      for ((i = 0; i < load; i++)); do (while :; do :; done) & hogs+=($!); done
    fi
    "$build/chorus" doctor --hosts $name-h0,$name-h1,$name-h2 --rsh "ip netns exec" --set rate=1Gb/s \
      >"$tmp/out" 2>&1 || true
    stop_hogs
    model=$(grep -Eo 'the cost model predicts [0-9.]+' "$tmp/out" | awk '{print $NF}')
    nprob=$(grep -c "PROBLEM: .*latency" "$tmp/out" || true)
    again=$(awk '/measured again/ { n += gsub(/times/, "") } END { print n + 0 }' "$tmp/out")
    sed -n '/latency, us, half/,/own blocking call/p' "$tmp/out" | grep -Eo '[0-9.]+/[0-9.]+' | awk -F/ \
      -v r="$r" -v c="$cond" -v m="${model:-0}" -v p="$nprob" -v g="$again" \
      'NR == 1 || NR == 2 || NR == 4 { k++; printf "%s,%s,%d,%s,%s,%s,%.3f,%s,%s\n", r, c, k, $1, $2, m, $1 / $2, p, g }' >>"$csv"
  done
done
echo "# load after:$(uptime | sed 's/.*load average://')"
awk -F, 'NR > 1 { n[$2]++; ratio[$2, n[$2]] = $7; ex[$2, n[$2]] = $4 - $5; meas[$2, n[$2]] = $4; expd[$2, n[$2]] = $5
                 if (!seen[$2, $1]++) { if ($8 > 0) bad[$2]++; again[$2] += $9 } }
  function med(a, c, k,   i, j, t, v) { for (i = 1; i <= k; i++) v[i] = a[c, i]
                                     for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
                                     return v[int((k + 1) / 2)] }
  function max(a, c, k,   i, m) { m = a[c, 1]; for (i = 2; i <= k; i++) if (a[c, i] > m) m = a[c, i]; return m }
  END { printf "%-8s %6s %12s %12s %10s %10s %11s %13s %14s\n", "cond", "pairs", "measured_us", "expected_us",
               "ratio_med", "ratio_max", "excess_max", "runs_alarmed", "pairs_again"
        for (c in n) printf "%-8s %6d %12.0f %12.0f %10.2f %10.2f %11.0f %13d %14d\n", c, n[c], med(meas, c, n[c]),
                            med(expd, c, n[c]), med(ratio, c, n[c]), max(ratio, c, n[c]), max(ex, c, n[c]), bad[c] + 0,
                            again[c] + 0 }' "$csv"
echo "# per pair and run: $csv"
