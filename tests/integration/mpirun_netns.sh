#!/usr/bin/env bash
# mpirun_netns.sh CHORUS TESTBED -- `mpirun -H a:2,b:2 chorus perf allreduce` across two
# namespace hosts with nothing passed by hand (issue 21): Open MPI's mpirun starts its daemon on
# the second host through tests/integration/netns-rsh, the ranks get rank 0's bootstrap id
# (random secret, its listener) through mpirun's PMIx server, and every result is checked. Then
# the same under mpirun on one host, where a process of another job that joins rank 0's bootstrap
# is refused for want of the secret. Skips (77) without root, ip, or Open MPI's mpirun.
set -u
chorus=$1 testbed=$2
here=$(cd "$(dirname "$0")" && pwd)
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for network namespaces"; exit 77; }
command -v ip >/dev/null || { echo "SKIP: ip (iproute2) is not installed"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: Open MPI's mpirun is not installed (apt-get install openmpi-bin)"; exit 77; }
name=mr$$
tmp=$(mktemp -d /tmp/chorus_mpirun_XXXXXX)
trap '"$testbed" down "$name" >/dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
mpi=(mpirun --allow-run-as-root --oversubscribe --mca plm_rsh_agent "$here/netns-rsh" --mca btl self
     -x CHORUS_ALGOS -x CHORUS_DEBUG=INFO -x CHORUS_TIMEOUT=60 -x CHORUS_TESTBED="$name")

# One host first: PMIx is there too.
timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 -x CHORUS_ALGOS -x CHORUS_DEBUG=INFO \
  "$chorus" perf allreduce -b 1K -e 64K -f 8 -w 1 -i 2 > "$tmp/one" 2>&1 || { cat "$tmp/one"; fail "mpirun on one host"; }
grep -q "0 OK" "$tmp/one" || fail "one host: $(cat "$tmp/one")"
grep -q "bootstrap id taken from the launcher's PMIx server" "$tmp/one" || fail "one host, not through PMIx: $(cat "$tmp/one")"
grep -q "not protected" "$tmp/one" && fail "one host: a derived secret: $(grep 'not protected' "$tmp/one")"

# A rank of another job: while rank 1 of an mpirun job is late (rank 0 waits in PMIx's fence, its
# bootstrap already listening), a process that joins rank 0's
# bootstrap as rank 1 with the secret a job without PMIx would derive is refused, and the job
# still completes with its own rank 1.
(timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 -x CHORUS_ALGOS -x CHORUS_DEBUG=INFO \
  sh -c '[ "$OMPI_COMM_WORLD_RANK" = 1 ] && sleep 6; exec "$0" perf allreduce -b 1K -e 1K -w 1 -i 1' "$chorus" \
  > "$tmp/job" 2>&1; echo "rc=$?" >> "$tmp/job") &
root=
for _ in $(seq 100); do
  root=$(sed -n 's/.*rank 0 of 2: serves the bootstrap at \([^;]*\);.*/\1/p' "$tmp/job" | head -1)
  [ -n "$root" ] && break
  sleep 0.1
done
[ -n "$root" ] || fail "rank 0 did not say where it serves: $(cat "$tmp/job")"
env -u OMPI_COMM_WORLD_RANK RANK=1 WORLD_SIZE=2 CHORUS_ROOT="$root" CHORUS_TIMEOUT=3 \
  timeout 30 "$chorus" perf allreduce -b 1K -e 1K -w 1 -i 1 > "$tmp/rogue" 2>&1 && fail "the rogue rank ran: $(cat "$tmp/rogue")"
wait
grep -q "^rc=0" "$tmp/job" || fail "the job with a late rank: $(cat "$tmp/job")"
grep -q "refused a connection from .*did not present the communicator's secret" "$tmp/job" ||
  fail "rank 0 did not refuse the rogue: $(cat "$tmp/job") / rogue: $(cat "$tmp/rogue")"

"$testbed" up "$name" 2 4gbit > "$tmp/up" 2>&1 || { cat "$tmp/up"; fail "testbed up"; }
CHORUS_TESTBED=$name timeout 180 ip netns exec "$name-h0" "${mpi[@]}" -H 10.78.0.1:2,10.78.0.2:2 -np 4 \
  "$chorus" perf allreduce -b 1K -e 1M -f 32 -w 1 -i 2 > "$tmp/two" 2>&1
rc=$?
[ $rc -eq 0 ] || { cat "$tmp/two"; fail "mpirun across two namespace hosts: exit $rc"; }
grep -q "4 ranks on 2 hosts" "$tmp/two" || fail "not 4 ranks on 2 hosts: $(head -3 "$tmp/two")"
grep -q "Out of bounds values : 0 OK" "$tmp/two" || fail "results: $(cat "$tmp/two")"
[ "$(grep -c "bootstrap id taken from the launcher's PMIx server" "$tmp/two")" -eq 3 ] ||
  fail "ranks 1-3 did not all take the id from PMIx: $(grep -i pmix "$tmp/two")"
echo "ok: mpirun on one host and across 2 namespace hosts, bootstrap through PMIx, results checked, a rogue rank refused"
