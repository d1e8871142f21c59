#!/usr/bin/env bash
# debug_logs.sh CHORUS -- CHORUS_DEBUG, CHORUS_DEBUG_SUBSYS (list and ^
# exclusion) and CHORUS_DEBUG_FILE (%h, %p): the right lines, levels and
# subsystems, the banner first, the rank and a timestamp on each line.
set -u
chorus=$1
d=$(mktemp -d /tmp/chorus_logs_XXXXXX)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
run() { env "$@" "$chorus" perf allreduce -n 2 -b 1K -e 1K -w 0 -i 1 >/dev/null 2>"$d/err"; }

run CHORUS_DEBUG=INFO || fail "perf failed"
head -1 "$d/err" | grep -Eq "chorus INFO INIT Chorus [0-9]+\.[0-9]+\.[0-9]+, library .*, build .*built with Lua 5\.4" \
  || fail "first line is not the banner: $(head -1 "$d/err")"
grep -Eq "^[^ ]+:[0-9]+ rank 0 \[[0-9]+\.[0-9]{6}\] chorus INFO BOOT " "$d/err" || fail "no BOOT line of rank 0 with a timestamp"
grep -Eq " rank 1 \[.*\] chorus INFO " "$d/err" || fail "no line of rank 1"

run CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=^BOOT || fail "perf failed"
grep -q " INFO BOOT " "$d/err" && fail "^BOOT still logged BOOT"
grep -q " INFO INIT " "$d/err" || fail "^BOOT dropped INIT too"

run CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=BOOT || fail "perf failed"
grep -q " INFO INIT communicator" "$d/err" && fail "BOOT alone still logged INIT"
grep -q " INFO BOOT " "$d/err" || fail "BOOT alone logged no BOOT"

run CHORUS_DEBUG=WARN || fail "perf failed"
grep -q " INFO " "$d/err" && fail "WARN level printed INFO lines"

run CHORUS_DEBUG=INFO "CHORUS_DEBUG_FILE=$d/log.%h.%p" || fail "perf failed"
n=$(ls "$d"/log.$(hostname).* 2>/dev/null | wc -l)
[ "$n" -eq 2 ] || fail "expected one log file per rank process (log.HOST.PID), found $n: $(ls "$d")"
grep -q " INFO " "$d/err" && fail "INFO lines went to stderr despite CHORUS_DEBUG_FILE"
echo ok
