#!/usr/bin/env bash
# The fault benchmark: each fault (kill, abort, mismatch, missing rank,
# kill over sockets, ss -K reset over sockets, kill during set-up) injected
# TRIALS times (default 20) into a 3-rank job;
# prints the table (injected, survived with an error in time, hung, wrong)
# and writes it to scripts/bench/results/faults.txt. Hang reports the
# ranks write go to a temporary folder, removed afterwards.
# Usage: scripts/bench/faults.sh [BUILD_DIR] [TRIALS] [TIMEOUT_S]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
bench="$build/faults_bench"
[ -x "$bench" ] || { echo "faults.sh: $bench not built (cmake --build $build --target faults_bench)" >&2; exit 2; }
hang=$(mktemp -d /tmp/chorus_faults_XXXXXX)
trap 'rm -rf "$hang"' EXIT
out="$root/scripts/bench/results/faults.txt"
mkdir -p "$(dirname "$out")"
rc=0
{ echo "# $(date -u), $(uname -n), $(nproc) CPUs"; CHORUS_ALGOS="$root/algos" CHORUS_HANG_DIR="$hang" \
  "$bench" -t "${2:-20}" -T "${3:-3}" 2>/dev/null || rc=$?; } | tee "$out"
echo "hang reports written during the run: $(ls "$hang" | wc -l); table: $out"
exit $rc
