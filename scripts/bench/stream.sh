#!/usr/bin/env bash
# Memory bandwidth: memcpy, kern_copy and add (kern_reduce fp32 sum) on 1 and
# 2 threads, arrays of 1 MiB to 256 MiB. The bound the engine's bandwidth
# targets are measured against. Prints a table and writes
# scripts/bench/results/stream.csv (or the file given by STREAM_CSV).
# Usage: scripts/bench/stream.sh [BUILD_DIR] [bench_stream options...]
#   e.g. scripts/bench/stream.sh build --threads 1 --max 64
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
bench="$build/bench_stream"
[ -x "$bench" ] || { echo "stream.sh: $bench not built (scripts/build first)" >&2; exit 2; }
out=${STREAM_CSV:-$root/scripts/bench/results/stream.csv}
mkdir -p "$(dirname "$out")"
"$bench" --csv "$out" "$@"
echo "written: $out"
