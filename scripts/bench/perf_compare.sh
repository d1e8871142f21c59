#!/usr/bin/env bash
# perf_compare.sh -- float32 sum allreduce, 8 B .. 256 MiB, 2 and 4 ranks as
# processes: chorus perf (shm), Open MPI's MPI_Allreduce (btl self,vader) in
# two configurations, and Gloo's ring allreduce (TCP loopback), in one run.
# Open MPI's default shared-memory path is pathological at large sizes here
# (single-copy through CMA: about 2 GB/s at 64-256 MiB), so it also runs
# tuned -- single copy off (--mca btl_vader_single_copy_mechanism none) and
# malloc kept from returning memory (GLIBC_TUNABLES mmap_max=0, trim
# threshold 64 GiB) -- and each size is held against the better of the two,
# named in the table ("dflt" or "tuned").
# Chorus and each Open MPI configuration run ROUNDS times, alternately
# (chorus, MPI default, MPI tuned, chorus, ...), because on a shared 2-core
# machine one pass can land in a busy second and lose 2-10x; the table shows,
# per size, the median busbw over the rounds and the lowest and highest.
# Gloo runs once.
# Writes results/compare_{chorus,mpi,mpi_tuned}_N.csv (chorus perf's schema,
# one row per size: the round with the median busbw), the *_rounds.csv
# files (every round, with a leading round column) and
# results/compare_gloo_N.csv, and prints the date, the load before and
# after, and busbw side by side with the ratio to the better Open MPI.
# The memory-bandwidth bound comes from results/stream.csv (scripts/bench/stream.sh).
# Usage: scripts/bench/perf_compare.sh BUILD_DIR [MAX_BYTES]   (env: ROUNDS=3, RANKS="2 4", GLOO=1)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build}
max=${2:-268435456}
rounds=${ROUNDS:-3}
res=$root/scripts/bench/results
mkdir -p "$res"
mpicc -O2 -o "$build/mpi_allreduce" "$root/scripts/bench/mpi_allreduce.c"
if [ "${GLOO:-1}" = 1 ]; then
  g++ -O2 -std=c++17 -o "$build/gloo_allreduce" "$root/scripts/bench/gloo_allreduce.cc" -lgloo -lpthread
fi
echo "# $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; load before:$(uptime | sed 's/.*load average://')"

# median ROUNDS_CSV OUT_CSV: per size, the row whose busbw is the median of the rounds.
median() {
  head -1 "$1" | cut -d, -f2- >"$2"
  tail -n +2 "$1" | sort -t, -k11,11n -k15,15g |
    awk -F, -v OFS=, '{k = $11; row[k, ++n[k]] = $0; if (!(k in seen)) { seen[k] = 1; order[++m] = k } }
      END { for (i = 1; i <= m; i++) { k = order[i]; r = row[k, int((n[k] + 1) / 2)]; sub(/^[^,]*,/, "", r); print r } }' >>"$2"
}

for n in ${RANKS:-2 4}; do
  rc=$res/compare_chorus_${n}_rounds.csv rm=$res/compare_mpi_${n}_rounds.csv rt=$res/compare_mpi_tuned_${n}_rounds.csv
  : >"$rc"
  : >"$rm"
  : >"$rt"
  for r in $(seq 1 "$rounds"); do
    "$build/chorus" perf allreduce -n $n -b 8 -e $max -f 2 -w 5 -i 50 --inplace 0 --csv "$res/.chorus.csv" >/dev/null
    mpirun --allow-run-as-root --oversubscribe -np $n --mca btl self,vader "$build/mpi_allreduce" $max >"$res/.mpi.csv"
    mpirun --allow-run-as-root --oversubscribe -np $n --mca btl self,vader --mca btl_vader_single_copy_mechanism none \
      -x GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=68719476736 \
      "$build/mpi_allreduce" $max >"$res/.mpit.csv"
    [ -s "$rc" ] || sed -n '1s/^/round,/p' "$res/.chorus.csv" >"$rc"
    [ -s "$rm" ] || sed -n '1s/^/round,/p' "$res/.mpi.csv" >"$rm"
    [ -s "$rt" ] || sed -n '1s/^/round,/p' "$res/.mpit.csv" >"$rt"
    tail -n +2 "$res/.chorus.csv" | sed "s/^/$r,/" >>"$rc"
    tail -n +2 "$res/.mpi.csv" | sed "s/^/$r,/" >>"$rm"
    tail -n +2 "$res/.mpit.csv" | sed "s/^/$r,/" >>"$rt"
  done
  rm -f "$res/.chorus.csv" "$res/.mpi.csv" "$res/.mpit.csv"
  median "$rc" "$res/compare_chorus_$n.csv"
  median "$rm" "$res/compare_mpi_$n.csv"
  median "$rt" "$res/compare_mpi_tuned_$n.csv"
  if [ "${GLOO:-1}" = 1 ]; then
    "$build/gloo_allreduce" $n $max >"$res/compare_gloo_$n.csv" || echo "# gloo $n ranks failed (exit $?)"
  fi
  echo "# $n ranks: busbw GB/s, median of $rounds rounds [lowest-highest] (median time us); Gloo one run;"
  echo "# mpi: the better median of Open MPI default and tuned at each size, named; ratio: chorus / that"
  printf "%12s %28s %34s %18s %7s\n" size chorus "mpi (better config)" gloo ratio
  # size -> "median [lo-hi] (time)" for one rounds file
  summ() {
    tail -n +2 "$1" | awk -F, '{k = $11; b[k] = b[k] " " $15; t[k] = t[k] " " $13; if (!(k in s)) { s[k] = 1; o[++m] = k } }
      function med(str,   a, c, i, j, x) { c = split(str, a, " "); for (i = 2; i <= c; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] + 0 > x + 0; j--) a[j + 1] = a[j]; a[j + 1] = x }
        lo = a[1]; hi = a[c]; return a[int((c + 1) / 2)] }
      END { for (i = 1; i <= m; i++) { k = o[i]; mb = med(b[k]); l = lo; h = hi; mt = med(t[k]); printf "%s,%.3f [%.2f-%.2f] (%.1f)\n", k, mb, l, h, mt } }'
  }
  gl=$res/compare_gloo_$n.csv
  # The better Open MPI configuration per size, by median busbw.
  best() {
    join -t, <(summ "$rm" | sort -t, -k1,1) <(summ "$rt" | sort -t, -k1,1) |
      awk -F, '{ split($2, d, " "); split($3, t, " "); if (t[1] + 0 > d[1] + 0) print $1 "," $3 " tuned"; else print $1 "," $2 " dflt" }'
  }
  join -t, -a 1 <(summ "$rc" | sort -t, -k1,1) <(best | sort -t, -k1,1) |
    join -t, -a 1 - <( ([ -s "$gl" ] && tail -n +2 "$gl" | awk -F, '{printf "%s,%.3f (%.1f)\n", $10, $14, $12}' || true) | sort -t, -k1,1) |
    sort -t, -k1,1n | awk -F, '{ split($2, c, " "); split($3, m, " "); r = m[1] > 0 ? sprintf("%.2f", c[1] / m[1]) : "-"
      printf "%12d %28s %34s %18s %7s\n", $1, $2, $3, $4, r }'
done
echo "# load after:$(uptime | sed 's/.*load average://')"
