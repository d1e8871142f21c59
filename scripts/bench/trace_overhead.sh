#!/usr/bin/env bash
# trace_overhead.sh NEW_BUILD OLD_BUILD -- what the executor's op tracing
# (chorus perf --trace, exec_trace_next) costs. Off: NEW against OLD, a
# build of the commit before tracing (9bbabe9~), alternately ROUNDS times:
# 2-rank allreduce of 8 B (time per call, 2000 calls) and of 4 MiB (busbw,
# 50 calls); every op now passes one more untaken branch. On: the traced
# call of NEW, from the first op to the last in its trace, against the
# untraced calls' time at the same size (one call: indicative). Writes
# results/trace_overhead.csv (off), results/trace_overhead_on.csv (on) and
# prints a table.
# Usage: scripts/bench/trace_overhead.sh NEW_BUILD OLD_BUILD   (env: ROUNDS=5)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
new=$1 old=$2
res=$root/scripts/bench/results
mkdir -p "$res"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load before:$(uptime | sed 's/.*load average://')"
# time_us and busbw of the one out-of-place row of a perf CSV
row() { tail -1 "$1" | awk -F, '{ printf "%s,%s", $12, $14 }'; }
echo "round,build,size_bytes,time_us,busbw_GBps" >"$res/trace_overhead.csv"
for r in $(seq 1 "${ROUNDS:-5}"); do
  for b in old new; do
    dir=$old
    [ $b = new ] && dir=$new
    "$dir/chorus" perf allreduce -n 2 -b 8 -e 8 -w 100 -i 2000 --inplace 0 --csv "$tmp/s.csv" >/dev/null
    echo "$r,$b,8,$(row "$tmp/s.csv")" >>"$res/trace_overhead.csv"
    "$dir/chorus" perf allreduce -n 2 -b 4M -e 4M -w 5 -i 50 --inplace 0 --csv "$tmp/l.csv" >/dev/null
    echo "$r,$b,4194304,$(row "$tmp/l.csv")" >>"$res/trace_overhead.csv"
  done
done
# On: the traced call against the untraced ones, per size.
echo "size_bytes,traced_span_us,traced_ops,untraced_time_us" >"$res/trace_overhead_on.csv"
for s in 8 4194304; do
  "$new/chorus" perf allreduce -n 2 -b $s -e $s -w 5 -i 200 --inplace 0 --csv "$tmp/t.csv" --trace "$tmp/t.json" >/dev/null
  /usr/bin/python3 - "$tmp/t.json" "$(row "$tmp/t.csv")" $s >>"$res/trace_overhead_on.csv" <<'PY'
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))["traceEvents"] if e["ph"] == "X"]
t0 = min(e["ts"] for e in ev)
span = max(e["ts"] - t0 + e["dur"] for e in ev)
print(f"{sys.argv[3]},{span:.3f},{len(ev)},{sys.argv[2].split(',')[0]}")
PY
done
echo "# load after:$(uptime | sed 's/.*load average://')"
/usr/bin/python3 - "$res/trace_overhead.csv" "$res/trace_overhead_on.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
# The machine changes speed between rounds (a 4 MiB allreduce at 1.8 or 11 GB/s): the figure is the
# median of each round's new/old ratio, old and new having run back to back.
print(f"{'size':>9} {'old (median)':>16} {'new (median)':>16} {'new/old: median of rounds [range]':>36}")
for s, what in (("8", "time_us"), ("4194304", "busbw_GBps")):
    med = {b: statistics.median(float(r[what]) for r in rows if r["build"] == b and r["size_bytes"] == s)
           for b in ("old", "new")}
    pair = {}
    for r in rows:
        if r["size_bytes"] == s:
            pair.setdefault(r["round"], {})[r["build"]] = float(r[what])
    ratios = sorted(p["new"] / p["old"] for p in pair.values() if "new" in p and "old" in p)
    print(f"{s:>9} {med['old']:>13.3f} {what[:2]:>2} {med['new']:>13.3f} {what[:2]:>2} "
          f"{statistics.median(ratios):>14.3f} [{ratios[0]:.2f}-{ratios[-1]:.2f}]")
for r in csv.DictReader(open(sys.argv[2])):
    print(f"traced call of {r['size_bytes']} B: {float(r['traced_span_us']):.1f} us from the first op to the last "
          f"({r['traced_ops']} ops), untraced calls {float(r['untraced_time_us']):.1f} us")
PY
