/* fuzz_bootstrap.c -- the bootstrap's message checks on arbitrary bytes.
 * The first byte picks the message: 0 a rank's hello to the root, 1 a tagged
 * message header, 2 the root's table (then grouped into hosts the way
 * comm.c does), 3 a unique id. A message the checks accept must be one the
 * rest of the bootstrap can use safely: that is asserted. */
#include <stdint.h>
#include <string.h>

#include "boot_msg.h"
#include "fuzz_util.h"

/* The secret the seeds carry, so that the fuzzer starts past the check. */
static const uint8_t secret[16] = "chorus-fuzz-key";

static void use_peer(const boot_peer_t *p) {
  char s[64];
  FUZZ_ASSERT(strlen(p->hostid) < sizeof p->hostid);
  net_addr_str(&p->addr, s, sizeof s);
  FUZZ_ASSERT(strchr(s, ':') != NULL);
}

static void fuzz_hello(const uint8_t *d, size_t n) {
  boot_hello_t h;
  if (boot_hello_check(d, n, secret, &h)) return;
  FUZZ_ASSERT(h.magic == BOOT_MAGIC && h.version == BOOT_VERSION && !memcmp(h.secret, secret, 16));
  use_peer(&h.self);
}

static void fuzz_header(const uint8_t *d, size_t n) {
  if (n < 1) return;
  int nranks = 1 + d[0] % 16;
  boot_msg_hdr_t h;
  if (boot_msg_hdr_check(d + 1, n - 1, secret, nranks, &h)) return;
  FUZZ_ASSERT(h.from >= 0 && h.from < nranks && h.len <= BOOT_MSG_MAX);
}

static void fuzz_table(const uint8_t *d, size_t n) {
  int nranks = (int)(n / sizeof(boot_peer_t));
  if (nranks < 1 || nranks > 16) return;
  boot_peer_t peers[16];
  memcpy(peers, d, sizeof *peers * (size_t)nranks);
  for (int r = 0; r < nranks; r++)
    if (boot_peer_check(&peers[r])) return;
  /* Hosts in order of first appearance, as comm_create finds them. */
  int first[16], nhosts = 0;
  for (int r = 0; r < nranks; r++) {
    use_peer(&peers[r]);
    int h = -1;
    for (int k = 0; k < nhosts && h < 0; k++)
      if (!strcmp(peers[first[k]].hostid, peers[r].hostid)) h = k;
    if (h < 0) first[nhosts++] = r;
  }
  FUZZ_ASSERT(nhosts >= 1 && nhosts <= nranks);
}

static void fuzz_id(const uint8_t *d, size_t n) {
  boot_id_t id;
  if (n < sizeof id) return;
  memcpy(&id, d, sizeof id);
  if (boot_id_check(&id)) return;
  char s[64];
  net_addr_str(&id.root, s, sizeof s);
  FUZZ_ASSERT(id.magic == BOOT_MAGIC && strchr(s, ':') != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  switch (data[0] % 4) {
  case 0: fuzz_hello(data + 1, size - 1); break;
  case 1: fuzz_header(data + 1, size - 1); break;
  case 2: fuzz_table(data + 1, size - 1); break;
  default: fuzz_id(data + 1, size - 1); break;
  }
  return 0;
}
