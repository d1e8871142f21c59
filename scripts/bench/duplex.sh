#!/usr/bin/env bash
# One way against both ways (issue 19): on 2 local ranks, chorus perf
# against chorus sim on a calibrated topology, for the calibration's own
# one-way pipeline (ring broadcast), the two-way exchanges the model is
# asked to predict (direct alltoall, ring allgather, allreduce), and the
# allreduce again with copy_bw and reduce_bw scaled by the alltoall's
# measured/predicted ratio -- what a duplex penalty in the model would give.
# Writes scripts/bench/results/duplex.csv: one row per (collective, algo,
# size): measured us, predicted us, error %, and for allreduce the error
# with the scaled rates.
# Usage: scripts/bench/duplex.sh BUILD CALIBRATED_TOPOLOGY
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 2 ] || { echo "usage: $0 BUILD CALIBRATED_TOPOLOGY" >&2; exit 2; }
chorus=$1/chorus topo=$2
[ -x "$chorus" ] || { echo "duplex.sh: $chorus not built" >&2; exit 2; }
[ -r "$topo" ] || { echo "duplex.sh: cannot read $topo" >&2; exit 2; }
export CHORUS_ALGOS="$root/algos" CHORUS_TOPOLOGIES="$root/topologies"
# The model replays the data path: the broadcast without the agreement on
# its root that the engine makes by default (CHORUS_AGREE, engine/exec.c).
export CHORUS_AGREE=none
out="$root/scripts/bench/results/duplex.csv"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rate() { sed -n "s/^  $1 *= \"\\([0-9.]*\\)GB\\/s\".*/\\1/p" "$topo"; }
copy=$(rate copy_bw) reduce=$(rate reduce_bw)
[ -n "$copy" ] && [ -n "$reduce" ] || { echo "duplex.sh: no copy_bw/reduce_bw in $topo" >&2; exit 1; }
{
  echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); topology $topo"
  echo "collective,algo,size_bytes,measured_us,predicted_us,error_pct,scaled_predicted_us,scaled_error_pct"
} > "$out"
# times COLL ALGO [SET]: size and out-of-place time per row, measured or predicted.
measure() { "$chorus" perf "$1" -n 2 -a "$2" -c 1 -b 1M -e 4M -f 4 -w 20 -i 100 | awk '!/^#/ { print $1, $6 }'; }
predict() {
  "$chorus" sim "$1" --topo "$topo" --set "ranks=2,cores=2${3:+,$3}" -n 2 -a "$2" -c 1 -b 1M -e 4M -f 4 |
    awk '!/^#/ { print $6 }'
}
row() { # COLL ALGO [SCALED_SET]
  measure "$1" "$2" > "$tmp/m"
  predict "$1" "$2" > "$tmp/p"
  if [ -n "${3:-}" ]; then predict "$1" "$2" "$3" > "$tmp/q"; else awk '{ print "" }' "$tmp/p" > "$tmp/q"; fi
  paste -d' ' "$tmp/m" "$tmp/p" "$tmp/q" | awk -v c="$1" -v a="$2" '{
    e = ($3 - $2) / $2 * 100
    if ($4 == "") printf "%s,%s,%s,%.2f,%.2f,%.1f,,\n", c, a, $1, $2, $3, e
    else printf "%s,%s,%s,%.2f,%.2f,%.1f,%.2f,%.1f\n", c, a, $1, $2, $3, e, $4, ($4 - $2) / $2 * 100 }' | tee -a "$out"
}
row broadcast ring
row alltoall direct
row allgather ring
# The alltoall's measured/predicted rate ratio (geometric mean of its sizes).
f=$(awk -F, '$1 == "alltoall" { s += log($5 / $4); n++ } END { printf "%.4f", exp(s / n) }' "$out")
scaled="copy_bw=$(awk -v c="$copy" -v f="$f" 'BEGIN { printf "%.4g", c * f }')GB/s,reduce_bw=$(awk -v r="$reduce" -v f="$f" 'BEGIN { printf "%.4g", r * f }')GB/s"
echo "# alltoall measured/predicted rate $f: allreduce also predicted with $scaled" | tee -a "$out"
for a in ring tree hybrid rd rhd; do row allreduce "$a" "$scaled"; done
echo "wrote $out"
