#!/usr/bin/env bash
# topo_detect.sh CHORUS XML -- chorus topo detect (issue 20): this machine
# written as a topology that loads, places a rank on every core hwloc counts
# and simulates; an hwloc XML export of a 2-socket box with 4 NVIDIA GPUs
# (two per PCIe switch, each switch with a Mellanox NIC) and NVML's NVLink
# matrix becomes GPUs on their switches, NICs beside them and NVLink between
# every pair, ranks on the GPUs (ranks_on=cpu: on the cores); a file hwloc
# cannot read is an error that names it.
set -u
chorus=$1 xml=$2
tmp=$(mktemp -d /tmp/chorus_detect_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$chorus" topo detect -o "$tmp/here.lua" > "$tmp/log" 2>&1 || { cat "$tmp/log"; fail "detect on this machine"; }
cores=$(sed -n 's/^chorus topo detect: .* NUMA nodes*, \([0-9]*\) cores.*/\1/p' "$tmp/log")
[ -n "$cores" ] && [ "$cores" -ge 1 ] || fail "no core count: $(cat "$tmp/log")"
"$chorus" topo check "$tmp/here.lua" > "$tmp/check" 2>&1 || { cat "$tmp/check"; fail "the written file does not load"; }
grep -q ", $cores ranks$" "$tmp/check" || fail "ranks are not the $cores cores: $(cat "$tmp/check")"
"$chorus" sim allreduce --topo "$tmp/here.lua" -b 1M -e 1M > "$tmp/sim" 2>&1 || { cat "$tmp/sim"; fail "sim on it"; }

"$chorus" topo detect --xml "$xml" -o "$tmp/box.lua" > "$tmp/log" 2>&1 || { cat "$tmp/log"; fail "detect --xml"; }
grep -q '4 GPUs, 2 NICs, 6 NVLink pairs' "$tmp/log" || fail "the box: $(cat "$tmp/log")"
"$chorus" topo show "$tmp/box.lua" > "$tmp/show" 2>&1 || { cat "$tmp/show"; fail "topo show of the box"; }
grep -q '^devices: 10 (4 gpu, 2 numa, 2 pcie, 2 nic), hosts: 1, links: 15, ranks: 4$' "$tmp/show" ||
  fail "devices: $(grep devices "$tmp/show")"
grep -Eq '^ +6 x gpu +- gpu +246GB/s' "$tmp/show" || fail "NVLink at 0.82 x 300 GB/s: $(grep 'gpu *- gpu' "$tmp/show")"
grep -Eq '^ +4 x gpu +- pcie +25.21GB/s' "$tmp/show" || fail "PCIe at 0.8 x 31.5 GB/s: $(grep 'gpu *- pcie' "$tmp/show")"
grep -Eq '^rank 0 +X +NV1 +NV1 +NV1$' "$tmp/show" || fail "path matrix: $(grep '^rank 0' "$tmp/show")"
"$chorus" topo check "$tmp/box.lua" --set ranks_on=cpu 2>&1 | grep -q ', 4 ranks$' || fail "ranks_on=cpu"
"$chorus" topo check "$tmp/box.lua" --set ranks=5 2>&1 | grep -q 'ranks: 4 GPUs, not 5' || fail "5 ranks on 4 GPUs"

"$chorus" topo detect --xml "$tmp/nothere.xml" > "$tmp/log" 2>&1 && fail "a missing XML file was read"
grep -q "nothere.xml: hwloc cannot read it" "$tmp/log" || fail "the error: $(cat "$tmp/log")"
echo "ok: this machine ($cores cores) and the 4-GPU box detected"
