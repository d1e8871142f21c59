#!/usr/bin/env bash
# perf_baseline.sh CHORUS -- chorus perf --baseline (issue 21), as engineers keep baselines: the
# first run writes the file, the next compares every point with it; a point more than
# --tolerance slower fails the run (exit 1) and is marked; a baseline that cannot be read, or
# has no point of this run, is an error naming the file (and line); an output file that cannot
# be written is refused before anything runs.
set -u
chorus=$1
tmp=$(mktemp -d /tmp/chorus_baseline_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
perf() { "$chorus" perf allreduce -n 2 -b 4K -e 64K -f 4 -w 1 -i 3 "$@"; }

perf --baseline "$tmp/base.csv" > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the first run"; }
grep -q "Baseline             : written to $tmp/base.csv" "$tmp/out" || fail "not said written: $(cat "$tmp/out")"
[ "$(wc -l < "$tmp/base.csv")" -eq 7 ] || fail "base.csv: header + 3 sizes x 2 expected: $(cat "$tmp/base.csv")"

# Compared; 99.9 % tolerance: only a 1000x slowdown would fail (the machine may be busy).
perf --baseline "$tmp/base.csv" --tolerance 99.9 > "$tmp/out" 2>&1 || { cat "$tmp/out"; fail "the second run"; }
grep -q "6 of 6 points compared, 0 more than 99.9 % slower" "$tmp/out" || fail "summary: $(tail -3 "$tmp/out")"
grep -q '^ *16384 .*| base  out [0-9.]* [-+][0-9.]*%  in ' "$tmp/out" || fail "per-size columns: $(cat "$tmp/out")"

# A baseline 10^6 x faster at 16 KiB out of place: that point is SLOWER, the run exits 1 (99.9 %:
# the others pass however busy the machine).
awk -F, -v OFS=, 'NR > 1 && $10 == 16384 && $9 == 0 { $14 = $14 * 1e6 } { print }' "$tmp/base.csv" > "$tmp/fast.csv"
perf --baseline "$tmp/fast.csv" --tolerance 99.9 > "$tmp/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "a slower point: exit $rc, 1 expected: $(cat "$tmp/out")"
grep -q '^ *16384 .*out [0-9.]* -[0-9.]*% SLOWER' "$tmp/out" || fail "the point not marked: $(cat "$tmp/out")"
grep -q "6 of 6 points compared, 1 more than 99.9 % slower" "$tmp/out" || fail "summary: $(tail -3 "$tmp/out")"

# Files that are not baselines.
echo "collective,nranks,size_bytes" > "$tmp/bad1.csv"
perf --baseline "$tmp/bad1.csv" > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "bad1.csv:1: no column 'dtype'" "$tmp/out" || fail "missing column: $(cat "$tmp/out")"
awk -F, -v OFS=, 'NR == 3 { $10 = "lots" } { print }' "$tmp/base.csv" > "$tmp/bad2.csv"
perf --baseline "$tmp/bad2.csv" > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "bad2.csv:3: not a row of numbers" "$tmp/out" || fail "bad row: $(cat "$tmp/out")"
"$chorus" perf allreduce -n 2 -b 1M -e 1M -w 1 -i 2 --baseline "$tmp/base.csv" > "$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q "base.csv has no point of this run (allreduce, float, sum, 2 ranks" "$tmp/out" ||
  fail "nothing to compare: $(cat "$tmp/out")"

# Outputs that cannot be written: refused before the run.
perf --csv /nonexistent-dir/x.csv > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "^chorus perf: --csv /nonexistent-dir/x.csv: No such file or directory" "$tmp/out" &&
  ! grep -q "Avg bus bandwidth" "$tmp/out" || fail "--csv to nowhere: $(cat "$tmp/out")"
perf --baseline /nonexistent-dir/b.csv > "$tmp/out" 2>&1
[ $? -eq 2 ] && ! grep -q "Avg bus bandwidth" "$tmp/out" || fail "--baseline to nowhere: $(cat "$tmp/out")"
perf --baseline "$tmp/base.csv" --tolerance lots > "$tmp/out" 2>&1
[ $? -eq 2 ] && grep -q "tolerance: 'lots' is not a percentage" "$tmp/out" || fail "bad tolerance: $(cat "$tmp/out")"
echo "ok: baseline written, compared, a slower point fails, bad files named"
