#!/usr/bin/env bash
# A model change, before and after, on one machine: the measured experiments
# run with two builds in turn (old, new, old, new, ... each after 20 s idle,
# each build with its own tree's algorithms, topologies and experiments), and
# a table of each run's strict median |error| from 1 MiB up and below, per
# algorithm, side by side. A change to the model is judged against the code
# before it on the same machine in the same hour: the machine's speed moves
# by more than the model's error between runs an hour apart (BENCHMARKS.md).
#
#   scripts/bench/exp_ab.sh run OLD_TREE NEW_TREE OUT EXP...   measure (OLD_TREE/NEW_TREE: checkouts
#                                                              with a built build/chorus)
#   scripts/bench/exp_ab.sh table OUT EXP...                   the table of a finished run
#
# Writes OUT/{old,new}-EXP/ (chorus exp's results) and OUT/ab.txt (the log
# and the table). Namespace experiments need root, as chorus exp says.
set -euo pipefail

# One row per run of report.md: "label from-1MiB below" (the strict medians).
medians() { # report.md
  awk '/^## allreduce /{ sub(/^## allreduce /, ""); split($0, w, ", "); run = w[1] ", " w[2] ", " w[3] }
       /^Strict median/ { a = $4; b = $11; sub(/%.*/, "", a); sub(/%.*/, "", b); print run "|" a "|" b }' "$1"
}

table() { # out exp...
  local out=$1 e
  shift
  echo "| experiment | run | old: from 1 MiB up | old: below | new: from 1 MiB up | new: below |"
  echo "| --- | --- | ---: | ---: | ---: | ---: |"
  for e in "$@"; do
    [ -f "$out/old-$e/report.md" ] && [ -f "$out/new-$e/report.md" ] || { echo "| $e | (not run) | | | | |"; continue; }
    join -t'|' <(medians "$out/old-$e/report.md" | sort) <(medians "$out/new-$e/report.md" | sort) |
      awk -F'|' -v e="$e" '{ printf "| %s | %s | %s %% | %s %% | %s %% | %s %% |\n", e, $1, $2, $3, $4, $5 }'
  done
}

case ${1:-} in
run)
  [ $# -ge 5 ] || { echo "usage: exp_ab.sh run OLD_TREE NEW_TREE OUT EXP..." >&2; exit 2; }
  old=$(cd "$2" && pwd) new=$(cd "$3" && pwd) out=$4
  shift 4
  for t in "$old" "$new"; do [ -x "$t/build/chorus" ] || { echo "exp_ab.sh: $t/build/chorus not built" >&2; exit 2; }; done
  mkdir -p "$out"
  {
    echo "# exp_ab.sh $(date -u '+%Y-%m-%d %H:%M') UTC on $(hostname), $(nproc) cores; old $old ($(git -C "$old" rev-parse --short HEAD 2>/dev/null || echo '?')), new $new ($(git -C "$new" rev-parse --short HEAD 2>/dev/null || echo '?'))"
    for e in "$@"; do
      for side in old new; do
        t=$old
        [ $side = new ] && t=$new
        sleep 20
        echo "# $side $e $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
        rm -rf "$out/$side-$e"
        rc=0
        CHORUS_ALGOS="$t/algos" CHORUS_TOPOLOGIES="$t/topologies" timeout 900 "$t/build/chorus" exp run \
          "$t/experiments/$e.lua" --out "$out/$side-$e" > "$out/$side-$e.log" 2>&1 || rc=$?
        echo "# exit $rc: $(tail -1 "$out/$side-$e.log" | cut -c1-160)"
      done
    done
    echo "# done $(date -u +%H:%M:%S)"
    table "$out" "$@"
  } | tee "$out/ab.txt"
  ;;
table)
  [ $# -ge 3 ] || { echo "usage: exp_ab.sh table OUT EXP..." >&2; exit 2; }
  out=$2
  shift 2
  table "$out" "$@"
  ;;
*)
  echo "usage: exp_ab.sh run OLD_TREE NEW_TREE OUT EXP... | table OUT EXP..." >&2
  exit 2
  ;;
esac
