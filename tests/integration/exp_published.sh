#!/usr/bin/env bash
# exp_published.sh CHORUS EXPDIR SOURCE -- testbed "published" (issue 20):
# published points read from the experiment's CSV (quoted fields, fit rows
# left out), predicted per system on its own topology at exactly the
# published sizes, judged together (per class, all, and the worst factor):
# a 2.5x point is a miss and exit 3. Then the shipped experiment: every check
# point of experiments/published/allreduce.csv predicted, none lost.
set -u
chorus=$1 dir=$2 src=$3
tmp=$(mktemp -d /tmp/chorus_published_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$chorus" exp run "$dir/published-small.lua" --out "$tmp/small" > "$tmp/log" 2>&1
rc=$?
[ $rc -eq 3 ] || { cat "$tmp/log"; fail "exit $rc, expected 3 (sys-b is 2.5x off)"; }
grep -q '(1 fit points not judged)' "$tmp/log" || fail "the fit row: $(head -3 "$tmp/log")"
csv="$tmp/small/compare.csv"
[ "$(tail -n +2 "$csv" | wc -l)" = 3 ] || fail "compare.csv rows: $(cat "$csv")"
awk -F, 'NR > 1 { n[$16 " " $5] = $6 } END {
  exit !(n["sys-a 67108864"] == 9.9 && n["sys-a 268435456"] == 10 && n["sys-b 67108864"] == 4) }' "$csv" ||
  fail "published values or sizes: $(cat "$csv")"
awk -F, 'NR > 1 && $16 == "sys-a" && ($8 > 5 || $8 < -5) { bad = 1 } END { exit bad }' "$csv" ||
  fail "sys-a is 10 GB/s on a 10 GB/s star: $(cat "$csv")"
md="$tmp/small/report.md"
grep -q '^| a | 2 | [0-9.]*% | 15% |$' "$md" || fail "class a row: $(grep '^| a' "$md")"
grep -q '^| b | 1 | 1[45][0-9].[0-9]% | 15% \*\*miss\*\* |$' "$md" || fail "class b row: $(grep '^| b' "$md")"
grep -q 'off by a factor of 2\.[45]' "$md" || fail "the worst point: $(grep 'worst' "$md")"
grep -q '^Source: <https://example.org/b>$' "$md" || fail "sources in report.md"
grep -q '^verdict: published-small misses its targets' "$tmp/log" || fail "verdict: $(grep verdict "$tmp/log")"

"$chorus" exp run published --out "$tmp/pub" > "$tmp/plog" 2>&1
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 3 ] || { tail -20 "$tmp/plog"; fail "published: exit $rc"; }
grep -q '^verdict: published \(meets\|misses\) its targets' "$tmp/plog" || fail "published verdict: $(grep verdict "$tmp/plog")"
# proto = "auto": every predicted size names the protocol it was predicted with.
rows=$(grep -c '^| [0-9]*[KMG] | [0-9.]* | [0-9.-]* | [0-9.]* | [+-][0-9.]*% | [a-z]* | \(simple\|LL\|LL128\) |$' \
  "$tmp/pub/report.md")
[ "$rows" -ge 20 ] || fail "published report: $rows rows name their protocol: $(grep -m3 '^| [0-9]' "$tmp/pub/report.md")"
want=$(awk -F, 'NR > 1 && $3 == "check"' "$src/experiments/published/allreduce.csv" | wc -l)
got=$(tail -n +2 "$tmp/pub/compare.csv" | awk -F, '$6 > 0 && $7 > 0' | wc -l)
[ "$want" -ge 20 ] && [ "$got" = "$want" ] || fail "published: $got of $want check points predicted"
echo "ok: published points read, predicted and judged ($got shipped points)"
