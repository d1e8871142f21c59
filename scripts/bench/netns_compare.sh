#!/usr/bin/env bash
# netns_compare.sh -- float32 sum allreduce across two hosts made of network
# namespaces (scripts/testbed: one veth each into a bridge, both ends shaped
# with tc tbf to RATE), 1 rank per host: chorus perf over its socket
# transport against Open MPI's MPI_Allreduce with --mca btl self,tcp between
# the same namespaces, in one run, ROUNDS times alternately.
# Open MPI is started inside host 0 with an rsh agent that runs each remote
# daemon through `ip netns exec` (no ssh); both use the namespace's eth0.
# --bind-to none: each "host" believes it owns every core and binds its one
# rank to core 0, so both ranks shared one core and every message waited a
# scheduler tick (4 ms per 8-byte allreduce, measured; 19 us unbound).
# OLD=DIR adds a second chorus build (the one before a change) to every
# round, run between the two others, as its own column; PPN=2 runs 2 ranks
# per host (4 ranks: shared memory inside a host, sockets across; Open MPI
# still uses only its tcp btl). ITERS sets chorus perf's -i (Open MPI's
# program times 200 iterations up to 1 MiB, fewer above).
# Writes results/netns_compare{,4}_{chorus,mpi,old}.csv (4: PPN=2; chorus
# perf's schema, the round with the median busbw per size) and prints busbw
# side by side. Needs root (namespaces); says so and exits 77 otherwise.
# Usage: scripts/bench/netns_compare.sh BUILD_DIR [MAX_BYTES] [RATE]
#   (env: ROUNDS=3 ITERS=20 PPN=1 OLD=)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
max=${2:-67108864}
rate=${3:-10gbit}
rounds=${ROUNDS:-3}
iters=${ITERS:-20}
ppn=${PPN:-1}
old=${OLD:-}
res=$root/scripts/bench/results
name=ncmp
case $ppn in 1) tag=netns_compare ;; 2) tag=netns_compare4 ;; *) echo "netns_compare: PPN=$ppn: 1 or 2" >&2; exit 2 ;; esac
[ -z "$old" ] || [ -x "$old/chorus" ] || { echo "netns_compare: OLD=$old has no chorus binary" >&2; exit 2; }
[ "$(id -u)" -eq 0 ] || { echo "netns_compare: needs root to make network namespaces; skipped" >&2; exit 77; }
command -v mpirun >/dev/null || { echo "netns_compare: mpirun not found (apt-get install openmpi-bin libopenmpi-dev)" >&2; exit 1; }
mkdir -p "$res"
mpicc -O2 -o "$build/mpi_allreduce" "$root/scripts/bench/mpi_allreduce.c"
tmp=$(mktemp -d /tmp/chorus_netns_cmp_XXXXXX)
cleanup() { "$root/scripts/testbed" down "$name"; rm -rf "$tmp"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
"$root/scripts/testbed" up "$name" 2 "$rate" >/dev/null
# mpirun's rsh agent: "host" 10.78.0.N is namespace $name-h(N-1).
cat >"$tmp/agent" <<EOF
#!/bin/sh
host=\$1; shift
exec ip netns exec $name-h\$((\${host##*.} - 1)) sh -c "\$*"
EOF
chmod +x "$tmp/agent"
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; 2 namespace hosts x $ppn rank(s), links $rate; chorus -i $iters; load before:$(uptime | sed 's/.*load average://')"
rc=$tmp/chorus_rounds.csv rm=$tmp/mpi_rounds.csv ro=$tmp/old_rounds.csv
: >"$rc"
: >"$rm"
: >"$ro"
# One measurement: $1 = chorus, mpi or old; appends its rows to its rounds file.
measure() {
  case $1 in
    chorus | old)
      local b=$build
      [ "$1" = old ] && b=$old
      timeout 600 "$root/scripts/testbed" launch "$name" "$ppn" -- "$b/chorus" perf allreduce -b 8 -e "$max" -f 4 \
        -w 5 -i "$iters" --inplace 0 --csv "$tmp/$1.csv" >/dev/null ;;
    mpi)
      timeout 600 ip netns exec "$name-h0" mpirun --allow-run-as-root --bind-to none \
        -H "10.78.0.1:$ppn,10.78.0.2:$ppn" -np $((2 * ppn)) --mca plm_rsh_agent "$tmp/agent" --mca btl self,tcp \
        --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 "$build/mpi_allreduce" "$max" >"$tmp/mpi.csv" ;;
  esac
  local f=$tmp/${1}_rounds.csv
  [ -s "$f" ] || sed -n '1s/^/round,/p' "$tmp/$1.csv" >"$f"
  tail -n +2 "$tmp/$1.csv" | sed "s/^/$r,/" >>"$f"
}
for r in $(seq 1 "$rounds"); do
  measure chorus
  [ -z "$old" ] || measure old
  measure mpi
done
# Per size (column 11 of a rounds row), the row with the median busbw (15).
median() {
  head -1 "$1" | cut -d, -f2- >"$2"
  tail -n +2 "$1" | sort -t, -k11,11n -k15,15g |
    awk -F, -v OFS=, '{k = $11; row[k, ++n[k]] = $0; if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
      END { for (i = 1; i <= m; i++) { k = order[i]; r = row[k, int((n[k] + 1) / 2)]; sub(/^[^,]*,/, "", r); print r } }' >>"$2"
}
median "$rc" "$res/${tag}_chorus.csv"
median "$rm" "$res/${tag}_mpi.csv"
# size,busbw,time of a median file, sorted for join.
cols() { tail -n +2 "$1" | awk -F, -v OFS=, '{print $10, $14, $12}' | sort -t, -k1,1; }
echo "# busbw GB/s (time us), median of $rounds rounds; ratio = MPI time / chorus time (= chorus busbw / MPI busbw)"
if [ -z "$old" ]; then
  printf "%12s %22s %22s %8s\n" size chorus mpi ratio
  join -t, <(cols "$res/${tag}_chorus.csv") <(cols "$res/${tag}_mpi.csv") |
    sort -t, -k1,1n | awk -F, '{ printf "%12d %12.4f (%7.1f) %12.4f (%7.1f) %8.2f\n", $1, $2, $3, $4, $5, ($3 > 0 ? $5 / $3 : 0) }'
else
  median "$ro" "$res/${tag}_old.csv"
  echo "# old = OLD=$old; new/old = old time / chorus time"
  printf "%12s %22s %22s %22s %8s %8s\n" size chorus old mpi ratio new/old
  join -t, <(join -t, <(cols "$res/${tag}_chorus.csv") <(cols "$res/${tag}_old.csv")) <(cols "$res/${tag}_mpi.csv") |
    sort -t, -k1,1n | awk -F, '{ printf "%12d %12.4f (%7.1f) %12.4f (%7.1f) %12.4f (%7.1f) %8.2f %8.2f\n", $1, $2, $3, $4,
      $5, $6, $7, ($3 > 0 ? $7 / $3 : 0), ($3 > 0 ? $5 / $3 : 0) }'
fi
echo "# load after:$(uptime | sed 's/.*load average://')"
