#!/usr/bin/env bash
# The analytic model (one node for all, plan/fold.h) against the event
# model: ring and hybrid allreduce on DGX-H100-style hosts (dgx-cluster),
# packed and spread over the leaves, 1:1 to 4:1; busbw at 16 MiB and 256
# MiB from both, their difference, and the wall time of each (five sizes,
# 1-256 MiB, as the what-if runs them). With OLD=BINARY, the same cases'
# analytic model from that binary too (before the fold: a one-rank ring),
# with the algorithm scripts of OLD_ALGOS (default: this tree's).
# Then the analytic model alone where the event model would take minutes.
# Prints a table and writes scripts/bench/results/fold.csv.
# Usage: scripts/bench/fold.sh [BUILD_DIR]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
chorus="$build/chorus"
[ -x "$chorus" ] || { echo "fold.sh: $chorus not built (scripts/build first)" >&2; exit 2; }
export CHORUS_ALGOS="$root/algos" CHORUS_TOPOLOGIES="$root/topologies"
out="$root/scripts/bench/results/fold.csv"
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# busbw at 16M and 256M, and the wall seconds: "b16 b256 wall", or "- - -"
# when the binary refuses the case (the old one knew the ring alone).
predict() { # binary algo set model [algos]
  local t0 t1
  t0=$EPOCHREALTIME
  if ! CHORUS_ALGOS="${5:-$CHORUS_ALGOS}" "$1" sim allreduce --topo dgx-cluster --set "$3" -a "$2" -b 1M -e 256M -f 4 --model "$4" --no-verify \
    --csv "$tmp/p.csv" > /dev/null 2> "$tmp/p.err"; then
    echo "- - -"
    return
  fi
  t1=$EPOCHREALTIME
  awk -F, -v w="$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" '
    $10 == 16777216 && $9 == 0 { a = $14 } $10 == 268435456 && $9 == 0 { b = $14 }
    END { printf "%.2f %.2f %s\n", a, b, w }' "$tmp/p.csv"
}
echo "algo,set,event_16M,analytic_16M,event_256M,analytic_256M,diff_256M_pct,old_analytic_256M,event_wall_s,analytic_wall_s,old_wall_s" > "$out"
cases=("nodes=4" "nodes=16" "nodes=64" "nodes=64,oversub=4" "nodes=64,oversub=2,placement=spread")
for algo in ring hybrid; do
  for set in "${cases[@]}"; do
    read -r e16 e256 ew <<< "$(predict "$chorus" $algo "$set" event)"
    read -r a16 a256 aw <<< "$(predict "$chorus" $algo "$set" analytic)"
    o256=- ow=-
    if [ -n "${OLD:-}" ]; then read -r _ o256 ow <<< "$(predict "$OLD" $algo "$set" analytic "${OLD_ALGOS:-}")"; fi
    d=$(awk -v a="$a256" -v e="$e256" 'BEGIN { printf "%.1f", 100 * (a - e) / e }')
    echo "$algo,${set//,/;},$e16,$a16,$e256,$a256,$d,$o256,$ew,$aw,$ow" >> "$out"
  done
done
# Where only the analytic model is practical.
for algo in ring hybrid; do
  for set in "nodes=256" "nodes=2048"; do
    read -r a16 a256 aw <<< "$(predict "$chorus" $algo "$set" analytic)"
    echo "$algo,${set//,/;},,$a16,,$a256,,,,$aw," >> "$out"
  done
done
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) (sets: ; for ,)"
column -s, -t < "$out"
echo "written: $out"
