/* transport.h -- one interface for moving steps between two ranks, and the
 * slot ring every transport presents to the executor.
 *
 * A connection is a ring of GEOM_NSTEPS slots of step_bytes. The producer
 * waits for room, writes slot[head % N], and posts head + 1 with the step's
 * size and call tag; the consumer waits for head, reads the slot, and
 * releases tail + 1. Counters live on their own cache lines. Waiting spins
 * CHORUS_SPIN polls, then sleeps on a futex on the counter, so that many
 * ranks on few cores still progress. For shm the ring sits in the
 * receiver's shared segment and the sender writes the slot directly (one
 * copy); for sockets each side has a local ring and proxy threads move
 * steps between the rings and the TCP streams, and a hook on the ring lets
 * the waiting executor move small steps itself (no thread hand-off). The
 * executor only ever sees rings; its per-step path has no indirect call
 * but that hook, NULL for shm. Transports know nothing of plans or
 * collectives. */
#ifndef CHORUS_TRANSPORT_H
#define CHORUS_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "chorus.h"
#include "error.h"
#include "geom.h"
#include "params.h"

/* Step metadata: bytes in the low 31 bits, "more steps of this chunk
 * follow" in bit 31, the call's tag in the high 32 bits. */
#define RING_MORE 0x80000000u

typedef struct {
  _Alignas(64) uint32_t head; /* steps posted by the producer */
  uint32_t head_sleepers;
  _Alignas(64) uint32_t tail; /* steps released by the consumer */
  uint32_t tail_sleepers;
  _Alignas(64) uint64_t meta[GEOM_NSTEPS];
  _Alignas(64) uint32_t abort; /* nonzero: one side failed or left */
  int32_t producer_pid, consumer_pid;
} ring_ctrl_t;

/* The slots start here inside a ring's memory. */
#define RING_SLOTS_OFFSET 4096

typedef struct ring ring_t;

/* When a transport's hook is called on a ring (the executor's side only;
 * proxies use rings without it). */
typedef enum {
  RING_HOOK_POSTED, /* producer: a step was just posted */
  RING_HOOK_POLL,   /* consumer: waiting for data, spinning: move a step if one can */
  RING_HOOK_BLOCK,  /* consumer: as POLL, but may sleep (about 1 ms at most) until there is one */
  RING_HOOK_IDLE    /* consumer: giving up, about to sleep on the futex */
} ring_hook_op_t;

struct ring {
  ring_ctrl_t *ctrl;
  char *slots;
  size_t step_bytes;
  uint32_t pos;             /* next step this side produces or consumes */
  int peer_pid;             /* to notice a dead peer process (0: same process) */
  const volatile int *stop; /* the communicator's abort flag */
  /* Sockets: moves steps from the calling thread when that beats waking a
   * proxy (sock.c); NULL for shm. */
  /* Returns 1 when it slept (RING_HOOK_BLOCK), 0 when it looked and
   * found nothing to move, -1 when it does not take part now (the caller
   * spins as it would without a hook). */
  int (*hook)(ring_t *r, ring_hook_op_t op);
  void *hook_arg;
};

/* Why a wait ended. */
typedef enum { RING_OK = 0, RING_ABORTED, RING_PEER_DEAD, RING_TIMEOUT, RING_STOPPED } ring_wait_t;

/* Slow path of the waits: spin, then futex, until *word - target >= 0
 * (wrapping), abort, stop, peer death or the deadline (timeout_s <= 0: none). */
ring_wait_t ring_wait_slow(ring_t *r, uint32_t *word, uint32_t *sleepers, uint32_t target, double timeout_s);
/* Polls before sleeping, replacing CHORUS_SPIN's default (process-wide). */
void ring_set_spin(long polls);
/* Whether a peer process has died (gone, or a zombie). */
int ring_peer_gone(int pid);
/* Wake every sleeper of the counter (after a post or release). */
void ring_wake(uint32_t *word);
/* Why a ring was aborted (ctrl->abort); the first reason stays. */
enum {
  RING_ABORT_FAILED = 1, /* a rank at either end failed (comm_fail) */
  RING_ABORT_SOCKET = 2, /* a socket stream failed: reset, cut, or garbage (conn->why says which) */
  RING_ABORT_CLOSED = 3  /* every socket stream ended: the peer closed its end */
};
/* Mark the ring aborted for `why` (the first reason wins) and wake both sides. */
void ring_abort(ring_ctrl_t *c, uint32_t why);

static inline int ring_passed(uint32_t v, uint32_t target) { return (int32_t)(v - target) >= 0; }

/* Producer: wait until slot `pos` is free, return it. */
static inline ring_wait_t ring_wait_room(ring_t *r, void **slot, double timeout_s) {
  uint32_t need = r->pos - GEOM_NSTEPS + 1;
  if (!ring_passed(__atomic_load_n(&r->ctrl->tail, __ATOMIC_ACQUIRE), need) ||
      __atomic_load_n(&r->ctrl->abort, __ATOMIC_RELAXED)) {
    ring_wait_t w = ring_wait_slow(r, &r->ctrl->tail, &r->ctrl->tail_sleepers, need, timeout_s);
    if (w != RING_OK) return w;
  }
  *slot = r->slots + (size_t)(r->pos % GEOM_NSTEPS) * r->step_bytes;
  return RING_OK;
}

static inline void ring_post(ring_t *r, uint32_t bytes_flags, uint32_t tag) {
  r->ctrl->meta[r->pos % GEOM_NSTEPS] = (uint64_t)bytes_flags | (uint64_t)tag << 32;
  r->pos++;
  /* seq_cst store then load: pairs with the sleeper's increment-then-recheck. */
  __atomic_store_n(&r->ctrl->head, r->pos, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&r->ctrl->head_sleepers, __ATOMIC_SEQ_CST)) ring_wake(&r->ctrl->head);
  if (r->hook) r->hook(r, RING_HOOK_POSTED);
}

/* Consumer: wait until step `pos` has arrived; return its slot and meta. */
static inline ring_wait_t ring_wait_data(ring_t *r, void **slot, uint64_t *meta, double timeout_s) {
  uint32_t need = r->pos + 1;
  if (!ring_passed(__atomic_load_n(&r->ctrl->head, __ATOMIC_ACQUIRE), need)) {
    ring_wait_t w = ring_wait_slow(r, &r->ctrl->head, &r->ctrl->head_sleepers, need, timeout_s);
    if (w != RING_OK) return w;
  }
  *slot = r->slots + (size_t)(r->pos % GEOM_NSTEPS) * r->step_bytes;
  *meta = r->ctrl->meta[r->pos % GEOM_NSTEPS];
  return RING_OK;
}

static inline void ring_release(ring_t *r) {
  r->pos++;
  __atomic_store_n(&r->ctrl->tail, r->pos, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&r->ctrl->tail_sleepers, __ATOMIC_SEQ_CST)) ring_wake(&r->ctrl->tail);
}

/* What a transport gets from the communicator to set up one connection. */
typedef struct {
  int rank, peer, channel;  /* channel: the connection's index among (rank, peer) */
  size_t step_bytes;
  const uint8_t *secret;    /* 16 bytes, presented on every socket */
  const volatile int *stop; /* the communicator's abort flag */
  const void *ifaddr;       /* net_addr_t: this rank's address, for listening sockets */
} tr_args_t;

#define TR_DESC_MAX 256

typedef struct tr_conn tr_conn_t;

/* A transport: the communicator calls these without knowing which one it is.
 * Setup on both ends produces a descriptor that the bootstrap carries to the
 * other end; connect consumes the other end's descriptor. After connect,
 * conn->ring is ready for the executor. */
typedef struct {
  const char *name;
  chorus_result_t (*send_setup)(tr_conn_t *c, const tr_args_t *a, void *desc, size_t *len);
  chorus_result_t (*recv_setup)(tr_conn_t *c, const tr_args_t *a, void *desc, size_t *len);
  chorus_result_t (*send_connect)(tr_conn_t *c, const tr_args_t *a, const void *desc, size_t len);
  chorus_result_t (*recv_connect)(tr_conn_t *c, const tr_args_t *a, const void *desc, size_t len);
  /* After a local failure: make the peer notice now (NULL: the ring's abort
   * flag already reaches it, as in shared memory). */
  void (*abort)(tr_conn_t *c);
  /* Sender, every posted step already out of the ring: wait until the peer's
   * rank has taken them all (NULL: the ring's tail says so already, as in
   * shared memory). RING_ABORTED when the peer aborted instead. */
  ring_wait_t (*flush)(tr_conn_t *c, double timeout_s);
  /* Sender, without waiting: RING_ABORTED when the peer's end is known to
   * have closed (NULL: the ring's abort flag already says so). */
  ring_wait_t (*check)(tr_conn_t *c);
  /* Stop proxies and release everything; safe on a half-set-up connection. */
  void (*free)(tr_conn_t *c);
} transport_t;

struct tr_conn {
  int peer, channel, is_send;
  ring_t ring;
  const transport_t *tr;
  void *priv;
  char why[160]; /* the transport's reason for RING_ABORT_SOCKET, written before the abort */
};

extern const transport_t shm_transport;
extern const transport_t sock_transport;

/* Monotonic seconds. */
double tr_now(void);

#endif
