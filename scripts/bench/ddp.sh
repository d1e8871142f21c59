#!/usr/bin/env bash
# ddp.sh -- python/examples/ddp_train.py with Chorus and with torch.distributed's Gloo, side by
# side: the default model (an MLP of 8.55 M float32 parameters: two DDP buckets of 16.1 and 16.5 MiB),
# 2 and 4 ranks as processes on this host, ROUNDS rounds alternating the backends (chorus, gloo,
# chorus, ...) so that a busy second hits both alike. Per run the first 2 steps are warm-up and
# left out; the table shows, per ranks and backend, the median over the other steps of every
# round of the step time and of the buckets' allreduce time (the ranks lined up before each), and
# the ratio gloo/chorus; then the engine alone on the same buckets (chorus perf, in place), the
# least the Chorus column can be on this machine. Writes results/ddp.csv (one row per step of
# every run) and prints the date, the load before and after, and the table (also into
# results/ddp.txt).
# Usage: scripts/bench/ddp.sh BUILD_DIR   (env: ROUNDS=3, RANKS="2 4", STEPS=12)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
res=$root/scripts/bench/results
mkdir -p "$res"
export CHORUS_LIBRARY=$build/engine/libchorus.so
[ -f "$CHORUS_LIBRARY" ] || { echo "ddp.sh: no $CHORUS_LIBRARY: build first (scripts/build $build)" >&2; exit 2; }
py=/usr/bin/python3
exec > >(tee "$res/ddp.txt")
steps=${STEPS:-12}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load before:$(uptime | sed 's/.*load average://')"
echo "round,ranks,backend,step,loss,step_ms,allreduce_ms" >"$res/ddp.csv"
for round in $(seq 1 "${ROUNDS:-3}"); do
  for n in ${RANKS:-2 4}; do
    for b in chorus gloo; do
      CHORUS_DEBUG=WARN "$py" "$root/python/examples/ddp_train.py" --backend "$b" --nprocs "$n" --steps "$steps" \
        --json "$tmp/r.json" >/dev/null
      "$py" - "$tmp/r.json" "$round" >>"$res/ddp.csv" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for s in r["steps"]:
    print(f"{sys.argv[2]},{r['nprocs']},{r['backend']},{s['step']},{s['loss']:.9g},{s['step_ms']:.3f},{s['allreduce_ms']:.3f}")
PY
    done
  done
done
# The engine alone on the same buckets, in place, as chorus perf measures it
# (median of 20 calls after 5): the least the Chorus column can be here.
buckets=$("$py" -c 'import json, sys; print(" ".join(str(b) for b in json.load(open(sys.argv[1]))["bucket_bytes"]))' "$tmp/r.json")
for n in ${RANKS:-2 4}; do
  total=0
  for b in $buckets; do
    us=$("$build/chorus" perf allreduce -n "$n" -b "$b" -e "$b" -w 5 -i 20 2>/dev/null | awk '/^ +[0-9]/ { print $10 }')
    total=$(awk -v t="$total" -v u="${us:-nan}" 'BEGIN { print t + u }')
  done
  echo "# engine alone (chorus perf, in place), $n ranks, buckets $buckets B: $(awk -v t="$total" 'BEGIN { printf "%.2f", t / 1000 }') ms"
done
echo "# load after:$(uptime | sed 's/.*load average://')"
"$py" - "$res/ddp.csv" <<'PY'
import csv, statistics, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if int(r["step"]) >= 2]
print(f"{'ranks':>5} {'backend':>7} {'step ms':>9} {'allreduce ms':>13} {'gloo/chorus':>12}")
for n in sorted({int(r["ranks"]) for r in rows}):
    med = {}
    for b in ("chorus", "gloo"):
        sel = [r for r in rows if int(r["ranks"]) == n and r["backend"] == b]
        med[b] = (statistics.median(float(r["step_ms"]) for r in sel),
                  statistics.median(float(r["allreduce_ms"]) for r in sel))
    for b in ("chorus", "gloo"):
        ratio = f"{med['gloo'][1] / med['chorus'][1]:.1f}x" if b == "gloo" else ""
        print(f"{n:>5} {b:>7} {med[b][0]:>9.1f} {med[b][1]:>13.2f} {ratio:>12}")
PY
