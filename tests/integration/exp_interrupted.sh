#!/usr/bin/env bash
# exp_interrupted.sh CHORUS EXPERIMENT -- Ctrl-C during a namespace
# experiment: chorus exp must exit 130 within seconds and leave none of its
# namespaces behind. Exits 77 where namespaces cannot be made.
set -u
chorus=$1 exp=$2
[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root to create network namespaces"; exit 77; }
if ! ip netns add chorus_probe_$$ 2>/dev/null; then echo "skipped: cannot create network namespaces"; exit 77; fi
ip netns del chorus_probe_$$
out=$(mktemp -d /tmp/chorus_exp_XXXXXX)
trap 'rm -rf "$out"' EXIT
"$chorus" exp run "$exp" --out "$out" >"$out/stdout" 2>&1 &
pid=$!
# Wait until its testbed is up and a run has started, then interrupt.
for _ in $(seq 100); do grep -q '^# repeat 1' "$out/stdout" 2>/dev/null && break; sleep 0.1; done
grep -q '^# repeat 1' "$out/stdout" || { cat "$out/stdout"; echo "FAIL: the experiment never started a run"; kill -9 $pid; exit 1; }
kill -INT $pid
t0=$(date +%s)
wait $pid
rc=$?
dt=$(($(date +%s) - t0))
left=$(ip netns list | awk '{print $1}' | grep -c "^cx$pid-" || true)
cat "$out/stdout"
echo "exit $rc after ${dt}s, namespaces left: $left"
[ $rc -eq 130 ] && [ "$left" -eq 0 ] && [ $dt -le 15 ]
