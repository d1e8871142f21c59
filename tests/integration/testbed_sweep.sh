#!/usr/bin/env bash
# testbed_sweep.sh CHORUS EXPERIMENT TESTBED -- a namespace experiment
# killed with SIGKILL cannot take its testbed down: its cx<pid>-* namespaces
# (and the ranks inside) stay. The next `scripts/testbed up` removes those
# whose chorus exp no longer runs, and leaves every other namespace alone.
# Also: `launch` draws MASTER_PORT below the namespace's ephemeral port
# range, so the bootstrap listener never meets a port an outgoing connection
# holds. Exits 77 where namespaces cannot be made.
set -u
chorus=$1 exp=$2 testbed=$3
[ "$(id -u)" -eq 0 ] || { echo "skipped: needs root to create network namespaces"; exit 77; }
if ! ip netns add chorus_probe_$$ 2>/dev/null; then echo "skipped: cannot create network namespaces"; exit 77; fi
ip netns del chorus_probe_$$
out=$(mktemp -d /tmp/chorus_sweep_XXXXXX)
tb=tbsweep$$
live=
trap '"$testbed" down "$tb" >/dev/null 2>&1; ip netns del "cxkeep$$-sw" 2>/dev/null
      [ -n "$live" ] && { ip netns del "cx$live-sw" 2>/dev/null; kill "$live" 2>/dev/null; }; rm -rf "$out"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$chorus" exp run "$exp" --out "$out" >"$out/stdout" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q '^# repeat 1' "$out/stdout" 2>/dev/null && break; sleep 0.1; done
grep -q '^# repeat 1' "$out/stdout" || { cat "$out/stdout"; kill -9 $pid; fail "the experiment never started a run"; }
kill -9 $pid
wait $pid 2>/dev/null
left=$(ip netns list | awk '{print $1}' | grep -c "^cx$pid-" || true)
[ "$left" -ge 2 ] || fail "SIGKILL left $left namespaces of cx$pid (expected its hosts and switch): nothing to sweep"
# Namespaces that are not leftovers: one of a chorus that still runs (a
# process whose name is chorus: sleep under that name), one not named cx<pid>.
ln -s "$(command -v sleep)" "$out/chorus"
"$out/chorus" 30 &
live=$!
ip netns add "cx$live-sw" || fail "cannot add a namespace"
ip netns add "cxkeep$$-sw" || fail "cannot add a namespace"
"$testbed" up "$tb" 1 1Gb/s >"$out/up" 2>&1 || { cat "$out/up"; fail "testbed up"; }
cat "$out/up"
left=$(ip netns list | awk '{print $1}' | grep -c "^cx$pid-" || true)
[ "$left" -eq 0 ] || fail "testbed up left $left namespaces of the killed cx$pid"
grep -q "removing cx$pid-" "$out/up" || fail "testbed up did not say what it removed"
ip netns list | awk '{print $1}' | grep -qx "cxkeep$$-sw" || fail "a namespace that is not cx<pid>-* was removed"
ip netns list | awk '{print $1}' | grep -qx "cx$live-sw" || fail "the namespace of a chorus that still runs was removed"
port=$("$testbed" launch "$tb" 1 -- sh -c 'echo $MASTER_PORT')
low=$(ip netns exec "$tb-h0" cut -f1 /proc/sys/net/ipv4/ip_local_port_range)
[ "$port" -ge 1024 ] && [ "$port" -lt "$low" ] || fail "MASTER_PORT $port is not below the ephemeral range ($low..)"
echo "ok: the killed run's namespaces swept, others kept; MASTER_PORT $port below $low"
