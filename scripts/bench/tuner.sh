#!/usr/bin/env bash
# tuner.sh -- is `chorus perf -a auto` (the tuner's choice, from the
# simulator's cost model) within 5% of the best fixed algorithm and channel
# count at every size? float32 sum allreduce, out of place, 8 B .. MAX by 4x.
# Every configuration (auto, and each algorithm the tuner weighs on 1 and 2
# channels) runs ROUNDS times, the configurations in a fresh random order
# each round, so that a busy second of a shared machine does not land on one
# of them only; per size the median busbw of each is compared.
# Local: N ranks as processes over shm. With NETNS=H, H namespace hosts of
# N ranks each (scripts/testbed, links shaped to RATE, default 1gbit).
# Writes results/tuner_<where>.csv (size, auto's choice, auto busbw, the best
# fixed configuration and its time, ratio), every round's rows in
# results/tuner_<where>_rounds.txt, and prints the table.
# Compared are the median times per call (µs, two decimals: busbw rounds
# small sizes to nothing); ratio = best fixed time / auto time.
# Usage: scripts/bench/tuner.sh BUILD_DIR [N]   (env: ROUNDS=5, MAX=64M, NETNS=0, RATE=1gbit)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
n=${2:-2}
rounds=${ROUNDS:-5}
max=${MAX:-64M}
hosts=${NETNS:-0}
res=$root/scripts/bench/results
mkdir -p "$res"
tmp=$(mktemp -d /tmp/chorus_tuner_XXXXXX)
name=tunr
if [ "$hosts" -gt 0 ]; then
  [ "$(id -u)" -eq 0 ] || { echo "tuner.sh: NETNS needs root (network namespaces); skipped" >&2; exit 77; }
  trap '"$root/scripts/testbed" down $name; rm -rf "$tmp"' EXIT
  "$root/scripts/testbed" up $name "$hosts" "${RATE:-1gbit}" >/dev/null
  where="netns${hosts}x$n"
  configs="auto ring/1 ring/2 tree/1 tree/2 hybrid/1 hybrid/2 rd/1 rd/2 rhd/1 rhd/2"
else
  trap 'rm -rf "$tmp"' EXIT
  where="local$n"
  configs="auto ring/1 ring/2 tree/1 tree/2 rd/1 rd/2 rhd/1 rhd/2"
fi
trap 'exit 130' INT TERM
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; $where; $rounds rounds; load before:$(uptime | sed 's/.*load average://')"
: >"$tmp/raw"
for r in $(seq 1 "$rounds"); do
  for cfg in $(printf '%s\n' $configs | shuf); do
    args=()
    [ "$cfg" = auto ] || args=(-a "${cfg%/*}" -c "${cfg#*/}")
    if [ "$hosts" -gt 0 ]; then
      out=$(timeout 600 "$root/scripts/testbed" launch $name "$n" -- "$build/chorus" perf allreduce -b 8 -e "$max" \
        -f 4 -w 10 -i 100 --inplace 0 "${args[@]}" 2>/dev/null) || { echo "# $cfg round $r failed" >&2; continue; }
    else
      out=$(timeout 600 "$build/chorus" perf allreduce -n "$n" -b 8 -e "$max" -f 4 -w 10 -i 100 --inplace 0 \
        "${args[@]}" 2>/dev/null) || { echo "# $cfg round $r failed" >&2; continue; }
    fi
    # Rows: size count type redop root time algbw busbw wrong - - - - algo/ch
    printf '%s\n' "$out" | awk -v cfg="$cfg" '$1 ~ /^[0-9]+$/ && NF >= 14 { print cfg, $1, $6, $NF }' >>"$tmp/raw"
  done
done
out="$res/tuner_$where.csv"
cp "$tmp/raw" "$res/tuner_${where}_rounds.txt" # config size time_us ran, every round
awk -v out="$out" '
  function median(key,   c, a, i, j, x, s) {
    c = split(vals[key], a, " ")
    for (i = 2; i <= c; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return a[int((c + 1) / 2)]
  }
  { key = $1 SUBSEP $2; vals[key] = vals[key] " " $3; if (!($2 in seen)) { seen[$2] = 1; sizes[++ns] = $2 }
    if ($1 == "auto") chose[$2] = chose[$2] (chose[$2] == "" ? "" : ",") $4; cfgs[$1] = 1 }
  END {
    print "size_bytes,auto_choice,auto_time_us,best_fixed,best_time_us,ratio" > out
    printf "%12s %-12s %12s %-10s %12s %7s\n", "size", "auto chose", "auto us", "best", "best us", "ratio"
    for (i = 1; i <= ns; i++) {
      s = sizes[i]; best = ""; bb = -1
      for (c in cfgs) if (c != "auto" && ((c SUBSEP s) in vals)) { m = median(c SUBSEP s) + 0; if (bb < 0 || m < bb) { bb = m; best = c } }
      a = median("auto" SUBSEP s) + 0
      # one choice per round; the same in every round is the normal case
      split(chose[s], ch, ","); pick = ch[1]; for (k in ch) if (ch[k] != pick) pick = chose[s]
      ratio = a > 0 ? bb / a : 1
      if (ratio >= 0.95) within++; total++
      printf "%12d %-12s %12.2f %-10s %12.2f %7.2f%s\n", s, pick, a, best, bb, ratio, (ratio >= 0.95 ? "" : "  <")
      printf "%d,%s,%.2f,%s,%.2f,%.3f\n", s, pick, a, best, bb, ratio >> out
    }
    printf "# auto within 5%% of the best fixed configuration at %d of %d sizes (< marks the others)\n", within, total
  }' "$tmp/raw"
echo "# load after:$(uptime | sed 's/.*load average://'); written $out"
