#!/usr/bin/env bash
# sock_reset.sh CHORUS -- a socket reset mid-transfer: 3 local ranks on the
# socket transport (CHORUS_SHM_DISABLE=1) loop on 4 MiB allreduces; then
# every established TCP connection of the job is aborted from outside with
# `ss -K` (the kernel's SOCK_DESTROY: that end fails, the other gets an RST).
# Every rank must fail with an error naming a peer within CHORUS_TIMEOUT plus
# a margin -- no hang, no success reported, no process left behind.
# Exits 77 where `ss -K` is not permitted or not supported.
set -u
chorus=$1
skip() { echo "skipped: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root for ss -K (SOCK_DESTROY)"
command -v ss >/dev/null || skip "no ss (iproute2)"
command -v perl >/dev/null || skip "no perl to probe ss -K on a throwaway socket pair"

# Probe: a loopback pair; ss -K on the accepted end must make the connecting
# end's read fail at once (a reset), not block nor read end-of-file. ss -K
# exits 0 and does nothing where the kernel lacks CONFIG_INET_DIAG_DESTROY.
perl -MIO::Socket::INET -e '
  my $l = IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1", LocalPort => 0, Proto => "tcp") or exit 2;
  my $port = $l->sockport;
  my $c = IO::Socket::INET->new(PeerAddr => "127.0.0.1", PeerPort => $port, Proto => "tcp") or exit 2;
  my $s = $l->accept or exit 2;
  system("ss -K -tnH state established \"( src 127.0.0.1:$port )\" >/dev/null 2>&1") == 0 or exit 3;
  my $rin = ""; vec($rin, fileno($c), 1) = 1;
  select($rin, undef, undef, 2) > 0 or exit 4;
  exit(defined(sysread($c, my $buf, 1)) ? 4 : 0);'
case $? in
0) ;;
3) skip "ss -K is not permitted here" ;;
4) skip "ss -K does not abort sockets here (kernel without CONFIG_INET_DIAG_DESTROY?)" ;;
*) skip "cannot make a loopback socket pair to probe ss -K" ;;
esac

out=$(mktemp -d /tmp/chorus_reset_XXXXXX)
pid=
ranks=()
starts=()
# Only the processes this test started, each identified by pid and start
# time; a zombie (exited, not yet reaped) is not left running.
alive() { [ "$(awk '$3 != "Z" {print $22}' "/proc/$1/stat" 2>/dev/null)" = "$2" ]; }
cleanup() {
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && kill -9 "$pid"
  for i in "${!ranks[@]}"; do alive "${ranks[$i]}" "${starts[$i]}" && kill -9 "${ranks[$i]}"; done
  rm -rf "$out"
}
trap cleanup EXIT
fail() { cat "$out/log"; echo "FAIL: $*"; exit 1; }

export CHORUS_TIMEOUT=4 CHORUS_HANG_DIR=$out CHORUS_SHM_DISABLE=1
"$chorus" perf allreduce -n 3 -b 4M -e 4M -w 1 -i 100000 >"$out/log" 2>&1 &
pid=$!

# The job's sockets: established TCP sockets of the three ranks, by local address.
job_sockets() {
  local pat
  pat=$(IFS='|'; echo "${ranks[*]}")
  ss -tnpH state established | awk -v re="pid=($pat)," '$0 ~ re {print $3}' | sort -u
}
# Wait (bounded) for the three ranks, then for their connections to be up and stable.
for _ in $(seq 100); do
  mapfile -t ranks < <(pgrep -P "$pid")
  [ ${#ranks[@]} -eq 3 ] && break
  sleep 0.1
done
[ ${#ranks[@]} -eq 3 ] || fail "chorus perf -n 3 did not start 3 ranks"
for i in "${!ranks[@]}"; do starts[$i]=$(awk '{print $22}' "/proc/${ranks[$i]}/stat"); done
prev=-1
for _ in $(seq 100); do
  n=$(job_sockets | wc -l)
  [ "$n" -gt 0 ] && [ "$n" -eq "$prev" ] && break
  prev=$n
  sleep 0.3
done
mapfile -t socks < <(job_sockets)
[ ${#socks[@]} -gt 0 ] || fail "the ranks opened no TCP connection"
filter=
for s in "${socks[@]}"; do filter="$filter${filter:+ or }src $s"; done
killed=$(ss -K -tnH state established "( $filter )" | wc -l)
t0=$(date +%s)
# The sockets ss -K lists are the ones it aborted; the others had been reset
# meanwhile by their peers' RST and were no longer established.
echo "ss -K aborted $killed sockets of the job's ${#socks[@]} local endpoints; $(job_sockets | wc -l) still established (ranks ${ranks[*]})"
[ "$killed" -gt 0 ] || fail "ss -K aborted none of the job's sockets"

for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "the ranks still run $(($(date +%s) - t0)) s after the reset"
wait "$pid"
rc=$?
dt=$(($(date +%s) - t0))
pid=
cat "$out/log"
echo "perf exit $rc, $dt s after the reset"
[ $rc -ne 0 ] || fail "the ranks reported success after their connections were reset"
grep -q "Out of bounds values : 0 OK" "$out/log" && fail "a rank printed a successful summary"
# Each rank's own error, and in it a rank other than itself.
for r in 0 1 2; do
  line=$(grep -m1 "^chorus perf: rank $r: .* failed" "$out/log") || fail "rank $r reported no error"
  echo "${line#*failed}" | grep -oE "rank [0-9]+" | grep -vqx "rank $r" || fail "rank $r's error names no peer: $line"
done
# A reset is a failed socket, not a peer that chose to fail: some rank says so,
# with the system's reason (ECONNRESET, or ECONNABORTED where ss -K ran).
grep -E "^chorus perf: rank [0-9]: .* failed.*the socket connection with rank [0-9] failed.*(reset|abort)" \
  "$out/log" >/dev/null || fail "no rank's error says that a socket connection failed, and why"
[ $dt -le $((CHORUS_TIMEOUT + 6)) ] || fail "took $dt s, more than CHORUS_TIMEOUT + 6"
sleep 0.5
for i in "${!ranks[@]}"; do alive "${ranks[$i]}" "${starts[$i]}" && fail "rank $i (pid ${ranks[$i]}) is still there"; done
echo "ok"
