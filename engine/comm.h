/* comm.h -- the communicator's inside: who the ranks are and where they live,
 * the connections made so far, the plans used so far, and the channel
 * worker threads. Shared by comm.c (set-up, teardown, errors), exec.c (the
 * executor) and api.c (calls, streams, groups). */
#ifndef CHORUS_COMM_H
#define CHORUS_COMM_H

#include <pthread.h>
#include <stdint.h>

#include "bootstrap.h"
#include "cache.h"
#include "exec_state.h"
#include "chorus.h"
#include "params.h"
#include "plan.h"
#include "planner.h"
#include "transport/transport.h"

/* Connection index used by point-to-point calls (plans use 0 .. channels-1). */
#define COMM_P2P_CHANNEL PLAN_MAX_CHANNELS
#define COMM_CONN_SLOTS (PLAN_MAX_CHANNELS + 1)

/* One enqueued call. */
typedef enum { CALL_COLL = 0, CALL_SEND, CALL_RECV } comm_call_kind_t;

typedef struct {
  comm_call_kind_t kind;
  chorus_coll_t coll;
  const void *sendbuf;
  void *recvbuf;
  size_t count;
  chorus_dtype_t dt;
  chorus_redop_t op;
  int root; /* or the peer of a send/recv */
  chorus_comm_t *comm;
  void *cuda_stream; /* cudaStream_t of a CUDA chorus stream (NULL: none) */
} comm_call_t;

/* Where one channel of the running call is, for hang reports (hang.c):
 * written by the executor once per op (never per step), read racily by a
 * report. conn_in/conn_out are the op's connections (NULL when it has none). */
typedef struct {
  volatile int active;
  volatile int op_index, op_count, op_code, recv_peer, send_peer;
  tr_conn_t *volatile conn_in, *volatile conn_out;
} comm_where_t;

/* What one collective call was, as every rank must make it: the step tag
 * hashes all of it, and a mismatch report shows it. */
typedef struct {
  uint32_t seq, tag;
  int32_t coll, dt, op, root, nchannels;
  uint64_t count;
  char algo[64];
} comm_desc_t;

#define COMM_HIST 16 /* calls remembered, to answer a peer that is behind */

struct chorus_comm {
  int rank, nranks;
  boot_t *boot;
  int nhosts;
  int nlocal;          /* ranks on this rank's host */
  int nmachine;        /* ranks on this rank's machine: its host in any network namespace (same hostname and
                        * boot), which share its cores and memory */
  int *host_of;        /* [nranks] host index */
  plan_shape_t shape;  /* hosts as the planner's nodes (one node when ranks are not grouped by host) */
  volatile int stop;   /* set by abort or by a failure: every wait returns */
  chorus_result_t error;
  char errmsg[1024];
  pthread_mutex_t lock;      /* one call at a time runs on a communicator */
  tr_conn_t **conns;            /* [(peer * COMM_CONN_SLOTS + channel) * 2 + is_send] */
  geom_conn_t geom;          /* the connections: chunk_bytes, step_bytes (core/geom.h) */
  uint32_t seq;              /* collective calls so far: part of every step's tag */
  uint32_t *p2p_sent, *p2p_recvd; /* [nranks] point-to-point messages so far */
  plan_cache_t *cache;
  exec_state_t x;            /* the executor's own (exec_state.h): only exec.c reads it */
  comm_desc_t hist[COMM_HIST]; /* the last calls, hist[seq % COMM_HIST] */
  /* What the running call is, and each channel's op: for hang reports. */
  volatile int call_active, call_kind, call_coll, connecting;
  volatile size_t call_count;
  comm_where_t where[PLAN_MAX_CHANNELS];
  int hang_slot; /* index in hang.c's registry, -1 when not registered */
  long long job;  /* the same on every rank of this communicator, another in any other: a hash of its secret */
  struct cuda_rank *cuda; /* the GPU executor's state (cuda_exec.c); NULL for a CPU communicator */
  /* Streams that hold queued work for this communicator. */
  int inflight;
  pthread_cond_t idle;
};

/* Record the communicator's failure (first one wins), stop its waits and
 * abort every connection so that peers fail fast instead of timing out.
 * Returns r. */
chorus_result_t comm_fail(chorus_comm_t *c, chorus_result_t r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* comm_fail for a failure that follows another rank's: the first failing
 * rank tells every rank its cause (over the bootstrap, before it aborts
 * its connections); this one tells nobody. */
chorus_result_t comm_fail_after(chorus_comm_t *c, chorus_result_t r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A wait on connection cn ended because it was aborted (ring_wait
 * RING_ABORTED); `at` says where ("on channel 0 while this rank received
 * from it"). Fails the communicator with the whole story: a mismatch
 * report if one comes; else the first failing rank's cause, appended;
 * else, for a socket that ended without one, whether the peer's process
 * still answers. Returns the error. */
chorus_result_t comm_peer_failed(chorus_comm_t *c, const tr_conn_t *cn, const char *at);

/* Make the connections (peer, channel, direction) in `links` that do not
 * exist yet, with each peer doing the same in its call; all are set up
 * together so that the exchange cannot deadlock. `call`: the collective
 * call that needs them (NULL for send/recv); a peer whose set-up message
 * names another call is a mismatch, reported as mismatch.h says. A rank
 * told of a mismatch while it waits for a set-up stops waiting. */
typedef struct {
  int peer, channel, is_send;
} comm_link_t;
chorus_result_t comm_connect(chorus_comm_t *c, const comm_link_t *links, int nlinks, const comm_desc_t *call);

static inline tr_conn_t *comm_conn(chorus_comm_t *c, int peer, int channel, int is_send) {
  return c->conns[((size_t)peer * COMM_CONN_SLOTS + channel) * 2 + is_send];
}

#endif
