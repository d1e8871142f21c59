#!/usr/bin/env bash
# doctor_hosts.sh CHORUS MODE [launcher|rsh] -- `chorus doctor` across
# namespace hosts (scripts/testbed), one rank per host, started by the
# testbed's launcher or by the doctor itself (`--hosts LIST --rsh 'ip netns
# exec'`: the namespaces are the hosts):
#   match    3 hosts shaped to 1 Gb/s, the topology told 1 Gb/s: exit 0,
#            every bandwidth cell within 20 % of its prediction, every
#            latency cell judged and none a problem;
#   slow     the same, then host 2's sending side re-shaped to 100 Mb/s: exit 1,
#            the pairs from host 2 named, with advice, and no other pair;
#   latency  the same, then host 2's small TCP segments (under 256 bytes,
#            PSH: the 8-byte round trips, not the bulk data nor its ACKs)
#            held to 64 kbit/s, about 10 ms each: exit 1, the two pairs with
#            host 2 named for latency with advice, no bandwidth problem;
#   missing  (launcher) 2 hosts started for a WORLD_SIZE of 3: exit 1 within
#            the timeout, rank 2 named as never joined, with advice;
#   unknown  (rsh) --hosts h0,nosuch,h2: exit 1, nosuch named with advice,
#            the two others still measured;
#   stall    (rsh) a remote shell that never returns for one host: exit 1
#            within CHORUS_TIMEOUT, that host named, its shell killed.
# Exits 77 with the reason without root or network namespaces.
set -u
chorus=$1 mode=$2 how=${3:-launcher}
testbed=$(cd "$(dirname "$0")/../../scripts" && pwd)/testbed
# A testbed of its own per mode, launch and process, so that these tests and others (another
# checkout's too) may run at the same time.
case $how-$mode in
  launcher-match) name=dra ;; launcher-slow) name=drb ;; launcher-missing) name=drc ;; launcher-latency) name=drd ;;
  rsh-match) name=dre ;; rsh-slow) name=drf ;; rsh-unknown) name=drg ;; rsh-stall) name=drh ;;
  *) echo "usage: doctor_hosts.sh CHORUS match|slow|latency|missing [launcher] | match|slow|unknown|stall rsh"; exit 2 ;;
esac
name=$name$(($$ % 10000))
out=$(mktemp /tmp/doctor_hosts.XXXXXX)
stall_rsh=$(mktemp /tmp/doctor_stall_rsh.XXXXXX)
cleanup() { "$testbed" down "$name" >/dev/null 2>&1; rm -f "$out" "$stall_rsh" "$stall_rsh.pid"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$(id -u)" -ne 0 ]; then echo "skipped: needs root (CAP_NET_ADMIN) for network namespaces"; exit 77; fi
for t in ip tc; do command -v $t >/dev/null || { echo "skipped: $t (iproute2) is not installed"; exit 77; }; done
if ! ip netns add "$name-probe" 2>"$out"; then echo "skipped: cannot create network namespaces: $(head -1 "$out")"; exit 77; fi
ip netns del "$name-probe"

fail() { echo "FAIL ($how $mode): $*"; echo "--- doctor output:"; cat "$out"; exit 1; }
export CHORUS_TIMEOUT=${CHORUS_TIMEOUT:-10}
hosts=3
[ "$mode" = missing ] && hosts=2
"$testbed" up "$name" $hosts 1Gb/s || fail "scripts/testbed up failed"
names=$(seq -s, -f "$name-h%g" 0 2)
world=()
case $mode in
  slow) tc -n "$name-h2" qdisc change dev eth0 root tbf rate 100mbit burst 256kb latency 100ms ||
          fail "cannot re-shape host 2's link" ;;
  latency)
    # Keep the 1 Gb/s shaping for everything but small segments that carry data.
    h2=(tc -n "$name-h2")
    "${h2[@]}" qdisc replace dev eth0 root handle 1: htb default 10 &&
      "${h2[@]}" class add dev eth0 parent 1: classid 1:10 htb rate 1gbit burst 256kb quantum 60000 &&
      "${h2[@]}" class add dev eth0 parent 1: classid 1:20 htb rate 64kbit ceil 64kbit burst 200 cburst 200 quantum 1500 &&
      "${h2[@]}" filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip protocol 6 0xff \
        match u16 0x0000 0xff00 at 2 match u8 0x08 0x08 at 33 flowid 1:20 ||
      fail "cannot delay host 2's small segments" ;;
  missing) world=(env WORLD_SIZE=3) ;;
  unknown) names=$name-h0,nosuch,$name-h2 ;;
  stall)
    # The remote shell for host 1 never returns; the others go through ip netns exec.
    printf '#!/bin/sh\n[ "$1" = %s ] && echo $$ >%s.pid && exec sleep 300\nexec ip netns exec "$@"\n' "$name-h1" \
      "$stall_rsh" >"$stall_rsh"
    chmod +x "$stall_rsh"
    export CHORUS_TIMEOUT=3 ;;
esac
start=$(date +%s)
if [ "$how" = rsh ]; then
  rsh="ip netns exec"
  [ "$mode" = stall ] && rsh=$stall_rsh
  timeout 120 "$chorus" doctor --set rate=1Gb/s --hosts "$names" --rsh "$rsh" >"$out" 2>&1
else
  timeout 120 "$testbed" launch "$name" 1 -- "${world[@]}" "$chorus" doctor --set rate=1Gb/s --hosts "$names" >"$out" 2>&1
fi
rc=$? took=$(($(date +%s) - start))
echo "doctor exit $rc after $took s"

# The bandwidth and latency cells of the report, "measured/predicted" each.
cells() { sed -n "/$1/,/$2/p" "$out" | grep -Eo '[0-9.]+/[0-9.]+'; }
case $mode in
  match)
    [ $rc -eq 0 ] || fail "exit $rc, expected 0"
    grep -q "^0 problems" "$out" || fail "rank 0 does not report 0 problems"
    # Every measured/predicted cell of the bandwidth table, within 20 %.
    c=$(cells 'bandwidth, GB\/s' 'latency, us')
    [ "$(echo "$c" | wc -l)" -eq 6 ] || fail "expected 6 bandwidth cells, found: $c"
    echo "$c" | awk -F/ '{ r = $1 / $2; printf "  %s (%.0f%%)\n", $0, (r - 1) * 100; if (r < 0.8 || r > 1.2) bad = 1 }
                         END { exit bad }' || fail "a pair is more than 20 % from its prediction"
    # Every latency cell has an expectation (each host's floor was measured).
    c=$(cells 'latency, us' 'own blocking call')
    [ "$(echo "$c" | wc -l)" -eq 6 ] || fail "expected 6 judged latency cells, found: $c"
    echo "latency measured/expected:" $c
    grep -Eq "own blocking call .*us: $name-h0 [0-9]+ $name-h1 [0-9]+ $name-h2 [0-9]+" "$out" ||
      fail "no floor for every host"
    ;;
  slow)
    [ $rc -eq 1 ] || fail "exit $rc, expected 1"
    for to in 0 1; do
      grep -Eq "PROBLEM: host 2 \\($name-h2, eth0 10\\.78\\.0\\.3\\) -> host $to .*% below the predicted .*Every transfer from host 2 is slow.*Check that link" "$out" ||
        fail "no finding with advice for host 2 -> host $to"
    done
    n=$(grep -c "PROBLEM: host" "$out")
    [ "$n" -eq 2 ] || fail "expected 2 slow pairs, found $n"
    ;;
  latency)
    [ $rc -eq 1 ] || fail "exit $rc, expected 1"
    for from in 0 1; do
      grep -Eq "PROBLEM: host $from \\($name-h$from, 10\\.78\\.0\\.$((from + 1))\\) <-> host 2 \\($name-h2, 10\\.78\\.0\\.3\\): latency [0-9]+ us, .*x the [0-9]+ us expected .*the best of 3 measurements\\): the path between them adds [0-9]+ us\\. Look for a slow path" "$out" ||
        fail "no latency finding with advice for host $from <-> host 2"
    done
    n=$(grep -c "PROBLEM:" "$out")
    [ "$n" -eq 2 ] || fail "expected 2 problems (the two latencies), found $n"
    ;;
  missing)
    [ $rc -eq 1 ] || fail "exit $rc, expected 1"
    [ $took -le $((CHORUS_TIMEOUT + 10)) ] || fail "took $took s, CHORUS_TIMEOUT is $CHORUS_TIMEOUT s"
    grep -Eq "^  PROBLEM: rank 2 \\(expected from host $name-h2\\) never joined: .*Start it" "$out" ||
      fail "rank 0 does not name rank 2 as never joined, with advice"
    ;;
  unknown)
    [ $rc -eq 1 ] || fail "exit $rc, expected 1"
    grep -Eq "^  PROBLEM: cannot start a command on host nosuch through .ip netns exec. \\(exit [0-9]+: .*nosuch.*\\)\\. Check the host name" "$out" ||
      fail "the unknown host is not named with advice"
    grep -q "checking the 2 hosts that answered ($name-h0,$name-h2)" "$out" || fail "the two other hosts are not checked"
    [ "$(cells 'bandwidth, GB\/s' 'latency, us' | wc -l)" -eq 2 ] || fail "the pair of the two others is not measured"
    ;;
  stall)
    [ $rc -eq 1 ] || fail "exit $rc, expected 1"
    [ $took -le $((CHORUS_TIMEOUT + 10)) ] || fail "took $took s, CHORUS_TIMEOUT is $CHORUS_TIMEOUT s"
    grep -Eq "^  PROBLEM: host $name-h1 did not answer within 3 s through .* its remote shell was killed\\. Is the host up" "$out" ||
      fail "the stalled host is not named with advice"
    [ -s "$stall_rsh.pid" ] || fail "the stalling remote shell never ran"
    if kill -0 "$(cat "$stall_rsh.pid")" 2>/dev/null; then
      kill -9 "$(cat "$stall_rsh.pid")"
      fail "the stalled remote shell still runs"
    fi
    grep -q "checking the 2 hosts that answered ($name-h0,$name-h2)" "$out" || fail "the two other hosts are not checked"
    ;;
esac
grep -E "PROBLEM|problems,|problem found|problems found" "$out" | cut -c1-220
echo "ok: $how $mode"
