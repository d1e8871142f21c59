#!/usr/bin/env bash
# Soak: CALLS random collectives (collective, count, type, op, algorithm,
# root; default 100000) on 4 forked ranks from one seed, every result
# checked, RSS sampled every 10000 calls. Prints per-rank RSS against calls
# and a summary per rank, writes scripts/bench/results/soak.csv
# (rank,calls,rss_kb). With --valgrind or --asan the same run goes under
# valgrind --leak-check=full (a short one is plenty) or expects an ASan build
# (LeakSanitizer at exit).
# Usage: scripts/bench/soak.sh [BUILD_DIR] [CALLS] [SEED] [--valgrind]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
calls=${2:-100000}
seed=${3:-1}
wrap=()
[ "${4:-}" = --valgrind ] && wrap=(valgrind --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9
  --trace-children=yes -q)
bench="$build/soak_bench"
[ -x "$bench" ] || { echo "soak.sh: $bench not built (cmake --build $build --target soak_bench)" >&2; exit 2; }
out="$root/scripts/bench/results/soak.csv"
mkdir -p "$(dirname "$out")"
export CHORUS_ALGOS="$root/algos"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
rc=0
start=$(date +%s)
"${wrap[@]}" "$bench" -n "$calls" -s "$seed" >"$log" 2>&1 || rc=$?
secs=$(($(date +%s) - start))
echo "rank,calls,rss_kb" >"$out"
{ grep '^rss ' "$log" || true; } | sed -E 's/rss rank=([0-9]+) calls=([0-9]+) rss_kb=([0-9]+)/\1,\2,\3/' | sort -t, -k1,1n -k2,2n >>"$out"
printf '%-6s %9s %9s\n' rank calls rss_KiB
tail -n +2 "$out" | while IFS=, read -r r c k; do printf '%-6s %9s %9s\n' "$r" "$c" "$k"; done
grep -v '^rss ' "$log" || true
echo "soak: $calls calls, seed $seed, $secs s wall, exit $rc; written: $out"
exit $rc
