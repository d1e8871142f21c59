/* sock_msg.h -- what the socket transport puts on the wire, and its checks:
 * the descriptor a receiver hands its sender through the bootstrap, the
 * hello that opens each stream, and the 8-byte header of every step. Kept
 * apart from the sockets so that they can be fuzzed on bytes alone
 * (tests/fuzz/fuzz_sockframe.c). The checks return NULL when the message is
 * acceptable, else a short reason for the log line. */
#ifndef CHORUS_SOCK_MSG_H
#define CHORUS_SOCK_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "transport.h"

#define SOCK_MAX_STREAMS 8
#define SOCK_MAGIC 0x43485350u /* "CHSP" */
/* Bumped whenever the stream hello or the step header changes layout
 * (2: the flush frame). */
#define SOCK_VERSION 2u
/* A flush: a header without payload, sent on stream 0 by a sender that
 * needs to know its steps were taken (sock_flush). The high 32 bits are the
 * count of steps sent before it; the receiver answers with one byte once
 * its rank has taken that many. No step announces this many bytes. */
#define SOCK_FLUSH 0x7fffffffu
static inline int sock_is_flush(uint64_t meta) { return (uint32_t)meta == SOCK_FLUSH; }

typedef struct {
  uint32_t magic, version;
  uint8_t secret[16];
  int32_t rank, channel, stream;
} sock_hello_t;

typedef struct {
  net_addr_t addr;
  int32_t nsocks;
} sock_desc_t;

/* A descriptor of len bytes: an IPv4 or IPv6 address, 1..SOCK_MAX_STREAMS streams. */
const char *sock_desc_check(const void *buf, size_t len, sock_desc_t *out);
/* A stream hello of len bytes for the connection a describes (from a->peer,
 * on a->channel), with a stream index below nsocks. */
const char *sock_hello_check(const void *buf, size_t len, const tr_args_t *a, int nsocks, sock_hello_t *out);

/* The payload size a step header announces, or -1 when it cannot fit the
 * slot. On the per-step path: inline, one mask and one compare. */
static inline long sock_step_bytes(uint64_t meta, size_t step_bytes) {
  size_t bytes = (uint32_t)meta & ~RING_MORE;
  return bytes > step_bytes ? -1 : (long)bytes;
}

#endif
