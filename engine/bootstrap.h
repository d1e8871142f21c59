/* bootstrap.h -- how ranks find each other. A unique id carries the root's
 * address and port and a random 128-bit secret. The root service (a thread
 * in the process that made the id) collects every rank's hello — its
 * listening address, host identity and pid — and sends all of them the
 * table. Afterwards ranks exchange small setup messages directly (boot_send
 * / boot_recv, tagged). Every connection must present the secret first; one
 * that does not is closed and logged. */
#ifndef CHORUS_BOOTSTRAP_H
#define CHORUS_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

#include "chorus.h"
#include "transport/net.h"

#define BOOT_MAGIC 0x43484f52u /* "CHOR" */
#define BOOT_HOSTID_LEN 96

/* What chorus_unique_id_t holds. */
typedef struct {
  uint32_t magic;
  uint8_t secret[16];
  net_addr_t root;
} boot_id_t;

typedef struct {
  char hostid[BOOT_HOSTID_LEN];
  int32_t pid;
  net_addr_t addr; /* the rank's bootstrap listener */
} boot_peer_t;

typedef struct boot boot_t;

/* A fresh secret and a root service listening on the address the interface
 * rules choose (port 0: any). The service runs in a detached thread until
 * every rank has its table. */
chorus_result_t boot_id_create(boot_id_t *id);
/* Same, on a given address and port (env launchers: MASTER_ADDR/PORT); the
 * secret is given. */
chorus_result_t boot_root_start(boot_id_t *id, const net_addr_t *listen_addr);

/* This host's identity: hostname, boot id and network namespace, so that
 * namespaces on one machine count as separate hosts. */
void boot_host_id(char *buf, size_t len);
/* Whether two host ids (boot_host_id) name the same machine: the same
 * hostname and boot, in any network namespace -- ranks that share its
 * cores and memory though they are hosts of their own to the transports
 * (the namespace testbed). */
int boot_same_machine(const char *a, const char *b);

/* Join: say hello to the root and receive the table. */
chorus_result_t boot_init(boot_t **out, const boot_id_t *id, int rank, int nranks, double timeout_s);
void boot_destroy(boot_t *b);

const boot_peer_t *boot_peer(const boot_t *b, int rank);
const uint8_t *boot_secret(const boot_t *b);
/* The address this rank listens on (host part usable for other sockets). */
const net_addr_t *boot_addr(const boot_t *b);

/* A tagged message to one peer; returns once the data is in the kernel. */
chorus_result_t boot_send(boot_t *b, int peer, uint32_t tag, const void *data, size_t len);
/* Same, giving up after timeout_s (a peer that may be gone: a refused
 * connection is retried until then). */
chorus_result_t boot_send_within(boot_t *b, int peer, uint32_t tag, const void *data, size_t len, double timeout_s);
/* The same message to every other rank at once (connections in parallel),
 * giving up on each after timeout_s: for news that must not wait on the
 * slowest or deadest peer. Best effort; returns how many ranks it reached. */
int boot_send_all_within(boot_t *b, uint32_t tag, const void *data, size_t len, double timeout_s);
/* The message with (peer, tag), waiting at most timeout_s; others that
 * arrive meanwhile are kept for later calls. *len: capacity in, size out.
 * A BOOT_TAG_FAILED message from any rank ends the wait early with
 * chorus_remote_error and its text as the error: the communicator is lost,
 * and waiting on the peer would only take until the timeout to say so. */
chorus_result_t boot_recv(boot_t *b, int peer, uint32_t tag, void *data, size_t *len, double timeout_s);
/* The first message with `tag` from any rank (its rank in *from). */
chorus_result_t boot_recv_any(boot_t *b, uint32_t tag, int *from, void *data, size_t *len, double timeout_s);
/* Same, but the message stays queued (every thread of a rank can read it). */
chorus_result_t boot_peek_any(boot_t *b, uint32_t tag, int *from, void *data, size_t *len, double timeout_s);
/* Same, without waiting: only what has already arrived, and nothing when
 * another thread is inside a receive (chorus_timeout then). */
chorus_result_t boot_peek_queued(boot_t *b, uint32_t tag, int *from, void *data, size_t *len);
/* Calls fn on each message already queued (not taken) whose tag lies in
 * [lo, hi], in arrival order, until fn returns nonzero, which it returns;
 * without waiting, and 0 when another thread is inside a receive. */
typedef int (*boot_scan_fn)(void *arg, int from, uint32_t tag, const void *data, size_t len);
int boot_scan_queued(boot_t *b, uint32_t lo, uint32_t hi, boot_scan_fn fn, void *arg);
/* Whether `peer` still listens: 1 it took a (BOOT_TAG_PROBE) message, 0 it
 * refused (its process ended or closed its communicator), -1 no answer
 * within timeout_s (unreachable, or too busy to say). */
int boot_probe(boot_t *b, int peer, double timeout_s);

/* Tags of the bootstrap's own messages. A rank that fails for a reason of
 * its own (a peer died, a timeout, a refused connection) sends every rank
 * BOOT_TAG_FAILED with the text of its error (a string); see comm_fail. */
#define BOOT_TAG_FAILED 0x20000001u
/* mismatch.c's reports; one queued for a rank also ends its waits for a
 * peer's message (chorus_remote_error): the ranks made different calls, and
 * the message awaited may never come. */
#define BOOT_TAG_MISMATCH 0x20000000u
#define BOOT_TAG_PROBE 0x20000002u

#endif
