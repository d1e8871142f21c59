#!/usr/bin/env bash
# Each instruction set's reduction kernel (dst = a + b, fp32/bf16/fp16) on
# 4 MiB arrays, one thread. Prints a table and writes
# scripts/bench/results/kernels.csv (or the file given by KERNELS_CSV).
# Usage: scripts/bench/kernels.sh [BUILD_DIR] [bench_kernels options...]
#   e.g. scripts/bench/kernels.sh build --size 256
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
shift || true
bench="$build/bench_kernels"
[ -x "$bench" ] || { echo "kernels.sh: $bench not built (scripts/build first)" >&2; exit 2; }
out=${KERNELS_CSV:-$root/scripts/bench/results/kernels.csv}
mkdir -p "$(dirname "$out")"
"$bench" --csv "$out" "$@"
echo "written: $out"
