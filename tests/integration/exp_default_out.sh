#!/usr/bin/env bash
# exp_default_out.sh CHORUS EXPERIMENT -- `chorus exp run NAME` without
# --out, as the README writes it, leaves the committed results alone: it
# writes chorus-results/NAME in the current directory, and
# experiments/results/NAME of the source tree it runs from (a scratch copy
# here) is not created.
set -u
chorus=$1 exp=$2
src=$(mktemp -d /tmp/chorus_src_XXXXXX)
cwd=$(mktemp -d /tmp/chorus_cwd_XXXXXX)
name=$(basename "$exp" .lua)
trap 'rm -rf "$src" "$cwd"' EXIT
mkdir -p "$src/experiments/results"
cp "$exp" "$src/experiments/"
fail() { echo "FAIL: $*"; exit 1; }
(cd "$cwd" && CHORUS_SOURCE="$src" "$chorus" exp run "$name" > "$cwd/out" 2>&1)
rc=$?
cat "$cwd/out"
[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "chorus exp exited $rc"
[ ! -e "$src/experiments/results/$name" ] || fail "it wrote into experiments/results/$name"
[ -s "$cwd/chorus-results/$name/compare.csv" ] || fail "no chorus-results/$name/compare.csv in the current directory"
grep -q "results in $(cd "$cwd" && pwd -P)/chorus-results/$name\|results in $cwd/chorus-results/$name" "$cwd/out" ||
  fail "the first line does not name $cwd/chorus-results/$name"
echo "ok: results in ./chorus-results/$name, experiments/results untouched"
