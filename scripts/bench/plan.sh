#!/usr/bin/env bash
# Planner and verifier speed: ring and tree allreduce for 256, 1024 and 4096
# ranks, all ranks' programs planned and verified (out of place), each in its
# own process. Prints a table and writes scripts/bench/results/plan.csv.
# Target (issue 8): the 1024-rank ring in under 1 s and under 1 GiB.
# Usage: scripts/bench/plan.sh [BUILD_DIR] [RANKS...]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
ranks=("${@:-256 1024 4096}")
bench="$build/plan_bench"
[ -x "$bench" ] || { echo "plan.sh: $bench not built (scripts/build first)" >&2; exit 2; }
out="$root/scripts/bench/results/plan.csv"
mkdir -p "$(dirname "$out")"
echo "algo,collective,nranks,nnodes,ops,plan_s,verify_s,total_s,peak_rss_MiB" > "$out"
export CHORUS_ALGOS="$root/algos"
for algo in ring tree; do
  for n in ${ranks[@]}; do
    "$bench" "$algo" allreduce "$n" >> "$out"
  done
done
printf '%-6s %-10s %7s %10s %9s %9s %9s %10s\n' algo collective nranks ops plan_s verify_s total_s peak_MiB
tail -n +2 "$out" | while IFS=, read -r a c n nn ops p v t m; do
  printf '%-6s %-10s %7s %10s %9s %9s %9s %10s\n' "$a" "$c" "$n" "$ops" "$p" "$v" "$t" "$m"
done
echo "written: $out"
