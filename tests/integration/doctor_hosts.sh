#!/usr/bin/env bash
# doctor_hosts.sh CHORUS MODE -- `chorus doctor` across namespace hosts
# (scripts/testbed), one rank per host:
#   match    3 hosts shaped to 1 Gb/s, the topology told 1 Gb/s: exit 0, and
#            every bandwidth cell within 20 % of its prediction;
#   slow     the same, then host 2's sending side re-shaped to 100 Mb/s: exit 1,
#            the pairs from host 2 named, with advice, and no other pair;
#   missing  2 hosts started for a WORLD_SIZE of 3: exit 1 within the timeout,
#            rank 2 named as never joined, with advice.
# Exits 77 with the reason without root or network namespaces.
set -u
chorus=$1 mode=$2
testbed=$(cd "$(dirname "$0")/../../scripts" && pwd)/testbed
# A testbed of its own per mode, so that these tests and others may run at the same time.
case $mode in match) name=dra ;; slow) name=drb ;; *) name=drc ;; esac
out=$(mktemp /tmp/doctor_hosts.XXXXXX)
cleanup() { "$testbed" down "$name" >/dev/null 2>&1; rm -f "$out"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$(id -u)" -ne 0 ]; then echo "skipped: needs root (CAP_NET_ADMIN) for network namespaces"; exit 77; fi
for t in ip tc; do command -v $t >/dev/null || { echo "skipped: $t (iproute2) is not installed"; exit 77; }; done
if ! ip netns add "$name-probe" 2>"$out"; then echo "skipped: cannot create network namespaces: $(head -1 "$out")"; exit 77; fi
ip netns del "$name-probe"

fail() { echo "FAIL ($mode): $*"; echo "--- doctor output:"; cat "$out"; exit 1; }
export CHORUS_TIMEOUT=${CHORUS_TIMEOUT:-10}
hosts=3
[ "$mode" = missing ] && hosts=2
"$testbed" up "$name" $hosts 1Gb/s || fail "scripts/testbed up failed"
names=$(seq -s, -f "$name-h%g" 0 2)
args=(doctor --set rate=1Gb/s --hosts "$names")
world=()
case $mode in
  slow) tc -n "$name-h2" qdisc change dev eth0 root tbf rate 100mbit burst 256kb latency 100ms ||
          fail "cannot re-shape host 2's link" ;;
  missing) world=(env WORLD_SIZE=3) ;;
  match) ;;
  *) echo "usage: doctor_hosts.sh CHORUS match|slow|missing"; exit 2 ;;
esac
start=$(date +%s)
timeout 120 "$testbed" launch "$name" 1 -- "${world[@]}" "$chorus" "${args[@]}" >"$out" 2>&1
rc=$? took=$(($(date +%s) - start))
echo "doctor exit $rc after $took s"

case $mode in
  match)
    [ $rc -eq 0 ] || fail "exit $rc, expected 0"
    grep -q "^0 problems" "$out" || fail "rank 0 does not report 0 problems"
    # Every measured/predicted cell of the bandwidth table, within 20 %.
    cells=$(sed -n '/bandwidth, GB\/s/,/latency, us/p' "$out" | grep -Eo '[0-9.]+/[0-9.]+')
    [ "$(echo "$cells" | wc -l)" -eq 6 ] || fail "expected 6 bandwidth cells, found: $cells"
    echo "$cells" | awk -F/ '{ r = $1 / $2; printf "  %s (%.0f%%)\n", $0, (r - 1) * 100; if (r < 0.8 || r > 1.2) bad = 1 }
                             END { exit bad }' || fail "a pair is more than 20 % from its prediction"
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
  missing)
    [ $rc -eq 1 ] || fail "exit $rc, expected 1"
    [ $took -le $((CHORUS_TIMEOUT + 10)) ] || fail "took $took s, CHORUS_TIMEOUT is $CHORUS_TIMEOUT s"
    grep -Eq "^  PROBLEM: rank 2 \\(expected from host $name-h2\\) never joined: .*Start it" "$out" ||
      fail "rank 0 does not name rank 2 as never joined, with advice"
    ;;
esac
grep -E "PROBLEM|problems," "$out" | cut -c1-220
echo "ok: $mode"
