#!/usr/bin/env bash
# Simulator output before and after a change: runs the same `chorus sim`
# cases with two binaries and compares, byte for byte, the table with
# `--links=all`, the `--trace` JSON (every step and op in the order the
# simulator handled them), the `--timeline` SVG and the CSV. Ring, tree,
# hybrid (and the other shipped scripts) on dgx-cluster, fat-tree (spread,
# 2:1), dgx-h100, pcie-8gpu and star, every collective, with other
# protocols and channel counts on some. A case that fails must fail the same
# way with both binaries (exit status and message).
# Usage: scripts/bench/sim_identical.sh BEFORE_BINARY AFTER_BINARY [WORKDIR]
#   SIM_IDENTICAL_QUICK=1   fewer cases (one size range, ring/tree/hybrid only)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 BEFORE AFTER [WORKDIR]" >&2; exit 2; }
before=$1 after=$2
work=${3:-$(mktemp -d)}
mkdir -p "$work"
export CHORUS_ALGOS="$root/algos" CHORUS_TOPOLOGIES="$root/topologies"
topos=("dgx-cluster nodes=4" "dgx-cluster nodes=16" "fat-tree oversub=2,placement=spread" "fat-tree oversub=2"
       "dgx-h100 -" "pcie-8gpu -" "star nodes=16" "star nodes=64,bw=25GB/s,lat=1us")
colls="allreduce broadcast reduce allgather reducescatter alltoall"
algos="ring tree hybrid rd rhd direct"
extra=("" "-p LL" "-p LL128 -c 2" "-c 3 --steps 16 --steps-per-chunk 2")
if [ "${SIM_IDENTICAL_QUICK:-0}" = 1 ]; then algos="ring tree hybrid"; extra=(""); fi
n=0 same=0 differ=0 failed_both=0
run_case() { # tag binary args...
  local tag=$1 bin=$2; shift 2
  local rc=0
  "$bin" sim "$@" --links=all --trace "$work/$tag.trace.json" --timeline "$work/$tag.svg" --csv "$work/$tag.csv" \
    > "$work/$tag.out" 2> "$work/$tag.err" || rc=$?
  echo "$rc" > "$work/$tag.rc"
}
for tp in "${topos[@]}"; do
  topo=${tp%% *} set=${tp#* }
  setarg=(); [ "$set" != - ] && setarg=(--set "$set")
  for coll in $colls; do
    for algo in $algos; do
      for x in "${extra[@]}"; do
        # shellcheck disable=SC2206
        xa=($x)
        args=("$coll" --topo "$topo" "${setarg[@]}" -a "$algo" -b 1K -e 16M -f 32 "${xa[@]}")
        n=$((n + 1))
        run_case a "$before" "${args[@]}"
        run_case b "$after" "${args[@]}"
        ok=1
        for f in out err rc trace.json svg csv; do
          if [ -e "$work/a.$f" ] || [ -e "$work/b.$f" ]; then
            cmp -s "$work/a.$f" "$work/b.$f" || { ok=0; echo "DIFFER ($f): chorus sim ${args[*]}"; }
          fi
        done
        if [ "$(cat "$work/a.rc")" != 0 ]; then failed_both=$((failed_both + 1)); fi
        if [ $ok = 1 ]; then same=$((same + 1)); else differ=$((differ + 1)); cp "$work/a.out" "$work/differ$n.a.out"; cp "$work/b.out" "$work/differ$n.b.out"; fi
        rm -f "$work"/a.* "$work"/b.*
      done
    done
  done
done
# Large cases without a trace (it would take gigabytes): the benchmark's
# 1024-rank fat tree and star, and the analytic mode.
big=("allreduce --topo dgx-cluster --set nodes=128 -b 256M -e 256M --no-verify"
     "allreduce --topo star --set nodes=1024 -b 256M -e 256M --no-verify"
     "allreduce --topo dgx-cluster --set nodes=64 -a tree -b 64M -e 64M --no-verify"
     "allreduce --topo dgx-cluster --set nodes=128 -b 1M -e 256M -f 16 --model analytic"
     "allgather --topo star --set nodes=256 -b 1M -e 64M -f 8 --model analytic -c 2")
[ "${SIM_IDENTICAL_QUICK:-0}" = 1 ] && big=("${big[@]:3}")
for c in "${big[@]}"; do
  # shellcheck disable=SC2206
  args=($c)
  n=$((n + 1))
  "$before" sim "${args[@]}" --links=all > "$work/a.out" 2>&1 || true
  "$after" sim "${args[@]}" --links=all > "$work/b.out" 2>&1 || true
  if cmp -s "$work/a.out" "$work/b.out"; then same=$((same + 1)); else differ=$((differ + 1)); echo "DIFFER: chorus sim $c"; fi
  rm -f "$work"/a.* "$work"/b.*
done
echo "sim_identical: $n cases, $same identical ($failed_both of them fail alike, e.g. an algorithm without that collective), $differ differ"
[ "$differ" = 0 ]
