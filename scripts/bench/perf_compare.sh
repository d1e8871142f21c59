#!/usr/bin/env bash
# perf_compare.sh -- float32 sum allreduce, 8 B .. 256 MiB, 2 and 4 ranks as
# processes: chorus perf (shm), Open MPI's MPI_Allreduce (btl self,vader) and
# Gloo's ring allreduce (TCP loopback), one after the other in one run.
# Writes results/compare_{chorus,mpi,gloo}_N.csv (chorus perf's schema) and
# prints busbw side by side. The memory-bandwidth bound comes from
# results/stream.csv (scripts/bench/stream.sh).
# Usage: scripts/bench/perf_compare.sh BUILD_DIR [MAX_BYTES]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
max=${2:-268435456}
res=$root/scripts/bench/results
mkdir -p "$res"
mpicc -O2 -o "$build/mpi_allreduce" "$root/scripts/bench/mpi_allreduce.c"
g++ -O2 -std=c++17 -o "$build/gloo_allreduce" "$root/scripts/bench/gloo_allreduce.cc" -lgloo -lpthread
for n in 2 4; do
  "$build/chorus" perf allreduce -n $n -b 8 -e $max -f 2 -w 5 -i 50 --inplace 0 --csv "$res/compare_chorus_$n.csv" >/dev/null
  mpirun --allow-run-as-root --oversubscribe -np $n --mca btl self,vader "$build/mpi_allreduce" $max >"$res/compare_mpi_$n.csv"
  "$build/gloo_allreduce" $n $max >"$res/compare_gloo_$n.csv"
  echo "# $n ranks: busbw GB/s (time us)"
  printf "%12s %18s %18s %18s\n" size chorus mpi gloo
  paste -d, <(tail -n +2 "$res/compare_chorus_$n.csv" | cut -d, -f10,12,14) \
    <(tail -n +2 "$res/compare_mpi_$n.csv" | cut -d, -f12,14) <(tail -n +2 "$res/compare_gloo_$n.csv" | cut -d, -f12,14) |
    awk -F, '{printf "%12d %8.3f (%7.1f) %8.3f (%7.1f) %8.3f (%7.1f)\n", $1, $3, $2, $5, $4, $7, $6}'
done
