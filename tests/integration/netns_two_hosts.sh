#!/usr/bin/env bash
# netns_two_hosts.sh CHORUS -- two "hosts" on this machine: network
# namespaces joined by a veth pair. Rank 0 runs in one, rank 1 in the other,
# launched torchrun-style (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT); the
# host identity includes the namespace, so the ranks count as 2 hosts and
# talk over the socket transport. Checks every result (chorus perf) and that
# 2 hosts were seen. Exits 77 with the reason when namespaces cannot be made.
set -u
chorus=$1
a=chorus_nsa_$$ b=chorus_nsb_$$
cleanup() { ip netns del $a 2>/dev/null; ip netns del $b 2>/dev/null; }
trap cleanup EXIT
if ! command -v ip >/dev/null; then echo "skipped: iproute2 (ip) is not installed"; exit 77; fi
if ! ip netns add $a 2>/tmp/netns_err_$$ || ! ip netns add $b 2>>/tmp/netns_err_$$; then
  echo "skipped: cannot create network namespaces: $(head -1 /tmp/netns_err_$$) (needs root / CAP_SYS_ADMIN)"
  rm -f /tmp/netns_err_$$; exit 77
fi
rm -f /tmp/netns_err_$$
if ! ip link add va_$$ netns $a type veth peer name vb_$$ netns $b 2>/dev/null; then
  echo "skipped: cannot create a veth pair"; exit 77
fi
ip -n $a addr add 10.231.0.1/24 dev va_$$ && ip -n $a link set va_$$ up && ip -n $a link set lo up
ip -n $b addr add 10.231.0.2/24 dev vb_$$ && ip -n $b link set vb_$$ up && ip -n $b link set lo up
port=$((20000 + $$ % 20000))
coll=${NETNS_COLL:-allreduce}
args=(perf $coll -b ${NETNS_MIN:-8} -e ${NETNS_MAX:-4M} -f ${NETNS_FACTOR:-4} -w ${NETNS_WARMUP:-1} -i ${NETNS_ITERS:-3})
[ -n "${NETNS_CSV:-}" ] && args+=(--csv "$NETNS_CSV")
export CHORUS_TIMEOUT=${CHORUS_TIMEOUT:-20}
ip netns exec $b env RANK=1 WORLD_SIZE=2 MASTER_ADDR=10.231.0.1 MASTER_PORT=$port "$chorus" "${args[@]}" \
  >/tmp/netns_r1_$$ 2>&1 &
p1=$!
ip netns exec $a env RANK=0 WORLD_SIZE=2 MASTER_ADDR=10.231.0.1 MASTER_PORT=$port "$chorus" "${args[@]}" \
  | tee /tmp/netns_r0_$$
rc0=${PIPESTATUS[0]}
wait $p1
rc1=$?
cat /tmp/netns_r1_$$
hosts_ok=0
grep -q "2 ranks on 2 hosts" /tmp/netns_r0_$$ && hosts_ok=1
rm -f /tmp/netns_r0_$$ /tmp/netns_r1_$$
echo "rank 0 exit $rc0, rank 1 exit $rc1, two hosts seen: $hosts_ok"
[ $rc0 -eq 0 ] && [ $rc1 -eq 0 ] && [ $hosts_ok -eq 1 ]
