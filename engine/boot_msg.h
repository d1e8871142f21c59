/* boot_msg.h -- the bootstrap's wire messages and their validation, kept
 * apart from the sockets so that the checks can be tested and fuzzed on
 * bytes alone (tests/fuzz/fuzz_bootstrap.c). Every check returns NULL when
 * the message is acceptable, else a short reason for the log line. */
#ifndef CHORUS_BOOT_MSG_H
#define CHORUS_BOOT_MSG_H

#include <stddef.h>
#include <stdint.h>

#include "bootstrap.h"

/* Bumped whenever a message's layout changes, so that ranks of different
 * builds are refused with a reason instead of misreading each other. */
#define BOOT_VERSION 1u
/* Largest tagged setup message a rank accepts. */
#define BOOT_MSG_MAX (1u << 20)

/* A rank's first message to the root. */
typedef struct {
  uint32_t magic, version;
  uint8_t secret[16];
  int32_t rank, nranks;
  boot_peer_t self;
} boot_hello_t;

/* The header of a tagged message between ranks; len bytes follow. */
typedef struct {
  uint32_t magic, version;
  uint8_t secret[16];
  int32_t from;
  uint32_t tag;
  uint32_t len;
} boot_msg_hdr_t;

/* An address that can be connected to: IPv4 or IPv6 with the matching length. */
const char *boot_addr_check(const net_addr_t *a);
/* A peer's entry: a terminated host id and a valid address. */
const char *boot_peer_check(const boot_peer_t *p);
/* A unique id as the user handed it in. */
const char *boot_id_check(const boot_id_t *id);
/* A hello of len bytes: magic, version, secret, then the rank's entry.
 * Ranges against the communicator's size are the root's to check. */
const char *boot_hello_check(const void *buf, size_t len, const uint8_t secret[16], boot_hello_t *out);
/* A message header of len bytes from one of nranks ranks. */
const char *boot_msg_hdr_check(const void *buf, size_t len, const uint8_t secret[16], int nranks, boot_msg_hdr_t *out);

#endif
