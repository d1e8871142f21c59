#!/usr/bin/env bash
# log_subsystems.sh CHORUS TESTBED -- the log says what it promises (issue 21): CHORUS_DEBUG=TRACE
# logs every call (EXEC) and INFO does not; each subsystem CHORUS_DEBUG_SUBSYS lists logs
# something in a 2-rank run (NET, SHM, PLAN, EXEC, TUNE, INIT, BOOT), and a filter keeps only what
# it names. Then, as root, on a namespace host with loopback and eth0: an exclusion rule
# (CHORUS_SOCKET_IFNAME=^docker) picks eth0, never loopback, and the INFO line says why.
set -u
chorus=$1 testbed=$2
tmp=$(mktemp -d /tmp/chorus_log_XXXXXX)
name=lg$$
trap '"$testbed" down "$name" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
perf() { "$chorus" perf allreduce -n 2 -b 1K -e 4K -w 0 -i 2 "$@"; }

CHORUS_DEBUG=TRACE perf > "$tmp/trace" 2>&1 || { cat "$tmp/trace"; fail "perf at TRACE"; }
for sub in INIT BOOT NET SHM PLAN TUNE; do
  grep -q " chorus INFO $sub " "$tmp/trace" || fail "nothing from $sub at TRACE: $(grep chorus "$tmp/trace" | head)"
done
grep -q " chorus INFO INIT running with hwloc API [0-9.]* at run time" "$tmp/trace" || fail "no runtime versions"
grep -q " chorus TRACE EXEC rank 0: allreduce #[0-9]* of 256 x float, sum, .* 1024 bytes: done in " "$tmp/trace" ||
  fail "no TRACE line per call: $(grep EXEC "$tmp/trace" | head -3)"
CHORUS_DEBUG=INFO perf > "$tmp/info" 2>&1 || fail "perf at INFO"
grep -q " TRACE " "$tmp/info" && fail "TRACE lines at INFO: $(grep ' TRACE ' "$tmp/info" | head -2)"
CHORUS_DEBUG=TRACE CHORUS_DEBUG_SUBSYS=EXEC,NET perf > "$tmp/some" 2>&1 || fail "perf with a filter"
grep -q " chorus TRACE EXEC " "$tmp/some" && grep -q " chorus INFO NET " "$tmp/some" || fail "filter lost its own"
# (The first line and the settings' lines say what runs, whatever the filter.)
grep -E " chorus (INFO|TRACE) (INIT|BOOT|SHM|PLAN|TUNE) " "$tmp/some" | grep -vE "INIT (Chorus |CHORUS_)" &&
  fail "the filter let others through"

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null; then
  echo "ok: TRACE and subsystems (interface rules not checked: they need root for a namespace)"
  exit 0
fi
"$testbed" up "$name" 1 1gbit > "$tmp/up" 2>&1 || { cat "$tmp/up"; fail "testbed up"; }
ip netns exec "$name-h0" env CHORUS_SOCKET_IFNAME=^docker "$chorus" doctor --no-selftest > "$tmp/doc" 2>&1
grep -q "sockets would use: eth0 10.78.0.1" "$tmp/doc" || fail "^docker: $(grep 'sockets would use' "$tmp/doc")"
ip netns exec "$name-h0" env CHORUS_SOCKET_IFNAME=^docker CHORUS_DEBUG=INFO "$chorus" perf allreduce -b 8 -e 8 \
  -w 0 -i 1 > "$tmp/net" 2>&1
grep -q "INFO NET sockets use eth0 10.78.0.1: the first real interface matching CHORUS_SOCKET_IFNAME=^docker; passed over: lo (loopback)" "$tmp/net" ||
  fail "the INFO line: $(grep ' NET ' "$tmp/net")"
ip netns exec "$name-h0" env CHORUS_SOCKET_IFNAME==lo CHORUS_DEBUG=INFO "$chorus" perf allreduce -b 8 -e 8 \
  -w 0 -i 1 > "$tmp/lo" 2>&1
grep -q "INFO NET sockets use lo 127.0.0.1: loopback, the only one left matching CHORUS_SOCKET_IFNAME==lo" "$tmp/lo" ||
  fail "=lo: $(grep ' NET ' "$tmp/lo")"
echo "ok: TRACE and subsystems; ^docker picks eth0 and says why"
