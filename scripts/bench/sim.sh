#!/usr/bin/env bash
# Simulator speed: ring allreduce of 256 MiB, event mode on the rail-optimised
# DGX fat tree (1024 ranks = 128 hosts) and on a star, analytic mode at 16384
# ranks. Each run in its own process (wall time and peak RSS from
# /usr/bin/time, and CPU time, the steadier measure on a shared machine;
# events per second from `chorus sim --stats`). Prints a table
# and writes scripts/bench/results/sim.csv.
# Then, when SimGrid is installed (Debian libsimgrid-dev 3.32), the same ring
# allreduce side by side with SimGrid (scripts/bench/simgrid_ring.c, built
# here into BUILD_DIR): a star of n hosts, each on one switch by a
# full-duplex link of bw and lat, 256 MiB, one message of S/n per step on
# both sides (Chorus with --steps-per-chunk 1 and a buffer that holds a
# chunk in one step), SimGrid with its plain max-min model. Table and
# scripts/bench/results/sim_simgrid.csv.
# Usage: scripts/bench/sim.sh [BUILD_DIR]
#   SIM_BENCH_4096=1       also the 4096-rank cases (SimGrid alone: ~10 min idle, 20 loaded)
#   SIM_COMPARE_ONLY=1     only the SimGrid comparison
#   SIM_COMPARE_RANKS="…"  rank counts of the comparison (default 64 256 1024)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
chorus="$build/chorus"
[ -x "$chorus" ] || { echo "sim.sh: $chorus not built (scripts/build first)" >&2; exit 2; }
export CHORUS_ALGOS="$root/algos" CHORUS_TOPOLOGIES="$root/topologies"
out="$root/scripts/bench/results/sim.csv"
mkdir -p "$(dirname "$out")"
run() { # case model topo set
  local log; log=$(mktemp)
  /usr/bin/time -f "%e %M %U %S" -o "$log.time" "$chorus" sim allreduce --topo "$3" --set "$4" -b 256M -e 256M \
    --model "$2" --stats --no-verify > "$log.out" 2> "$log"
  local row; row=$(grep -v '^#' "$log.out" | head -1)
  local n; n=$(sed -n 's/^# chorus sim allreduce: \([0-9]*\) ranks.*/\1/p' "$log.out")
  local us bus; us=$(echo "$row" | awk '{print $6}'); bus=$(echo "$row" | awk '{print $8}')
  local sim ev evs; sim=$(sed -n 's/.*simulation \([0-9.]*\) s.*/\1/p' "$log"); ev=$(sed -n 's/.* \([0-9]*\) events (.*/\1/p' "$log")
  evs=$(sed -n 's/.*(\([0-9.]*\) M events\/s).*/\1/p' "$log")
  read -r wall rss usr sys < "$log.time"
  cpu=$(awk -v u="$usr" -v s="$sys" 'BEGIN {printf "%.2f", u + s}')
  echo "$1,$2,$3,\"$4\",$n,$us,$bus,$sim,$ev,$evs,$wall,$cpu,$((rss / 1024))" >> "$out"
  rm -f "$log" "$log.out" "$log.time"
}
if [ "${SIM_COMPARE_ONLY:-0}" != 1 ]; then # (the comparison alone leaves sim.csv as it was)
  echo "case,model,topology,set,nranks,time_us,busbw_GBps,sim_s,events,Mevents_per_s,wall_s,cpu_s,peak_rss_MiB" > "$out"
  run ring1024_fattree event dgx-cluster nodes=128
  run ring1024_star event star nodes=1024
  run ring16384_star analytic star nodes=16384
  run ring16384_fattree analytic dgx-cluster nodes=2048
  run ring1024_fattree analytic dgx-cluster nodes=128
  if [ "${SIM_BENCH_4096:-0}" = 1 ]; then run ring4096_fattree event dgx-cluster nodes=512; fi
  column -s, -t < "$out"
  echo "written: $out"
fi

# --- side by side with SimGrid ---
if [ ! -f /usr/include/simgrid/actor.h ]; then
  echo "sim.sh: SimGrid not installed (apt-get install libsimgrid-dev): comparison skipped" >&2
  exit 0
fi
sg="$build/simgrid_ring"
cc -O2 -std=c11 -Wall -Wextra -o "$sg" "$root/scripts/bench/simgrid_ring.c" -lsimgrid
bw=25GB/s bw_Bps=25e9 lat=1us lat_s=1e-6 size=268435456
cmp="$root/scripts/bench/results/sim_simgrid.csv"
echo "nranks,bytes,simgrid_s,chorus_s,agreement_pct,alpha_beta_s,simgrid_wall_s,chorus_wall_s,speedup,simgrid_cpu_s,chorus_cpu_s,cpu_speedup,chorus_analytic_s,analytic_wall_s,analytic_speedup" > "$cmp"
ranks=${SIM_COMPARE_RANKS:-64 256 1024}
if [ "${SIM_BENCH_4096:-0}" = 1 ]; then ranks="$ranks 4096"; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for n in $ranks; do
  # SimGrid's cluster without a backbone is a star: host i's private link
  # (split duplex: one resource per direction) up, host j's down.
  cat > "$tmp/star$n.xml" <<XML
<?xml version="1.0"?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="star" prefix="h" suffix="" radical="0-$((n - 1))" speed="1Gf" bw="25GBps" lat="1us" sharing_policy="SPLITDUPLEX"/>
</platform>
XML
  t0=$EPOCHREALTIME
  /usr/bin/time -f "%U %S" -o "$tmp/sg.time" "$sg" "$tmp/star$n.xml" "$n" "$size" --cfg=network/model:CM02 \
    --cfg=network/crosstraffic:0 --cfg=contexts/stack-size:64 > "$tmp/sg.out" 2> "$tmp/sg.err"
  t1=$EPOCHREALTIME
  sg_t=$(sed -n 's/.* \([0-9.]*\) s simulated/\1/p' "$tmp/sg.out")
  # One step per chunk, and a step that holds the whole chunk S/n (the
  # engine's 512 KiB cap lifted: SimGrid sends S/n as one message).
  buf=$(( size / n * 8 )); [ "$buf" -lt 4194304 ] && buf=4194304
  t2=$EPOCHREALTIME
  /usr/bin/time -f "%U %S" -o "$tmp/ch.time" "$chorus" sim allreduce --topo star --set "nodes=$n,bw=$bw,lat=$lat" \
    -a ring -b "$size" -e "$size" --steps-per-chunk 1 --buffsize "$buf" --max-chunk $((size / n)) --no-verify \
    --csv "$tmp/ch.csv" > /dev/null
  t3=$EPOCHREALTIME
  # The analytic mode: the same ring by symmetry, one rank's steps.
  "$chorus" sim allreduce --topo star --set "nodes=$n,bw=$bw,lat=$lat" --model analytic \
    -a ring -b "$size" -e "$size" --steps-per-chunk 1 --buffsize "$buf" --max-chunk $((size / n)) \
    --csv "$tmp/an.csv" > /dev/null
  t4=$EPOCHREALTIME
  ch_us=$(awk -F, 'NR == 2 {print $12}' "$tmp/ch.csv")
  an_us=$(awk -F, 'NR == 2 {print $12}' "$tmp/an.csv")
  awk -v n="$n" -v S="$size" -v sg="$sg_t" -v us="$ch_us" -v B="$bw_Bps" -v a="$lat_s" \
    -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v t4="$t4" -v an="$an_us" -v sgc="$(cat "$tmp/sg.time")" -v chc="$(cat "$tmp/ch.time")" 'BEGIN {
      split(sgc, x, " "); sc = x[1] + x[2]; split(chc, y, " "); cc = y[1] + y[2]
      sw = t1 - t0; cw = t3 - t2; aw = t4 - t3; ch = us / 1e6; ab = 2 * (n - 1) * (2 * a + S / n / B)
      printf "%d,%d,%.9f,%.9f,%.4f,%.9f,%.3f,%.3f,%.1f,%.2f,%.2f,%.1f,%.9f,%.3f,%.1f\n", n, S, sg, ch, 100 * (ch - sg) / sg, ab,
        sw, cw, (cw > 0 ? sw / cw : 0), sc, cc, (cc > 0 ? sc / cc : 0), an / 1e6, aw, (aw > 0 ? sw / aw : 0)
    }' >> "$cmp"
done
column -s, -t < "$cmp"
echo "written: $cmp"
