/* fuzz_sockframe.c -- the socket transport's wire checks on arbitrary bytes.
 * The first byte picks: 0 a receiver's descriptor, 1 a stream hello, 2 a
 * stream of steps (8-byte header, then the payload it announces) received
 * into a slot of exactly step_bytes, the way recv_main does: a header the
 * check lets through with more bytes than the slot shows up under ASan. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "sock_msg.h"

static const uint8_t secret[16] = "chorus-fuzz-key";

static void fuzz_desc(const uint8_t *d, size_t n) {
  sock_desc_t desc;
  if (sock_desc_check(d, n, &desc)) return;
  FUZZ_ASSERT(desc.nsocks >= 1 && desc.nsocks <= SOCK_MAX_STREAMS);
  char s[64];
  net_addr_str(&desc.addr, s, sizeof s);
  FUZZ_ASSERT(desc.addr.len <= sizeof desc.addr.sa);
}

static void fuzz_hello(const uint8_t *d, size_t n) {
  if (n < 1) return;
  int nsocks = 1 + d[0] % SOCK_MAX_STREAMS;
  tr_args_t a = {.rank = 0, .peer = 1, .channel = 0, .secret = secret};
  sock_hello_t h;
  int fds[SOCK_MAX_STREAMS];
  memset(fds, -1, sizeof fds);
  if (sock_hello_check(d + 1, n - 1, &a, nsocks, &h)) return;
  FUZZ_ASSERT(h.rank == a.peer && h.channel == a.channel);
  fds[h.stream] = 3; /* as recv_connect files the stream */
}

static void fuzz_steps(const uint8_t *d, size_t n) {
  if (n < 1) return;
  size_t step_bytes = (size_t)GEOM_ALIGN * (1 + d[0] % 16);
  char *slots = malloc(step_bytes * GEOM_NSTEPS);
  if (!slots) return;
  size_t off = 1;
  for (uint32_t s = 0; off + sizeof(uint64_t) <= n; s++) {
    uint64_t meta;
    memcpy(&meta, d + off, sizeof meta);
    off += sizeof meta;
    long bytes = sock_step_bytes(meta, step_bytes);
    if (bytes < 0) break; /* refused: the stream fails */
    FUZZ_ASSERT((size_t)bytes <= step_bytes);
    if (n - off < (size_t)bytes) break; /* truncated: the peer closed mid-step */
    memcpy(slots + (size_t)(s % GEOM_NSTEPS) * step_bytes, d + off, (size_t)bytes);
    off += (size_t)bytes;
  }
  free(slots);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  switch (data[0] % 3) {
  case 0: fuzz_desc(data + 1, size - 1); break;
  case 1: fuzz_hello(data + 1, size - 1); break;
  default: fuzz_steps(data + 1, size - 1); break;
  }
  return 0;
}
