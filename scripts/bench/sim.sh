#!/usr/bin/env bash
# Simulator speed: ring allreduce of 256 MiB, event mode on the rail-optimised
# DGX fat tree (1024 ranks = 128 hosts) and on a star, analytic mode at 16384
# ranks. Each run in its own process (wall time and peak RSS from
# /usr/bin/time; events per second from `chorus sim --stats`). Prints a table
# and writes scripts/bench/results/sim.csv.
# Usage: scripts/bench/sim.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
chorus="$build/chorus"
[ -x "$chorus" ] || { echo "sim.sh: $chorus not built (scripts/build first)" >&2; exit 2; }
export CHORUS_ALGOS="$root/algos" CHORUS_TOPOLOGIES="$root/topologies"
out="$root/scripts/bench/results/sim.csv"
mkdir -p "$(dirname "$out")"
echo "case,model,topology,set,nranks,time_us,busbw_GBps,sim_s,events,Mevents_per_s,wall_s,peak_rss_MiB" > "$out"
run() { # case model topo set
  local log; log=$(mktemp)
  /usr/bin/time -f "%e %M" -o "$log.time" "$chorus" sim allreduce --topo "$3" --set "$4" -b 256M -e 256M \
    --model "$2" --stats --no-verify > "$log.out" 2> "$log"
  local row; row=$(grep -v '^#' "$log.out" | head -1)
  local n; n=$(sed -n 's/^# chorus sim allreduce: \([0-9]*\) ranks.*/\1/p' "$log.out")
  local us bus; us=$(echo "$row" | awk '{print $6}'); bus=$(echo "$row" | awk '{print $8}')
  local sim ev evs; sim=$(sed -n 's/.*simulation \([0-9.]*\) s.*/\1/p' "$log"); ev=$(sed -n 's/.* \([0-9]*\) events (.*/\1/p' "$log")
  evs=$(sed -n 's/.*(\([0-9.]*\) M events\/s).*/\1/p' "$log")
  read -r wall rss < "$log.time"
  echo "$1,$2,$3,\"$4\",$n,$us,$bus,$sim,$ev,$evs,$wall,$((rss / 1024))" >> "$out"
  rm -f "$log" "$log.out" "$log.time"
}
run ring1024_fattree event dgx-cluster nodes=128
run ring1024_star event star nodes=1024
run ring16384_star analytic star nodes=16384
run ring1024_fattree analytic dgx-cluster nodes=128
[ "${SIM_BENCH_4096:-0}" = 1 ] && run ring4096_fattree event dgx-cluster nodes=512
column -s, -t < "$out"
echo "written: $out"
