#!/usr/bin/env bash
# exp_plots_rendered.sh CHORUS EXPFILE PNGTOOL -- the plots of an experiment,
# rendered by gnuplot and read back (issue 19): each PNG is 1000x600 with
# antialiased lines, and draws both runs in their colours (gnuplot's lt 1
# #9400d3 and lt 2 #009e73) and nothing in a third (lt 3 #56b4e9, as a
# control); the SVG's x axis reads 4K ... 256K, every size a tic, none in
# 1.04858x10^6 notation. Exits 77 where gnuplot is missing (scripts/test
# installs it: the plots group of scripts/packages.txt).
set -u
chorus=$1 exp=$2 pngtool=$3
command -v gnuplot >/dev/null || { echo "skipped: gnuplot is not installed (scripts/setup-deps plots)"; exit 77; }
tmp=$(mktemp -d /tmp/chorus_plots_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$chorus" exp run "$exp" --out "$tmp/out" > "$tmp/log" 2>&1
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 3 ] || { cat "$tmp/log"; fail "exit $rc"; }
grep -q '^plots: .*group\*-busbw.{png,svg}, group\*-error.{png,svg}$' "$tmp/log" || fail "gnuplot did not run: $(grep plots: "$tmp/log")"
for kind in busbw error; do
  png="$tmp/out/group1-$kind.png"
  /usr/bin/python3 "$pngtool" "$png" 9400d3 009e73 56b4e9 > "$tmp/$kind.txt" || fail "$png could not be read"
  read -r w h colours < "$tmp/$kind.txt"
  [ "$w" = 1000 ] && [ "$h" = 600 ] || fail "$kind: ${w}x$h, expected 1000x600"
  [ "$colours" -ge 50 ] || fail "$kind: $colours colours: nothing antialiased was drawn"
  awk -v k="$kind" '$1 == "9400d3" && $2 < 100 { print k ": ring (lt 1) drawn in " $2 " pixels"; bad = 1 }
                    $1 == "009e73" && $2 < 100 { print k ": tree (lt 2) drawn in " $2 " pixels"; bad = 1 }
                    $1 == "56b4e9" && $2 > 20 { print k ": a third colour in " $2 " pixels"; bad = 1 }
                    END { exit bad }' "$tmp/$kind.txt" || fail "run colours in $kind.png: $(tr '\n' ' ' < "$tmp/$kind.txt")"
done
svg="$tmp/out/group1-busbw.svg"
for tic in 4K 16K 64K 256K; do grep -q ">$tic<" "$svg" || fail "no x tic $tic in $svg"; done
! grep -q 'x10' "$svg" || fail "sizes in exponent notation in $svg"
echo "ok: plots rendered, both runs drawn, sizes as 4K..256K"
