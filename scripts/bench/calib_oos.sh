#!/usr/bin/env bash
# In-sample against out-of-sample calibration (issue 19): the quickstart
# experiment (ring, tree, hybrid allreduce on 2 local ranks, calibrated)
# run by two chorus binaries in alternating rounds, so that both see the
# same machine. BEFORE solves copy_bw, reduce_bw and mem_bw on the engine's
# ring allgather and reduce-scatter (the halves of the allreduce it then
# validates); AFTER on ring broadcast and reduce. Each round is a full
# `chorus exp run quickstart` (calibration, 5 interleaved repeats,
# prediction); its strict median |error| per algorithm and regime is read
# from compare.csv.
# Writes scripts/bench/results/calib_oos.csv (one row per round, binary and
# algorithm) and keeps each round's compare.csv, calibrated.lua, report.md and
# calibration logs under
# scripts/bench/results/calib_oos/.
# Usage: scripts/bench/calib_oos.sh BEFORE_CHORUS AFTER_CHORUS [ROUNDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 2 ] || { echo "usage: $0 BEFORE_CHORUS AFTER_CHORUS [ROUNDS]" >&2; exit 2; }
before=$1 after=$2 rounds=${3:-2}
for b in "$before" "$after"; do [ -x "$b" ] || { echo "calib_oos.sh: $b is not an executable" >&2; exit 2; }; done
export CHORUS_ALGOS="$root/algos" CHORUS_TOPOLOGIES="$root/topologies" CHORUS_SOURCE="$root"
res="$root/scripts/bench/results"
keep="$res/calib_oos"
out="$res/calib_oos.csv"
rm -rf "$keep"
mkdir -p "$keep"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg) at the start" > "$out"
echo "round,binary,algo,median_err_from_1M_pct,median_err_below_1M_pct,calib_set" >> "$out"

# summary DIR ROUND BINARY: one row per algorithm of DIR/compare.csv.
summary() {
  awk -F, -v round="$2" -v bin="$3" '
    function med(a, n,   i, j, t) {
      for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    NR > 1 && $6 != "" {
      e = $8 < 0 ? -$8 : $8
      if ($5 >= 1048576) L[$2, ++nl[$2]] = e; else S[$2, ++ns[$2]] = e
      algos[$2] = 1; cs = $15
    }
    END {
      for (a in algos) {
        delete x; for (i = 1; i <= nl[a]; i++) x[i] = L[a, i]; lg = med(x, nl[a])
        delete x; for (i = 1; i <= ns[a]; i++) x[i] = S[a, i]; sm = med(x, ns[a])
        printf "%s,%s,%s,%.1f,%.1f,%s\n", round, bin, a, lg, sm, cs
      }
    }' "$1/compare.csv" | sort
}

for r in $(seq 1 "$rounds"); do
  for which in before after; do
    bin=$before
    [ $which = after ] && bin=$after
    echo "# round $r/$rounds: $which ($bin)"
    rc=0
    "$bin" exp run quickstart --out "$tmp/$which$r" > "$tmp/$which$r.log" 2>&1 || rc=$?
    # 3: the targets were missed; the measurements are what this compares.
    [ $rc -eq 0 ] || [ $rc -eq 3 ] || { tail -20 "$tmp/$which$r.log"; echo "calib_oos.sh: $which exited $rc" >&2; exit 1; }
    mkdir -p "$keep/$which$r"
    cp "$tmp/$which$r/compare.csv" "$tmp/$which$r/calibrated.lua" "$tmp/$which$r/report.md" \
      "$tmp/$which$r"/raw/calibrate*.log "$keep/$which$r/"
    summary "$tmp/$which$r" "$r" "$which" | tee -a "$out"
  done
done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) at the end" >> "$out"
echo "wrote $out"
