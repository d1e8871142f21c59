#!/usr/bin/env bash
# srun_netns.sh CHORUS TESTBED -- `srun -N2 -n4 chorus perf allreduce` across two namespace hosts
# with nothing passed by hand (issue 21): a Slurm cluster of its own (Debian's slurmctld and
# slurmd, auth/none, no cgroups) whose two nodes h0 and h1 are network namespaces of
# scripts/testbed, each with its own host name, /etc/hosts and /tmp, as separate machines have.
# With `--mpi=pmix` the ranks take rank 0's bootstrap id (a random secret) from Slurm's PMIx
# server; with plain srun they find the root from SLURM_NODELIST and the job id and say the job is
# not protected. Then Python's chorus.Comm.from_env() under srun. Every result is checked. Skips
# (77) without root, ip, nsenter/unshare or Slurm.
set -u
chorus=$1 testbed=$2
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for network namespaces"; exit 77; }
for c in ip nsenter unshare srun slurmctld slurmd sinfo; do
  command -v $c >/dev/null ||
    { echo "SKIP: $c is not installed (apt-get install iproute2 util-linux slurmctld slurmd slurm-client)"; exit 77; }
done
name=sr$$
dir=$(mktemp -d /var/tmp/chorus_srun_XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  "$testbed" down "$name" >/dev/null 2>&1
  [ -n "${KEEP:-}" ] || rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*"
  for f in "$dir"/*.log "$dir"/*.out; do [ -f "$f" ] && { echo "--- $f"; tail -n 15 "$f"; }; done
  exit 1
}
"$testbed" up "$name" 2 4gbit > "$dir/up" 2>&1 || { cat "$dir/up"; fail "testbed up"; }

mkdir -p "$dir/state"
printf '127.0.0.1 localhost\n10.78.0.1 h0\n10.78.0.2 h1\n' > "$dir/hosts"
export SLURM_CONF=$dir/slurm.conf
cat > "$SLURM_CONF" <<EOF
ClusterName=chorus
SlurmctldHost=h0(10.78.0.1)
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
SlurmctldPort=26817
SlurmdPort=26818
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
ProctrackType=proctrack/pgid
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/linear
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
NodeName=h0 NodeAddr=10.78.0.1 CPUs=2 State=UNKNOWN
NodeName=h1 NodeAddr=10.78.0.2 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=h0,h1 Default=YES MaxTime=INFINITE State=UP
EOF
# Host N: its network namespace, its name, and (mount namespace) its own /etc/hosts and /tmp
# (Slurm's PMIx plugin makes per-step directories there, named alike on every node).
on_host() {
  local h=$1
  shift
  nsenter --net="/run/netns/$name-h$h" unshare --uts --mount sh -c \
    'mount -t tmpfs none /tmp && mount --bind "$0" /etc/hosts && hostname "$1" && shift && exec "$@"' \
    "$dir/hosts" "h$h" "$@"
}
on_host 0 slurmctld -D -i -f "$SLURM_CONF" > "$dir/slurmctld.out" 2>&1 &
pids+=($!)
for h in 0 1; do
  on_host $h slurmd -D -f "$SLURM_CONF" > "$dir/slurmd-h$h.out" 2>&1 &
  pids+=($!)
done
idle=
for _ in $(seq 100); do
  idle=$(on_host 0 sinfo -h -o '%T %D' 2>/dev/null)
  [ "$idle" = "idle 2" ] && break
  sleep 0.2
done
[ "$idle" = "idle 2" ] || fail "the Slurm nodes did not come up: sinfo says '$idle'"

run() { # run OUT SRUN-ARGS..: srun on host 0, 4 ranks over both nodes
  local out=$1
  shift
  on_host 0 env CHORUS_ALGOS="$CHORUS_ALGOS" CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=INIT,BOOT CHORUS_TIMEOUT=60 \
    timeout 120 srun -N2 -n4 "$@" "$chorus" perf allreduce -b 1K -e 1M -f 32 -w 1 -i 2 > "$out" 2>&1
}
run "$dir/pmix" --mpi=pmix || { cat "$dir/pmix"; fail "srun --mpi=pmix: exit $?"; }
grep -q "4 ranks on 2 hosts" "$dir/pmix" || fail "pmix: not 4 ranks on 2 hosts: $(head -5 "$dir/pmix")"
grep -q "Out of bounds values : 0 OK" "$dir/pmix" || fail "pmix: results: $(cat "$dir/pmix")"
[ "$(grep -c "bootstrap id taken from the launcher's PMIx server" "$dir/pmix")" -eq 3 ] ||
  fail "pmix: ranks 1-3 did not all take the id from PMIx: $(grep -i pmix "$dir/pmix")"
grep -q "not protected" "$dir/pmix" && fail "pmix: a derived secret: $(grep 'not protected' "$dir/pmix")"

run "$dir/env" || { cat "$dir/env"; fail "srun: exit $?"; }
grep -q "4 ranks on 2 hosts" "$dir/env" || fail "srun: not 4 ranks on 2 hosts: $(head -5 "$dir/env")"
grep -q "Out of bounds values : 0 OK" "$dir/env" || fail "srun: results: $(cat "$dir/env")"
[ "$(grep -c "this srun job is not protected" "$dir/env")" -eq 4 ] ||
  fail "srun without PMIx: every rank must say the job is not protected: $(grep -c 'not protected' "$dir/env")"
[ "$(grep -c "joined through root 10.78.0.1:" "$dir/env")" -eq 4 ] ||
  fail "srun: the ranks did not all join through h0: $(grep 'joined through' "$dir/env")"
# Python: chorus.Comm.from_env() under srun (SLURM_* variables, PMIx), an allreduce checked.
lib=${CHORUS_LIBRARY:-$(dirname "$chorus")/engine/libchorus.so} pkg=$(cd "$(dirname "$0")/../../python" && pwd)
if [ -x /usr/bin/python3 ] && [ -f "$lib" ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  on_host 0 env CHORUS_LIBRARY="$lib" PYTHONPATH="$pkg" CHORUS_ALGOS="$CHORUS_ALGOS" CHORUS_TIMEOUT=60 \
    timeout 120 srun -N2 -n4 --mpi=pmix /usr/bin/python3 -c '
import numpy as np, chorus
c = chorus.Comm.from_env()
x = np.full(1000, c.rank + 1, dtype=np.float32)
c.allreduce(x)
want = c.size * (c.size + 1) / 2
assert (x == want).all(), (c.rank, x[:4], want)
print("python rank", c.rank, "of", c.size, "ok")' > "$dir/python" 2>&1 || { cat "$dir/python"; fail "python under srun"; }
  [ "$(grep -c "^python rank [0-3] of 4 ok" "$dir/python")" -eq 4 ] || fail "python under srun: $(cat "$dir/python")"
else
  echo "python under srun not checked: /usr/bin/python3 with numpy, or $lib, is missing"
fi
echo "ok: srun across 2 namespace hosts (Slurm $(srun --version | cut -d' ' -f2)), with PMIx (random secret) and without (root from SLURM_NODELIST), results checked; Python's Comm.from_env() under srun"
