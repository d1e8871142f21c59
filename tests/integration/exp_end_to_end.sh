#!/usr/bin/env bash
# exp_end_to_end.sh CHORUS EXPERIMENT NROWS -- runs an experiment into a
# fresh folder and checks what it promises: exit 0 or 3 (3: ran, missed the
# fidelity targets), compare.csv with the documented columns and one row per
# measured point with numbers in every measured column, report.md with a
# table per run, the gnuplot script, the raw CSVs, and a timeline (measured
# beside predicted ops of one traced call) per measured run.
set -u
chorus=$1 exp=$2 rows=$3
out=$(mktemp -d /tmp/chorus_exp_XXXXXX)
trap 'rm -rf "$out"' EXIT
"$chorus" exp run "$exp" --out "$out"
rc=$?
fail() { echo "FAIL: $*"; exit 1; }
[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "chorus exp exited $rc"
head -1 "$out/compare.csv" | grep -q '^collective,algo,nranks,nnodes,size_bytes,measured_busbw_GBps,predicted_busbw_GBps,error_pct' \
  || fail "compare.csv header: $(head -1 "$out/compare.csv")"
n=$(($(wc -l < "$out/compare.csv") - 1))
[ "$n" -eq "$rows" ] || fail "compare.csv has $n rows, expected $rows"
# Every row: measured and predicted positive, error consistent with them.
awk -F, 'NR > 1 { if (!($6 > 0) || !($7 > 0)) { print "row " NR ": busbw not positive: " $0; bad = 1 }
                  e = ($7 - $6) / $6 * 100; d = e - $8; if (d < 0) d = -d; if (d > 0.05 + 0.002 * (e < 0 ? -e : e)) { print "row " NR ": error " $8 " is not " e; bad = 1 } }
         END { exit bad }' "$out/compare.csv" || fail "compare.csv values"
runs=$(grep -c '^## ' "$out/report.md")
[ "$runs" -ge 1 ] || fail "report.md has no run tables"
[ -s "$out/plot.gp" ] || fail "no plot.gp"
ls "$out"/raw/*.predicted.csv >/dev/null 2>&1 || fail "no raw predicted CSVs"
ls "$out"/raw/*.measured.0.csv >/dev/null 2>&1 || fail "no raw measured CSVs"
# A timeline per measured run: one traced call beside its prediction (issue 22).
for run in $(ls "$out"/raw/*.measured.0.csv | sed 's|.*/||; s|\.measured\.0\.csv$||'); do
  [ -s "$out/timelines/$run.html" ] || fail "no timelines/$run.html"
  grep -q '"ph":"X"' "$out/raw/$run.trace-measured.json" || fail "raw/$run.trace-measured.json has no ops"
  grep -q '"ph":"X"' "$out/raw/$run.trace-predicted.json" || fail "raw/$run.trace-predicted.json has no ops"
done
echo "ok: $n compared points, $runs report sections, exit $rc"
