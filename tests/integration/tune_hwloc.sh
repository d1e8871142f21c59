#!/usr/bin/env bash
# tune_hwloc.sh CHORUS -- for one host the tuner predicts on local-cpu with
# what hwloc detects: the logged hardware threads are the online CPUs
# (nproc), the cores at most that, and the same numbers reach local-cpu as
# --set parameters; a CHORUS_TOPO (a calibrated topology) wins over them.
set -u
chorus=$1
fail() { echo "FAIL: $*"; exit 1; }
log=$(CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=TUNE "$chorus" perf allreduce -n 2 -b 4K -e 4K -w 0 -i 1 2>&1 >/dev/null)
if echo "$log" | grep -q "hwloc could not read this machine"; then echo "SKIP: hwloc cannot read this machine"; exit 77; fi
line=$(echo "$log" | grep -m1 "rank 0 .*TUNE hwloc:") || fail "no hwloc detection logged: $log"
echo "$line"
cores=$(echo "$line" | sed -n 's/.* \([0-9]*\) cores, .*/\1/p')
threads=$(echo "$line" | sed -n 's/.* \([0-9]*\) hardware threads.*/\1/p')
numa=$(echo "$line" | sed -n 's/.* \([0-9]*\) NUMA node.*/\1/p')
online=$(nproc)
all=$(nproc --all)
echo "hwloc: $cores cores, $threads hardware threads, $numa NUMA nodes; nproc $online, nproc --all $all"
[ "$threads" = "$online" ] || [ "$threads" = "$all" ] || fail "hwloc saw $threads hardware threads, nproc says $online"
[ "$cores" -ge 1 ] && [ "$cores" -le "$threads" ] || fail "hwloc saw $cores cores for $threads hardware threads"
echo "$log" | grep -q "rank 0 .*cost model: topology local-cpu --set ranks=2,cores=$cores,numa=$numa,packages=[0-9]*, protocol simple" \
  || fail "the detection did not reach local-cpu: $log"
log=$(CHORUS_TOPO=local-cpu CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=TUNE "$chorus" perf allreduce -n 2 -b 4K -e 4K -w 0 -i 1 2>&1 >/dev/null)
echo "$log" | grep -q "cost model: topology local-cpu (CHORUS_TOPO)" || fail "CHORUS_TOPO did not win: $log"
echo "$log" | grep -q "TUNE hwloc:" && fail "CHORUS_TOPO set, yet the detection was used: $log"
# The topology's defaults are today's (a core per rank, one NUMA node); oversubscribed cores share their rates.
"$chorus" topo show local-cpu --set ranks=4,cores=2,numa=2,packages=1,copy_bw=40GB/s | grep -q "rank 0 .*copy 20GB/s" \
  || fail "4 ranks on 2 cores do not share the copy rate"
# ... and each step waits for its peer to be scheduled: step_lat + wake_lat.
"$chorus" topo show local-cpu --set ranks=4,cores=2,step_lat=0.7us,wake_lat=5us | grep -q "simple (step latency 5.7us" \
  || fail "4 ranks on 2 cores do not pay wake_lat per step"
"$chorus" topo show local-cpu --set ranks=2,cores=2,step_lat=0.7us,wake_lat=5us | grep -q "simple (step latency 700ns" \
  || fail "2 ranks on 2 cores pay wake_lat per step"
echo ok
