#!/usr/bin/env bash
# calibrate_netns.sh CHORUS -- `chorus calibrate` across two "hosts": network
# namespaces joined by a veth pair, ranks launched torchrun-style, so rank 0's
# peer is on another host and the socket link class is measured and fitted;
# the written netns topology is loaded back by the simulator. Exits 77 with
# the reason when namespaces cannot be made.
set -u
chorus=$1
a=chorus_cna_$$ b=chorus_cnb_$$
dir=$(mktemp -d /tmp/chorus_caln_XXXXXX)
cleanup() { ip netns del $a 2>/dev/null; ip netns del $b 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
if ! command -v ip >/dev/null; then echo "skipped: iproute2 (ip) is not installed"; exit 77; fi
if ! ip netns add $a 2>"$dir/err" || ! ip netns add $b 2>>"$dir/err"; then
  echo "skipped: cannot create network namespaces: $(head -1 "$dir/err") (needs root / CAP_SYS_ADMIN)"; exit 77
fi
if ! ip link add va_$$ netns $a type veth peer name vb_$$ netns $b 2>/dev/null; then
  echo "skipped: cannot create a veth pair"; exit 77
fi
ip -n $a addr add 10.232.0.1/24 dev va_$$ && ip -n $a link set va_$$ up && ip -n $a link set lo up
ip -n $b addr add 10.232.0.2/24 dev vb_$$ && ip -n $b link set vb_$$ up && ip -n $b link set lo up
port=$((20000 + $$ % 20000))
export CHORUS_TIMEOUT=${CHORUS_TIMEOUT:-30}
args=(calibrate --sizes 8:1M --repeats 3 --topo netns --out "$dir/cal.lua")
ip netns exec $b env RANK=1 WORLD_SIZE=2 MASTER_ADDR=10.232.0.1 MASTER_PORT=$port "$chorus" "${args[@]}" \
  >"$dir/r1" 2>&1 &
p1=$!
ip netns exec $a env RANK=0 WORLD_SIZE=2 MASTER_ADDR=10.232.0.1 MASTER_PORT=$port "$chorus" "${args[@]}" \
  >"$dir/r0" 2>&1
rc0=$?
wait $p1
rc1=$?
cat "$dir/r0" "$dir/r1"
[ $rc0 = 0 ] && [ $rc1 = 0 ] || fail "ranks exited $rc0 and $rc1"
grep -q "2 ranks on 2 hosts" "$dir/r0" || fail "the ranks did not count as 2 hosts"
grep -q "^# socket: alpha .* R^2" "$dir/r0" || fail "no socket fit in the report"
# Across hosts the engine's ring broadcast over both is measured (not the
# allreduce or allgather the experiments validate), and sock_bw solved from
# it (written) or the reason it was not (the links limit it).
grep -q "^  ring broadcast 16 MiB over 2 hosts .* us" "$dir/r0" || fail "no ring broadcast over the hosts in the report"
if grep -q -- "-> sock_bw " "$dir/r0"; then
  grep -q '^  sock_bw *= "' "$dir/cal.lua" || fail "sock_bw solved but not written"
else
  grep -q "^#   sock_bw: not solved (" "$dir/r0" || fail "sock_bw neither solved nor said why"
fi
for p in rate delay reduce_bw op_overhead; do grep -q "^  $p *= \"" "$dir/cal.lua" || fail "the written topology lacks $p"; done
"$chorus" sim allreduce --topo "$dir/cal.lua" --set hosts=2 -b 1M -e 1M >"$dir/sim" 2>&1 ||
  { cat "$dir/sim"; fail "chorus sim could not use the written topology"; }
cat "$dir/sim"
echo "calibrate_netns: ok"
