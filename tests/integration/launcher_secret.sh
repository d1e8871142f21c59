#!/usr/bin/env bash
# launcher_secret.sh CHORUS -- under torchrun-style variables (RANK, WORLD_SIZE, MASTER_ADDR,
# MASTER_PORT) without CHORUS_SECRET the INFO log says the job is not protected and how to
# protect it; with CHORUS_SECRET it does not (issue 21). One rank, loopback.
set -u
chorus=$1
tmp=$(mktemp -d /tmp/chorus_secret_XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
run() {
  env -u PMIX_NAMESPACE -u OMPI_COMM_WORLD_RANK -u SLURM_PROCID RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 \
    MASTER_PORT="$port" CHORUS_DEBUG=INFO "$@" "$chorus" perf allreduce -b 8 -e 8 -w 0 -i 1
}
run env > "$tmp/open" 2>&1 || { cat "$tmp/open"; fail "the run without a secret"; }
grep -q "this torchrun job is not protected: .*set CHORUS_SECRET" "$tmp/open" || fail "no warning: $(cat "$tmp/open")"
grep -q "0 OK" "$tmp/open" || fail "results: $(cat "$tmp/open")"
run env CHORUS_SECRET=0123456789abcdef0123456789abcdef > "$tmp/closed" 2>&1 || { cat "$tmp/closed"; fail "with a secret"; }
grep -q "not protected" "$tmp/closed" && fail "warned with CHORUS_SECRET set: $(grep 'not protected' "$tmp/closed")"
echo "ok: unprotected torchrun job said so; with CHORUS_SECRET, silent"
