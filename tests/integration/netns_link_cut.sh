#!/usr/bin/env bash
# netns_link_cut.sh CHORUS -- a link cut mid-transfer: 2 namespace hosts
# (scripts/testbed) loop on 16 MiB allreduces; after a second host 1's link
# goes down. Both ranks must fail with an error naming the peer within
# CHORUS_TIMEOUT plus a margin -- no hang, no success reported.
# Exits 77 where namespaces cannot be made.
set -u
chorus=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
tb=$root/scripts/testbed
[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root to create network namespaces"; exit 77; }
ip netns add chorus_probe_$$ 2>/dev/null || { echo "skipped: cannot create network namespaces"; exit 77; }
ip netns del chorus_probe_$$
name=lc$(($$ % 100000))
out=$(mktemp -d /tmp/chorus_cut_XXXXXX)
trap '"$tb" down $name; rm -rf "$out"' EXIT
"$tb" up $name 2 10Gb/s || exit 1
export CHORUS_TIMEOUT=4 CHORUS_HANG_DIR=$out
"$tb" launch $name 1 -- "$chorus" perf allreduce -b 16M -e 16M -w 1 -i 100000 >"$out/log" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^ *16777216' "$out/log" 2>/dev/null && break; grep -q 'float' "$out/log" && break; sleep 0.1; done
sleep 1
ip -n $name-h1 link set eth0 down
t0=$(date +%s)
for _ in $(seq 300); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then
  cat "$out/log"; echo "FAIL: the ranks still run $(($(date +%s) - t0)) s after the cut"; kill $pid; exit 1
fi
wait $pid
rc=$?
dt=$(($(date +%s) - t0))
cat "$out/log"
echo "launch exit $rc, $dt s after the cut"
fail() { echo "FAIL: $*"; exit 1; }
[ $rc -ne 0 ] || fail "the ranks reported success after their link was cut"
grep -q "Out of bounds values : 0 OK" "$out/log" && fail "a rank printed a successful summary"
grep -Eq "rank [01].*(failed|waited|closed|peer)" "$out/log" || fail "no error naming a peer"
[ $dt -le $((CHORUS_TIMEOUT + 10)) ] || fail "took $dt s, more than CHORUS_TIMEOUT + 10"
echo "ok"
