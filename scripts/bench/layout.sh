#!/usr/bin/env bash
# The hot paths before and after a change of layout (issue 18): two builds
# of the tree, run in alternating pairs so that both see the same load.
#   perf8     chorus perf allreduce -n 2 at 8 B: time per call (us), the
#             latency path (tuner, plan lookup, tag, one step per rank)
#   perf64M   the same at 64 MiB: bus bandwidth (GB/s), the step loop
#   plan1024  plan_bench ring allreduce 1024: plan + verify seconds
#   sim1024   chorus sim allreduce on dgx-cluster nodes=128 (1024 ranks),
#             256 MiB: the simulation's own seconds (--stats)
# Prints a table of every pair and the medians; writes
# scripts/bench/results/layout.csv (one row per run).
# Usage: scripts/bench/layout.sh BEFORE_BUILD AFTER_BUILD [PAIRS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_BUILD AFTER_BUILD [PAIRS]" >&2; exit 2; }
before=$1 after=$2 pairs=${3:-5}
for b in "$before" "$after"; do
  for f in chorus plan_bench; do
    [ -x "$b/$f" ] || { echo "layout.sh: $b/$f not built" >&2; exit 2; }
  done
done
export CHORUS_ALGOS="$root/algos" CHORUS_TOPOLOGIES="$root/topologies"
out="$root/scripts/bench/results/layout.csv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)" > "$out"
echo "pair,binary,case,value,unit" >> "$out"

# perf BUILD SIZE COLUMN: one chorus perf point; prints out-of-place time
# (us) or bus bandwidth (GB/s) from its CSV.
perf() {
  "$1/chorus" perf allreduce -n 2 -b "$2" -e "$2" -w 20 -i 200 --inplace 0 --csv "$tmp/p.csv" > /dev/null
  local col
  col=$(head -1 "$tmp/p.csv" | tr ',' '\n' | grep -n -x "$3" | cut -d: -f1)
  [ -n "$col" ] || { echo "layout.sh: no column $3 in chorus perf --csv" >&2; exit 1; }
  tail -1 "$tmp/p.csv" | cut -d, -f"$col"
}
plan() { "$1/plan_bench" ring allreduce 1024 | cut -d, -f8; }
sim() {
  "$1/chorus" sim allreduce --topo dgx-cluster --set nodes=128 -b 256M -e 256M --no-verify --stats 2>&1 |
    sed -n 's/.*simulation \([0-9.]*\) s.*/\1/p' | head -1
}

row() { # pair binary case value unit
  [ -n "$4" ] || { echo "layout.sh: $3 with $2 gave no number" >&2; exit 1; }
  echo "$1,$2,$3,$4,$5" >> "$out"
}
for i in $(seq "$pairs"); do
  for which in before after; do
    b=$before; [ $which = after ] && b=$after
    row "$i" $which perf8 "$(perf "$b" 8 time_us)" us
    row "$i" $which perf64M "$(perf "$b" 64M busbw_GBps)" GB/s
    row "$i" $which plan1024 "$(plan "$b")" s
    row "$i" $which sim1024 "$(sim "$b")" s
  done
done

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '%-9s %-6s %-40s %8s\n' case unit "runs (before | after)" "median b/a"
for c in perf8 perf64M plan1024 sim1024; do
  unit=$(grep ",$c," "$out" | head -1 | cut -d, -f5)
  bv=$(grep ",before,$c," "$out" | cut -d, -f4 | paste -sd' ')
  av=$(grep ",after,$c," "$out" | cut -d, -f4 | paste -sd' ')
  bm=$(grep ",before,$c," "$out" | cut -d, -f4 | median)
  am=$(grep ",after,$c," "$out" | cut -d, -f4 | median)
  printf '%-9s %-6s %-40s %s -> %s\n' "$c" "$unit" "$bv | $av" "$bm" "$am"
done
echo "written: $out"
