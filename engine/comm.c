/* comm.c -- communicator set-up and teardown: joining through the
 * bootstrap, telling hosts apart, making connections on first use (shm inside
 * a host, sockets across), launcher environments, failure and abort. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"
#include "cuda_exec.h"
#include "hang.h"
#include "mismatch.h"
#include "tune.h"
#include "kernels.h"
#include "log.h"
#include "launcher.h"
#include "params.h"
#include "pmix_boot.h"

_Static_assert(sizeof(boot_id_t) <= CHORUS_UNIQUE_ID_BYTES, "boot_id_t must fit in chorus_unique_id_t");

/* How long a rank whose peer failed waits for the first failing rank to
 * say why; that rank sends the cause before it aborts its connections, so
 * it is normally queued already. A cause a rank must find out for itself
 * (a socket peer that closed) takes a probe of up to FAIL_PROBE_S first. */
#define FAIL_CAUSE_WAIT_S 1.0
#define FAIL_PROBE_S 0.2
/* A failing rank lets its proxies write the steps already posted for this
 * long at most, in all, before it ends its sockets (vfail). */
#define FAIL_DRAIN_S 0.5

/* A cause's text, ended, without its "rank K: " (said already). */
static void cause_text(int from, char *text, size_t len, size_t cap) {
  text[len < cap ? len : cap - 1] = 0;
  char own[24];
  int n = snprintf(own, sizeof own, "rank %d: ", from);
  if (!strncmp(text, own, (size_t)n)) memmove(text, text + n, strlen(text + n) + 1);
  n = snprintf(own, sizeof own, "rank %d channel", from); /* "rank K channel C: ..." -> "channel C: ..." */
  if (!strncmp(text, own, (size_t)n)) memmove(text, text + n - 7, strlen(text + n - 7) + 1);
}

/* Send every other rank this rank's cause (best effort, in parallel). */
static void tell_all(chorus_comm_t *c, const char *msg) {
  if (c->boot) boot_send_all_within(c->boot, BOOT_TAG_FAILED, msg, strlen(msg) + 1, FAIL_PROBE_S);
}

static void vfail(chorus_comm_t *c, chorus_result_t r, int tell, const char *fmt, va_list ap) {
  char msg[1024], cause[600];
  vsnprintf(msg, sizeof msg, fmt, ap);
  int from;
  size_t len = sizeof cause - 1;
  /* A cause already here makes this failure a consequence (a peer that
   * failed on it and left refuses this rank's connection): say both. */
  if (tell && c->boot && boot_peek_queued(c->boot, BOOT_TAG_FAILED, &from, cause, &len) == chorus_success) {
    cause_text(from, cause, len, sizeof cause);
    size_t n = strlen(msg);
    snprintf(msg + n, sizeof msg - n, "; the first failure, on rank %d: %s", from, cause);
    tell = 0;
  }
  chorus_set_last_error(msg);
  if (__sync_bool_compare_and_swap(&c->error, chorus_success, r)) {
    snprintf(c->errmsg, sizeof c->errmsg, "%s", msg);
    LOG_WARN_("INIT", "rank %d: %s", c->rank, msg);
    /* Before the aborts below wake the peers, so that each finds the cause
     * queued and names the rank it started from, not only its neighbour. */
    if (tell) tell_all(c, msg);
  }
  /* Steps this rank posted on a socket and its proxies have not written
   * yet are of calls it has finished (or of this one), which a peer may
   * still be in: the aborts below end the streams, so let them go out
   * first, for at most FAIL_DRAIN_S in all. Without this a mismatch found
   * in call N cut off call N-1's last steps to a peer still receiving them,
   * and that peer failed a call that had succeeded everywhere else (CI,
   * test_sock_proxies_only: about 1 run in 5). */
  double until = tr_now() + FAIL_DRAIN_S;
  for (size_t i = 0; c->conns && i < (size_t)c->nranks * COMM_CONN_SLOTS * 2; i++) {
    tr_conn_t *cn = c->conns[i];
    /* Only a transport whose abort ends its streams loses posted steps; in
     * shared memory they already sit in the peer's slots. */
    if (!cn || !cn->is_send || !cn->ring.ctrl || !cn->tr || !cn->tr->abort) continue;
    ring_ctrl_t *ctrl = cn->ring.ctrl;
    uint32_t posted = __atomic_load_n(&ctrl->head, __ATOMIC_ACQUIRE);
    while (!ring_passed(__atomic_load_n(&ctrl->tail, __ATOMIC_ACQUIRE), posted) &&
           !__atomic_load_n(&ctrl->abort, __ATOMIC_ACQUIRE) && tr_now() < until)
      sched_yield();
  }
  c->stop = 1;
  cuda_comm_abort(c); /* every kernel of the process's ranks stops at its next poll */
  /* Abort every connection: peers waiting on this rank fail now, not at their timeout. */
  for (size_t i = 0; c->conns && i < (size_t)c->nranks * COMM_CONN_SLOTS * 2; i++)
    if (c->conns[i] && c->conns[i]->ring.ctrl) {
      ring_abort(c->conns[i]->ring.ctrl, RING_ABORT_FAILED);
      if (c->conns[i]->tr && c->conns[i]->tr->abort) c->conns[i]->tr->abort(c->conns[i]);
    }
}

chorus_result_t comm_fail(chorus_comm_t *c, chorus_result_t r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(c, r, 1, fmt, ap);
  va_end(ap);
  return r;
}

chorus_result_t comm_fail_after(chorus_comm_t *c, chorus_result_t r, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(c, r, 0, fmt, ap);
  va_end(ap);
  return r;
}

static pthread_mutex_t cause_lock = PTHREAD_MUTEX_INITIALIZER;

/* Add to this rank's error (first failure already recorded) and log the whole. */
static void append_error(chorus_comm_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void append_error(chorus_comm_t *c, const char *fmt, ...) {
  pthread_mutex_lock(&cause_lock);
  size_t n = strlen(c->errmsg);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(c->errmsg + n, sizeof c->errmsg - n, fmt, ap);
  va_end(ap);
  LOG_WARN_("INIT", "rank %d: %s", c->rank, c->errmsg);
  pthread_mutex_unlock(&cause_lock);
}

/* Add the first failing rank's own words to this rank's error (once). */
static void add_cause(chorus_comm_t *c, int from, const char *text) {
  if (!strstr(c->errmsg, "; the first failure, ")) append_error(c, "; the first failure, on rank %d: %s", from, text);
}

/* A cause sent by another rank within `wait` seconds: 1 and its text. */
static int find_cause(chorus_comm_t *c, double wait, int *from, char *text, size_t cap) {
  size_t len = cap - 1;
  if (!c->boot || boot_peek_any(c->boot, BOOT_TAG_FAILED, from, text, &len, wait) != chorus_success) return 0;
  cause_text(*from, text, len, cap);
  return 1;
}

chorus_result_t comm_peer_failed(chorus_comm_t *c, const tr_conn_t *cn, const char *at) {
  if (c->error) return c->error; /* this rank failed first; its own error stands */
  uint32_t why = __atomic_load_n(&cn->ring.ctrl->abort, __ATOMIC_SEQ_CST);
  int peer = cn->peer, from;
  char cause[600];
  /* Fail first: this rank's other peers must wake (a peer that must answer
   * a mismatch report may be waiting on this one); then find out more. */
  int failed = why == RING_ABORT_FAILED || cn->tr == &shm_transport; /* the peer failed and said so in the ring */
  if (failed) comm_fail_after(c, chorus_remote_error, "rank %d: rank %d failed or aborted %s", c->rank, peer, at);
  else if (why == RING_ABORT_SOCKET)
    comm_fail_after(c, chorus_remote_error, "rank %d: the socket connection with rank %d failed %s: %s", c->rank, peer,
                    at, cn->why);
  else comm_fail_after(c, chorus_remote_error, "rank %d: rank %d closed its connection %s", c->rank, peer, at);
  mismatch_listen(c); /* a peer that saw a step of another call may say both calls */
  if (c->error == chorus_invalid_usage) return c->error;
  if (failed) {
    /* Its cause is on its way (it sends it before it aborts). */
    if (find_cause(c, FAIL_CAUSE_WAIT_S, &from, cause, sizeof cause)) add_cause(c, from, cause);
    else if (ring_peer_gone(cn->ring.peer_pid)) add_cause(c, peer, "its process has died");
  } else {
    /* A socket ended: a peer that failed deliberately sent its cause before
     * closing; one that died, or a network that failed, says nothing. */
    int found = find_cause(c, 0.05, &from, cause, sizeof cause);
    int alive = found ? 1 : boot_probe(c->boot, peer, FAIL_PROBE_S);
    /* A peer alive that closed its end failed on purpose: its cause (or that
     * of the rank it failed on) is coming; a failed socket is a cause itself. */
    if (!found && alive > 0 && why != RING_ABORT_SOCKET)
      found = find_cause(c, FAIL_CAUSE_WAIT_S, &from, cause, sizeof cause);
    if (found) add_cause(c, from, cause);
    else {
      append_error(c, "%s",
                   alive == 0  ? "; it is gone: its bootstrap listener refuses connections (its process ended or it "
                                 "destroyed its communicator)"
                   : alive < 0 ? "; it does not answer on the bootstrap either (its host or the network is down)"
                               : "; its process still answers");
      tell_all(c, c->errmsg); /* nobody else can know this: late as it is */
    }
  }
  chorus_set_last_error(c->errmsg);
  return c->error;
}

/* Once per process, at INFO: the versions found at run time. */
static void log_runtime(void) {
  char v[320];
  tune_runtime_versions(v, sizeof v);
  LOG_INFO_("INIT", "running with %s", v);
}

static chorus_result_t comm_create(chorus_comm_t **out, int nranks, const boot_id_t *id, int rank) {
  static pthread_once_t runtime_once = PTHREAD_ONCE_INIT;
  pthread_once(&runtime_once, log_runtime);
  chorus_result_t res = chorus_success;
  *out = NULL;
  if (nranks < 1 || rank < 0 || rank >= nranks)
    return err_set(chorus_invalid_argument, "rank %d of %d: the rank must be in 0..nranks-1", rank, nranks);
  chorus_comm_t *c = calloc(1, sizeof *c);
  if (!c) return err_set(chorus_out_of_memory, "out of memory for a communicator");
  c->rank = rank, c->nranks = nranks;
  log_set_rank(rank);
  hang_register(c);
  pthread_mutex_init(&c->lock, NULL);
  pthread_cond_init(&c->idle, NULL);
  c->conns = calloc((size_t)nranks * COMM_CONN_SLOTS * 2, sizeof *c->conns);
  c->host_of = calloc((size_t)nranks, sizeof *c->host_of);
  c->p2p_sent = calloc((size_t)nranks, sizeof *c->p2p_sent);
  c->p2p_recvd = calloc((size_t)nranks, sizeof *c->p2p_recvd);
  c->cache = plan_cache_create();
  if (!c->conns || !c->host_of || !c->p2p_sent || !c->p2p_recvd || !c->cache) {
    res = err_set(chorus_out_of_memory, "out of memory for a communicator of %d ranks", nranks);
    goto cleanup;
  }
  c->geom = geom_conn_engine((size_t)param_int(PARAM_BUFFSIZE));

  CHECK(tune_check_settings()); /* a bad CHORUS_TUNING_FILE or CHORUS_PROTO fails here, not at a call */
  CHECK(boot_init(&c->boot, id, rank, nranks, (double)param_int(PARAM_TIMEOUT)));
  /* The communicator's name in hang reports: one-way from the secret, which
   * the reports must not show. */
  uint64_t jh = 1469598103934665603ull;
  for (int i = 0; i < 16; i++) jh = (jh ^ boot_secret(c->boot)[i]) * 1099511628211ull;
  c->job = (long long)(jh >> 1);
  /* Hosts in order of first appearance; a host is a (hostname, boot, netns). */
  int *first = malloc(sizeof *first * nranks);
  if (!first) {
    res = err_set(chorus_out_of_memory, "out of memory");
    goto cleanup;
  }
  for (int r = 0; r < nranks; r++) {
    int h = -1;
    for (int k = 0; k < c->nhosts && h < 0; k++)
      if (!strcmp(boot_peer(c->boot, first[k])->hostid, boot_peer(c->boot, r)->hostid)) h = k;
    if (h < 0) first[h = c->nhosts++] = r;
    c->host_of[r] = h;
  }
  free(first);
  for (int r = 0; r < nranks; r++) c->nlocal += c->host_of[r] == c->host_of[rank];
  for (int r = 0; r < nranks; r++)
    c->nmachine += boot_same_machine(boot_peer(c->boot, r)->hostid, boot_peer(c->boot, rank)->hostid);
  /* More ranks than cores: a spinning waiter holds the core its peer needs.
   * Measured (4 ranks, 2 cores, 8 B allreduce): 130 us spinning 4000 polls,
   * 50 us with 50. The user's CHORUS_SPIN wins. */
  if (!param_is_set(PARAM_SPIN) && c->nlocal > sysconf(_SC_NPROCESSORS_ONLN)) ring_set_spin(50);
  /* The planner's nodes are runs of consecutive ranks: use the hosts when
   * ranks are numbered host by host, else one node (plans stay correct). */
  int grouped = 1;
  for (int r = 1; r < nranks; r++)
    if (c->host_of[r] != c->host_of[r - 1] && c->host_of[r] != c->host_of[r - 1] + 1) grouped = 0;
  int *sizes = calloc((size_t)c->nhosts, sizeof *sizes);
  if (!sizes) {
    res = err_set(chorus_out_of_memory, "out of memory");
    goto cleanup;
  }
  for (int r = 0; r < nranks; r++) sizes[c->host_of[r]]++;
  if (grouped) res = plan_shape_init(&c->shape, nranks, c->nhosts, sizes);
  else res = plan_shape_init(&c->shape, nranks, 1, NULL);
  free(sizes);
  if (res != chorus_success) goto cleanup;
  if (rank == 0)
    LOG_INFO_("INIT", "communicator of %d ranks on %d hosts; chunk %zu bytes, step %zu bytes, kernels %s", nranks,
              c->nhosts, c->geom.chunk_bytes, c->geom.step_bytes, kern_isa());
cleanup:
  if (res != chorus_success) {
    chorus_comm_destroy(c);
    return res;
  }
  *out = c;
  return res;
}

chorus_result_t chorus_get_unique_id(chorus_unique_id_t *id) {
  if (!id) return err_set(chorus_invalid_argument, "chorus_get_unique_id: id is NULL");
  boot_id_t b;
  TRY(boot_id_create(&b));
  memset(id, 0, sizeof *id);
  memcpy(id->internal, &b, sizeof b);
  return chorus_success;
}

chorus_result_t chorus_comm_init_rank(chorus_comm_t **comm, int nranks, chorus_unique_id_t id, int rank) {
  if (!comm) return err_set(chorus_invalid_argument, "chorus_comm_init_rank: comm is NULL");
  boot_id_t b;
  memcpy(&b, id.internal, sizeof b);
  return comm_create(comm, nranks, &b, rank);
}

typedef struct {
  chorus_comm_t **slot;
  int nranks, rank;
  boot_id_t id;
  chorus_result_t res;
  char msg[1024];
} init_arg_t;

static void *init_main(void *arg) {
  init_arg_t *a = arg;
  a->res = comm_create(a->slot, a->nranks, &a->id, a->rank);
  if (a->res != chorus_success) snprintf(a->msg, sizeof a->msg, "%s", chorus_last_error());
  return NULL;
}

chorus_result_t chorus_comm_init_all(chorus_comm_t **comms, int nranks) {
  if (!comms || nranks < 1) return err_set(chorus_invalid_argument, "chorus_comm_init_all: need comms and nranks >= 1");
  boot_id_t id;
  chorus_result_t res = boot_id_create(&id);
  TRY(res);
  init_arg_t *args = calloc((size_t)nranks, sizeof *args);
  pthread_t *th = calloc((size_t)nranks, sizeof *th);
  if (!args || !th) {
    free(args);
    free(th);
    return err_set(chorus_out_of_memory, "out of memory");
  }
  int started = 0;
  for (int r = 0; r < nranks; r++) {
    comms[r] = NULL;
    args[r] = (init_arg_t){.slot = &comms[r], .nranks = nranks, .rank = r, .id = id};
    if (pthread_create(&th[r], NULL, init_main, &args[r]) != 0) {
      args[r].res = err_set(chorus_system_error, "cannot start a thread for rank %d", r);
      break;
    }
    started++;
  }
  for (int r = 0; r < started; r++) pthread_join(th[r], NULL);
  for (int r = 0; r < nranks; r++) {
    if (args[r].res != chorus_success && res == chorus_success) {
      res = args[r].res;
      chorus_set_last_error(args[r].msg);
    }
  }
  if (res != chorus_success) {
    for (int r = 0; r < nranks; r++) {
      if (comms[r]) chorus_comm_destroy(comms[r]);
      comms[r] = NULL;
    }
  }
  free(args);
  free(th);
  return res;
}

chorus_result_t chorus_comm_init_all_cuda(chorus_comm_t **comms, int nranks, const int *devices) {
  if (!comms || nranks < 1 || !devices)
    return err_set(chorus_invalid_argument, "chorus_comm_init_all_cuda: need comms, nranks >= 1 and devices");
  if (!cuda_built()) return cuda_attach(comms, nranks, devices); /* says why */
  /* Every rank's stream its own hardware queue: with fewer, two ranks'
   * kernels can queue behind each other and wait on each other. Only
   * effective before the process first uses CUDA. */
  setenv("CUDA_DEVICE_MAX_CONNECTIONS", "32", 0);
  TRY(chorus_comm_init_all(comms, nranks));
  chorus_result_t res = cuda_attach(comms, nranks, devices);
  if (res != chorus_success) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", chorus_last_error());
    for (int r = 0; r < nranks; r++) {
      chorus_comm_destroy(comms[r]);
      comms[r] = NULL;
    }
    chorus_set_last_error(msg);
  }
  return res;
}

chorus_result_t chorus_comm_cuda_device(const chorus_comm_t *c, int *device) {
  if (!c || !device) return err_set(chorus_invalid_argument, "chorus_comm_cuda_device: NULL argument");
  *device = c->cuda ? cuda_device_of(c) : -1;
  return chorus_success;
}

/* --- launchers --- */

/* First host of a Slurm node list ("node[03-05,7],other" -> "node03"). */
static void slurm_first_host(const char *list, char *out, size_t len) {
  size_t i = 0, o = 0;
  while (list[i] && list[i] != ',' && list[i] != '[' && o + 1 < len) out[o++] = list[i++];
  if (list[i] == '[') {
    i++;
    while (list[i] && isdigit((unsigned char)list[i]) && o + 1 < len) out[o++] = list[i++];
  }
  out[o] = 0;
}

/* 64-bit FNV-1a, to derive a secret both ends can compute. */
static uint64_t fnv(const char *s, uint64_t h) {
  for (; s && *s; s++) h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
  return h;
}

chorus_result_t chorus_comm_init_env(chorus_comm_t **comm) {
  launcher_env_t l;
  if (!launcher_env(&l))
    return err_set(chorus_invalid_usage,
                   "no launcher environment: set OMPI_COMM_WORLD_RANK/SIZE (mpirun), SLURM_PROCID/NTASKS (srun) "
                   "or RANK/WORLD_SIZE with MASTER_ADDR/MASTER_PORT");
  const char *ns = l.size, *job = l.job;
  int rank = atoi(l.rank), nranks = atoi(ns);
  char host[256] = "";
  int port = 29500;
  const char *root = param_str(PARAM_ROOT);
  if (pmix_launched() && !root[0] && !l.master_addr) {
    /* The launcher has a key-value store: rank 0's fresh id (random secret,
     * its own listener) goes through it, nothing derived, nothing by hand. */
    boot_id_t id = {.magic = BOOT_MAGIC};
    if (rank == 0) TRY(boot_id_create(&id));
    TRY(pmix_share_id(&id, rank, nranks));
    return comm_create(comm, nranks, &id, rank);
  }
  if (root[0]) {
    snprintf(host, sizeof host, "%s", root);
    char *colon = strrchr(host, ':');
    if (colon) *colon = 0, port = atoi(colon + 1);
  } else if (l.master_addr) {
    snprintf(host, sizeof host, "%s", l.master_addr);
    if (l.master_port) port = atoi(l.master_port);
  } else if (l.nodelist) {
    slurm_first_host(l.nodelist, host, sizeof host);
    if (job) port = 20000 + (int)(fnv(job, 1469598103934665603ull) % 20000);
  } else if (nranks == 1 || l.local_size == nranks) {
    /* Every rank on this host: the root is local. */
    snprintf(host, sizeof host, "127.0.0.1");
    if (job) port = 20000 + (int)(fnv(job, 1469598103934665603ull) % 20000);
  } else {
    return err_set(chorus_invalid_usage, "ranks span hosts but no root is named: set MASTER_ADDR and MASTER_PORT "
                                         "(mpirun -x MASTER_ADDR=host -x MASTER_PORT=29500) or CHORUS_ROOT=host:port");
  }
  boot_id_t id = {.magic = BOOT_MAGIC};
  const char *sec = param_str(PARAM_SECRET);
  if (sec && strlen(sec) >= 32) {
    for (int i = 0; i < 16; i++) {
      unsigned v;
      sscanf(sec + 2 * i, "%2x", &v);
      id.secret[i] = (uint8_t)v;
    }
  } else {
    LOG_INFO_("INIT", "this %s job is not protected: its secret is derived from the job id, root host and port, "
                      "which any process that knows them can use to join; set CHORUS_SECRET to the same 32 random "
                      "hex digits on every rank (CHORUS_SECRET=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \\n')), "
                      "or launch with a PMIx launcher (mpirun, srun --mpi=pmix)", l.name);
    uint64_t h1 = fnv(job, fnv(host, 1469598103934665603ull) + (uint64_t)port);
    uint64_t h2 = fnv(ns, h1 ^ 0x9e3779b97f4a7c15ull);
    memcpy(id.secret, &h1, 8);
    memcpy(id.secret + 8, &h2, 8);
  }
  TRY(net_resolve(host, port, &id.root));
  if (rank == 0) {
    net_addr_t any = id.root;
    if (any.sa.ss_family == AF_INET) ((struct sockaddr_in *)&any.sa)->sin_addr.s_addr = htonl(INADDR_ANY);
    else ((struct sockaddr_in6 *)&any.sa)->sin6_addr = in6addr_any;
    chorus_result_t res = boot_root_start(&id, &any);
    if (res != chorus_success)
      return err_set(res, "rank 0 cannot serve the bootstrap on port %d: %s", port, chorus_last_error());
  }
  return comm_create(comm, nranks, &id, rank);
}

/* --- connections --- */

typedef struct {
  uint32_t magic;
  int32_t transport; /* 0 shm, 1 socket */
  uint64_t step_bytes;
  uint32_t len;
  char desc[TR_DESC_MAX];
  comm_desc_t call; /* the collective call that needs the connection (tag 0: send/recv) */
} link_msg_t;

static uint32_t link_tag(int channel, int from_sender) { return 0x10000000u | (uint32_t)channel << 2 | (from_sender ? 1 : 2); }
#define LINK_TAG_LAST (0x10000000u | (uint32_t)COMM_CONN_SLOTS << 2 | 3)

/* How often a rank waiting for a set-up message looks at the others queued. */
#define LINK_LOOK_S 0.01

typedef struct {
  const comm_desc_t *call;
  int from, channel;
  uint32_t tag;
} foreign_t;

/* A queued set-up message a peer made for another call of this call's
 * number: its call differs (boot_scan_fn). */
static int foreign_link(void *arg, int from, uint32_t tag, const void *data, size_t len) {
  foreign_t *f = arg;
  link_msg_t m;
  if (len != sizeof m) return 0;
  memcpy(&m, data, sizeof m);
  if (!m.call.tag || m.call.seq != f->call->seq || m.call.tag == f->call->tag) return 0;
  f->from = from, f->channel = (int)((tag & 0xffffu) >> 2), f->tag = m.call.tag;
  return 1;
}

/* The set-up message of link l from its peer. While it waits for a
 * collective call (`call`), a set-up message another peer made for another
 * call of this number is a mismatch: the peer awaited may be waiting on
 * set-ups of its own call that never come (ranks that disagree on a
 * broadcast's root connect different pairs). Then f says which, and this
 * and later waits only take what is already here (chorus_timeout). */
static chorus_result_t recv_link(chorus_comm_t *c, const comm_link_t *l, const comm_desc_t *call, link_msg_t *m,
                                 size_t *len, double timeout, foreign_t *f) {
  double end = tr_now() + (f->from >= 0 ? 0 : timeout);
  uint32_t tag = link_tag(l->channel, !l->is_send);
  for (;;) {
    double left = end - tr_now();
    size_t n = *len;
    chorus_result_t res = boot_recv(c->boot, l->peer, tag, m, &n, call && left > LINK_LOOK_S ? LINK_LOOK_S : left);
    if (res != chorus_timeout || !call || f->from >= 0) {
      *len = n;
      return res;
    }
    if (boot_scan_queued(c->boot, link_tag(0, 1), LINK_TAG_LAST, foreign_link, f)) return chorus_timeout;
    if (tr_now() >= end)
      return err_set(chorus_timeout, "rank %d: no setup message %#x from rank %d within %.0f s", c->rank, tag, l->peer,
                     timeout);
  }
}

static chorus_result_t connect_links(chorus_comm_t *c, const comm_link_t *links, int nlinks, const comm_desc_t *call);

/* Connection set-up is a wait on peers too: a hang report shows it. */
chorus_result_t comm_connect(chorus_comm_t *c, const comm_link_t *links, int nlinks, const comm_desc_t *call) {
  c->connecting = 1;
  chorus_result_t res = connect_links(c, links, nlinks, call);
  if (res == chorus_timeout) hang_dump(c, "timeout");
  c->connecting = 0;
  return res;
}

static chorus_result_t connect_links(chorus_comm_t *c, const comm_link_t *links, int nlinks, const comm_desc_t *call) {
  chorus_result_t res = chorus_success;
  double timeout = (double)param_int(PARAM_TIMEOUT);
  int fresh[nlinks > 0 ? nlinks : 1];
  int nfresh = 0;
  /* Pass 1: create this end of every new connection and send its descriptor. */
  for (int i = 0; i < nlinks; i++) {
    const comm_link_t *l = &links[i];
    size_t slot = ((size_t)l->peer * COMM_CONN_SLOTS + l->channel) * 2 + l->is_send;
    if (c->conns[slot]) continue;
    int dup = 0;
    for (int k = 0; k < nfresh; k++)
      if (links[fresh[k]].peer == l->peer && links[fresh[k]].channel == l->channel && links[fresh[k]].is_send == l->is_send) dup = 1;
    if (dup) continue;
    tr_conn_t *cn = calloc(1, sizeof *cn);
    if (!cn) return comm_fail(c, chorus_out_of_memory, "out of memory for a connection");
    c->conns[slot] = cn;
    fresh[nfresh++] = i;
    cn->peer = l->peer, cn->channel = l->channel, cn->is_send = l->is_send;
    int same = c->host_of[l->peer] == c->host_of[c->rank] && !param_int(PARAM_SHM_DISABLE);
    cn->tr = same ? &shm_transport : &sock_transport;
    tr_args_t a = {.rank = c->rank, .peer = l->peer, .channel = l->channel, .step_bytes = c->geom.step_bytes,
                   .secret = boot_secret(c->boot), .stop = &c->stop, .ifaddr = boot_addr(c->boot)};
    link_msg_t m = {.magic = BOOT_MAGIC, .transport = same ? 0 : 1, .step_bytes = c->geom.step_bytes};
    if (call) m.call = *call;
    size_t len = 0;
    res = l->is_send ? cn->tr->send_setup(cn, &a, m.desc, &len) : cn->tr->recv_setup(cn, &a, m.desc, &len);
    if (res != chorus_success) return comm_fail(c, res, "rank %d: %s connection to rank %d channel %d: %s", c->rank,
                                                cn->tr->name, l->peer, l->channel, chorus_last_error());
    m.len = (uint32_t)len;
    res = boot_send(c->boot, l->peer, link_tag(l->channel, l->is_send), &m, sizeof m);
    if (res != chorus_success) return comm_fail(c, res, "%s", chorus_last_error()); /* names both ranks */
  }
  /* Pass 2 connects senders (never waits on a peer's progress), pass 3
   * accepts on receivers: in this order no two ranks can wait on each other. */
  /* Once a mismatch is found (f), the senders whose peers' set-ups are
   * here still connect, so that the abort of the report reaches the peers
   * that went on to wait for data; receivers, which would wait, do not. */
  foreign_t f = {.call = call, .from = -1};
  for (int pass = 0; pass < 2; pass++) {
    for (int k = 0; k < nfresh; k++) {
      const comm_link_t *l = &links[fresh[k]];
      if (l->is_send != (pass == 0) || (f.from >= 0 && !l->is_send)) continue;
      tr_conn_t *cn = comm_conn(c, l->peer, l->channel, l->is_send);
      link_msg_t m;
      size_t len = sizeof m;
      res = recv_link(c, l, call, &m, &len, timeout, &f);
      if (res == chorus_timeout && f.from >= 0) continue;
      if (res == chorus_remote_error) { /* another rank failed first and said why, or found a mismatch */
        comm_fail_after(c, res, "rank %d: connecting to rank %d: %s", c->rank, l->peer, chorus_last_error());
        mismatch_listen(c);
        return c->error;
      }
      if (res != chorus_success)
        return comm_fail(c, res, "rank %d: connecting to rank %d: %s", c->rank, l->peer, chorus_last_error());
      if (len != sizeof m || m.magic != BOOT_MAGIC || m.step_bytes != c->geom.step_bytes ||
          m.transport != (cn->tr == &sock_transport))
        return comm_fail(c, chorus_invalid_usage,
                         "rank %d and rank %d disagree on the connection (CHORUS_BUFFSIZE %zu vs %llu, or "
                         "CHORUS_SHM_DISABLE differs)",
                         c->rank, l->peer, c->geom.buffsize, (unsigned long long)m.step_bytes * GEOM_NSTEPS);
      if (call && m.call.tag && m.call.tag != call->tag) { /* the peer connects for another call */
        if (f.from < 0) f.from = l->peer, f.channel = l->channel, f.tag = m.call.tag;
        continue;
      }
      tr_args_t a = {.rank = c->rank, .peer = l->peer, .channel = l->channel, .step_bytes = c->geom.step_bytes,
                     .secret = boot_secret(c->boot), .stop = &c->stop, .ifaddr = boot_addr(c->boot)};
      res = l->is_send ? cn->tr->send_connect(cn, &a, m.desc, m.len) : cn->tr->recv_connect(cn, &a, m.desc, m.len);
      if (res != chorus_success) return comm_fail(c, res, "rank %d: %s connection with rank %d channel %d: %s",
                                                  c->rank, cn->tr->name, l->peer, l->channel, chorus_last_error());
      LOG_INFO_(cn->tr == &sock_transport ? "SOCK" : "SHM", "rank %d: %s %s rank %d channel %d", c->rank,
                cn->tr->name, l->is_send ? "to" : "from", l->peer, l->channel);
    }
  }
  if (f.from >= 0) return mismatch_report(c, f.channel, f.from, call, f.tag);
  return chorus_success;
}

/* --- teardown and queries --- */

static chorus_result_t comm_release(chorus_comm_t *c) {
  hang_unregister(c);
  cuda_comm_release(c);
  exec_state_fini(&c->x);
  for (size_t i = 0; c->conns && i < (size_t)c->nranks * COMM_CONN_SLOTS * 2; i++) {
    tr_conn_t *cn = c->conns[i];
    if (!cn) continue;
    if (cn->tr) cn->tr->free(cn);
    free(cn);
  }
  free(c->conns);
  free(c->host_of);
  free(c->p2p_sent);
  free(c->p2p_recvd);
  if (c->cache) plan_cache_destroy(c->cache);
  plan_shape_fini(&c->shape);
  boot_destroy(c->boot);
  pthread_mutex_destroy(&c->lock);
  pthread_cond_destroy(&c->idle);
  free(c);
  return chorus_success;
}

chorus_result_t chorus_comm_destroy(chorus_comm_t *c) {
  if (!c) return err_set(chorus_invalid_argument, "chorus_comm_destroy: comm is NULL");
  pthread_mutex_lock(&c->lock);
  while (c->inflight) pthread_cond_wait(&c->idle, &c->lock);
  pthread_mutex_unlock(&c->lock);
  return comm_release(c);
}

chorus_result_t chorus_comm_abort(chorus_comm_t *c) {
  if (!c) return err_set(chorus_invalid_argument, "chorus_comm_abort: comm is NULL");
  comm_fail(c, chorus_remote_error, "rank %d: the communicator was aborted", c->rank);
  return chorus_comm_destroy(c);
}

chorus_result_t chorus_comm_get_async_error(chorus_comm_t *c, chorus_result_t *err) {
  if (!c || !err) return err_set(chorus_invalid_argument, "chorus_comm_get_async_error: NULL argument");
  if (c->cuda) cuda_comm_poll(c); /* a kernel's failure becomes the communicator's here */
  *err = c->error;
  return chorus_success;
}

const char *chorus_comm_error_string(const chorus_comm_t *c) { return c ? c->errmsg : "no communicator"; }

chorus_result_t chorus_comm_count(const chorus_comm_t *c, int *n) {
  if (!c || !n) return err_set(chorus_invalid_argument, "chorus_comm_count: NULL argument");
  *n = c->nranks;
  return chorus_success;
}

chorus_result_t chorus_comm_user_rank(const chorus_comm_t *c, int *r) {
  if (!c || !r) return err_set(chorus_invalid_argument, "chorus_comm_user_rank: NULL argument");
  *r = c->rank;
  return chorus_success;
}

chorus_result_t chorus_comm_nhosts(const chorus_comm_t *c, int *n) {
  if (!c || !n) return err_set(chorus_invalid_argument, "chorus_comm_nhosts: NULL argument");
  *n = c->nhosts;
  return chorus_success;
}
