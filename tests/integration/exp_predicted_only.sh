#!/usr/bin/env bash
# exp_predicted_only.sh CHORUS EXPFILE -- an experiment that only predicts
# (testbed none, as whatif.lua) reports predictions, not empty measured
# columns: run tables of size and predicted busbw, crossings with "-" for
# the measurement and "not measured" instead of a 0-byte crossing that
# misses, no error plot, and a verdict that says nothing was judged.
set -u
chorus=$1 exp=$2
tmp=$(mktemp -d /tmp/chorus_predicted_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$chorus" exp run "$exp" --out "$tmp/out" > "$tmp/log" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$tmp/log"; fail "exit $rc, expected 0"; }
grep -q '^verdict: predicted predicted only (nothing measured, no target judged)$' "$tmp/log" ||
  fail "verdict line: $(grep verdict "$tmp/log")"
! grep -q '^note: the machine was noisy' "$tmp/log" || fail "a machine note for a run that measured nothing"
md="$tmp/out/report.md"
[ "$(grep -c '^| size | predicted busbw (GB/s) |$' "$md")" = 2 ] || fail "run tables are not size and prediction"
! grep -q '^| [0-9]*[KMG] | - |' "$md" || fail "empty measured columns in report.md"
grep -q '^| allreduce | 16 | nodes=2 | ring / tree | - | [0-9]* | - | not measured | - |$' "$md" ||
  fail "the predicted crossing: $(grep '^| allreduce' "$md")"
grep -q '^Nothing was measured (predictions only): no target is judged.$' "$md" || fail "report.md verdict"
awk -F, 'NR == 2 && !($6 == "" && $7 > 0 && $8 == "" && $9 == "") { bad = 1 } END { exit bad || NR != 2 }' \
  "$tmp/out/crossovers.csv" || fail "crossovers.csv: $(cat "$tmp/out/crossovers.csv")"
! grep -q "error" <(grep "^set output" "$tmp/out/plot.gp") || fail "plot.gp writes an error plot with nothing measured"
echo "ok: predictions reported as predictions"
