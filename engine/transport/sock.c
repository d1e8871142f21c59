/* sock.c -- the TCP transport between hosts. Each side keeps a local slot
 * ring (the executor writes or reads it as it would a shm ring); proxy
 * threads move steps between the ring and CHORUS_NSOCKS_PERCONN TCP streams.
 * Step s travels on stream s % nsocks, so consecutive (large) steps move in
 * parallel; each step carries its 8-byte meta as a header. A stream thread
 * only ever blocks on its own socket and its own ring, so no connection can
 * stall another. Steps finish out of order across streams; the ring counter
 * advances in order through per-slot done flags.
 *
 * Small steps skip the proxies: the executor writes a step it posts
 * straight into an idle stream, and reads the stream it waits on while it
 * spins (the ring's hook), so a small message crosses no thread hand-off,
 * as in MPI's tcp transport. Whoever moves a stream's next step holds the
 * stream's `busy` lock; a receiving proxy parks while the executor claims
 * its stream (`direct`), and gets it back when the executor goes to sleep
 * or sees large steps. */
#include <errno.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "net.h"
#include "sock_msg.h"
#include "transport.h"
#include "log.h"
#include "params.h"

typedef struct sock_priv sock_priv_t;

typedef struct {
  sock_priv_t *p;
  int index;
  pthread_t thread;
  int started;
  /* Who moves the stream's next step: its proxy or the executor. `next`
   * (the step the stream moves next), `off` (bytes of it already written)
   * and `ended` (receive: the stream is over, nobody reads it again) change
   * only under `busy`, a try-lock held while one step moves. */
  int busy;
  uint32_t next;
  size_t off;
  int ended;
  uint32_t direct, direct_sleepers; /* receive: 1 while the executor reads the stream; its proxy parks */
  uint32_t kick, kick_sleepers;     /* send: bumped when a posted step is left to the proxy */
} sock_stream_t;

struct sock_priv {
  void *mem;
  size_t memsize;
  int lfd;
  int nsocks;
  int fds[SOCK_MAX_STREAMS];
  sock_stream_t streams[SOCK_MAX_STREAMS];
  uint8_t done[GEOM_NSTEPS];
  volatile int closing; /* set by sock_free, read by the proxies: atomic accesses */
  int eofs;             /* receiving streams that reached end-of-file (atomic) */
  int failed;           /* streams that failed (atomic): the first one says why */
  int is_send;
  int rank; /* this end's rank, for the proxies' log lines */
  size_t direct_max; /* CHORUS_SOCKET_DIRECT */
  int bulk;          /* receive: the last step was large (over direct_max, or more of its chunk follow): the proxies read (atomic) */
  double timeout;    /* CHORUS_TIMEOUT, for the executor's own socket reads and writes */
  tr_conn_t *conn;
};

const char *sock_desc_check(const void *buf, size_t len, sock_desc_t *out) {
  if (len != sizeof *out) return "a descriptor of the wrong size";
  memcpy(out, buf, sizeof *out);
  int fam = out->addr.sa.ss_family;
  if (!((fam == AF_INET && out->addr.len == sizeof(struct sockaddr_in)) ||
        (fam == AF_INET6 && out->addr.len == sizeof(struct sockaddr_in6))))
    return "a descriptor without a valid IPv4 or IPv6 address";
  if (out->nsocks < 1 || out->nsocks > SOCK_MAX_STREAMS) return "a descriptor with a stream count out of range";
  return NULL;
}

const char *sock_hello_check(const void *buf, size_t len, const tr_args_t *a, int nsocks, sock_hello_t *out) {
  if (len < sizeof *out) return "a truncated hello";
  memmove(out, buf, sizeof *out); /* buf may be out itself */
  if (out->magic != SOCK_MAGIC) return "wrong magic (not a chorus socket stream)";
  if (out->version != SOCK_VERSION) return "another socket protocol version (ranks of different chorus builds?)";
  if (memcmp(out->secret, a->secret, 16) != 0) return "it did not present the communicator's secret";
  if (out->rank != a->peer || out->channel != a->channel) return "it is not the expected rank and channel";
  if (out->stream < 0 || out->stream >= nsocks) return "a stream index out of range";
  return NULL;
}

static int send_hook(ring_t *r, ring_hook_op_t op);
static int recv_hook(ring_t *r, ring_hook_op_t op);

static chorus_result_t priv_create(tr_conn_t *c, const tr_args_t *a, int is_send) {
  sock_priv_t *p = calloc(1, sizeof *p);
  if (!p) return err_set(chorus_out_of_memory, "sock: out of memory");
  c->priv = p;
  p->lfd = -1, p->is_send = is_send, p->conn = c, p->rank = a->rank;
  for (int i = 0; i < SOCK_MAX_STREAMS; i++) p->fds[i] = -1;
  long dm = param_int(PARAM_SOCKET_DIRECT);
  p->direct_max = dm > 0 ? (size_t)dm : 0;
  p->timeout = (double)param_int(PARAM_TIMEOUT);
  long n = param_int(PARAM_NSOCKS_PERCONN);
  p->nsocks = n < 1 ? 1 : n > SOCK_MAX_STREAMS ? SOCK_MAX_STREAMS : (int)n;
  p->memsize = RING_SLOTS_OFFSET + (size_t)GEOM_NSTEPS * a->step_bytes;
  if (posix_memalign(&p->mem, 4096, p->memsize) != 0) {
    p->mem = NULL;
    return err_set(chorus_out_of_memory, "sock: cannot allocate %zu bytes of slots", p->memsize);
  }
  memset(p->mem, 0, p->memsize); /* pre-fault: no first touch inside a collective */
  c->ring = (ring_t){.ctrl = p->mem, .slots = (char *)p->mem + RING_SLOTS_OFFSET, .step_bytes = a->step_bytes,
                     .stop = a->stop, .hook = p->direct_max ? (is_send ? send_hook : recv_hook) : NULL,
                     .hook_arg = c};
  return chorus_success;
}

/* Advance the ring counter over every finished step, in order. */
static void advance(sock_priv_t *p, uint32_t *ctr, uint32_t *sleepers) {
  for (;;) {
    uint32_t t = __atomic_load_n(ctr, __ATOMIC_ACQUIRE);
    uint8_t one = 1;
    if (!__atomic_compare_exchange_n(&p->done[t % GEOM_NSTEPS], &one, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      return;
    __atomic_store_n(ctr, t + 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(sleepers, __ATOMIC_SEQ_CST)) ring_wake(ctr);
  }
}

/* what: the step's fate; why: the system's reason (a reset is not an
 * orderly close, and the log must not say it was). */
static void stream_failed(sock_priv_t *p, const char *what, const char *why) {
  if (__atomic_load_n(&p->closing, __ATOMIC_ACQUIRE)) return;
  LOG_WARN_("SOCK", "connection to rank %d channel %d: %s (%s)", p->conn->peer, p->conn->channel, what, why);
  /* The first failing stream writes the reason, then aborts: the waiter
   * that sees RING_ABORT_SOCKET reads a whole reason. */
  if (__atomic_fetch_add(&p->failed, 1, __ATOMIC_ACQ_REL)) return;
  snprintf(p->conn->why, sizeof p->conn->why, "%s (%s)", what, why);
  ring_abort(p->conn->ring.ctrl, RING_ABORT_SOCKET);
}

/* The proxy's view of the ring: every field but pos, which the executor owns
 * and advances while the proxy runs (copying the whole struct raced with it),
 * and without the hook, which is the executor's. */
static ring_t proxy_ring(sock_priv_t *p) {
  const ring_t *c = &p->conn->ring;
  return (ring_t){.ctrl = c->ctrl, .slots = c->slots, .step_bytes = c->step_bytes, .peer_pid = c->peer_pid,
                  .stop = &p->closing};
}

/* --- the streams' locks and wake-ups (process-private futexes) --- */

static int stream_trylock(sock_stream_t *st) {
  int free_ = 0;
  return __atomic_compare_exchange_n(&st->busy, &free_, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* Only proxies block on it; a holder moves at most one step. */
static void stream_lock(sock_stream_t *st) {
  while (!stream_trylock(st)) sched_yield();
}

static void stream_unlock(sock_stream_t *st) { __atomic_store_n(&st->busy, 0, __ATOMIC_RELEASE); }

/* Sleep while *word == val, at most 20 ms: every sleeper rechecks the
 * closing flag on its own, so no lost wake-up can hang it. */
static void word_wait(uint32_t *word, uint32_t *sleepers, uint32_t val, const volatile int *closing) {
  struct timespec ts = {0, 20 * 1000 * 1000};
  __atomic_add_fetch(sleepers, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(word, __ATOMIC_SEQ_CST) == val && !__atomic_load_n(closing, __ATOMIC_SEQ_CST))
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, val, &ts, NULL, 0);
  __atomic_sub_fetch(sleepers, 1, __ATOMIC_SEQ_CST);
}

static void word_set(uint32_t *word, uint32_t *sleepers, uint32_t val) {
  __atomic_store_n(word, val, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(sleepers, __ATOMIC_SEQ_CST)) syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}

/* --- sending --- */

/* Write what is left of step s (from st->off), header and payload in one
 * sendmsg per try. 1: all of it is out; 0 (only when !wait): the socket took
 * no more without waiting, st->off says how far it got; -1: an error
 * (errno). Under st->busy. */
static int write_step(sock_priv_t *p, sock_stream_t *st, uint32_t s, int wait) {
  const ring_t *r = &p->conn->ring;
  uint64_t meta = r->ctrl->meta[s % GEOM_NSTEPS];
  size_t bytes = (uint32_t)meta & ~RING_MORE, total = sizeof meta + bytes;
  char *slot = r->slots + (size_t)(s % GEOM_NSTEPS) * r->step_bytes;
  int fd = p->fds[st->index];
  while (st->off < total) {
    struct iovec iov[2];
    int n = 0;
    if (st->off < sizeof meta) iov[n++] = (struct iovec){(char *)&meta + st->off, sizeof meta - st->off};
    size_t done = st->off < sizeof meta ? 0 : st->off - sizeof meta;
    if (bytes > done) iov[n++] = (struct iovec){slot + done, bytes - done};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)n};
    ssize_t w = sendmsg(fd, &m, MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT));
    if (w > 0) {
      st->off += (size_t)w;
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !wait) return 0;
    if (w == 0) errno = EPIPE;
    return -1;
  }
  st->off = 0;
  return 1;
}

static void step_sent(sock_priv_t *p, uint32_t s) {
  ring_ctrl_t *ctrl = p->conn->ring.ctrl;
  __atomic_store_n(&p->done[s % GEOM_NSTEPS], 1, __ATOMIC_RELEASE);
  advance(p, &ctrl->tail, &ctrl->tail_sleepers);
}

/* The executor posted step r->pos - 1: write it now when it is small and
 * its stream has nothing queued before it; else (or when the socket is
 * full) leave it, or what is left of it, to the stream's proxy. */
static int send_hook(ring_t *r, ring_hook_op_t op) {
  if (op != RING_HOOK_POSTED) return 0;
  tr_conn_t *c = r->hook_arg;
  sock_priv_t *p = c->priv;
  uint32_t s = r->pos - 1;
  sock_stream_t *st = &p->streams[s % (uint32_t)p->nsocks];
  uint32_t flags = (uint32_t)r->ctrl->meta[s % GEOM_NSTEPS];
  /* A step with more of its chunk after it belongs to a large message,
   * which the proxies move in parallel with the executor's copies. */
  if (!(flags & RING_MORE) && (flags & ~RING_MORE) <= p->direct_max &&
      __atomic_load_n(&st->next, __ATOMIC_RELAXED) == s && stream_trylock(st)) {
    int rc = st->next == s ? write_step(p, st, s, 0) : 0;
    if (rc == 1) __atomic_store_n(&st->next, st->next + (uint32_t)p->nsocks, __ATOMIC_RELAXED);
    stream_unlock(st);
    if (rc == 1) {
      step_sent(p, s);
      return 0;
    }
    if (rc < 0) {
      stream_failed(p, "send failed", strerror(errno));
      return 0;
    }
  }
  __atomic_add_fetch(&st->kick, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&st->kick_sleepers, __ATOMIC_SEQ_CST))
    syscall(SYS_futex, &st->kick, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
  return 0;
}

/* Sender stream: ship every step s = index (mod nsocks) the executor posts
 * and does not write itself. */
static void *send_main(void *arg) {
  sock_stream_t *st = arg;
  sock_priv_t *p = st->p;
  ring_ctrl_t *ctrl = p->conn->ring.ctrl;
  long spin = param_int(PARAM_SPIN);
  log_set_rank(p->rank);
  for (long idle = 0;;) {
    uint32_t k = __atomic_load_n(&st->kick, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&p->closing, __ATOMIC_ACQUIRE) || __atomic_load_n(&ctrl->abort, __ATOMIC_ACQUIRE))
      return NULL;
    int rc = 2;
    uint32_t s = __atomic_load_n(&st->next, __ATOMIC_RELAXED);
    if (ring_passed(__atomic_load_n(&ctrl->head, __ATOMIC_ACQUIRE), s + 1)) {
      stream_lock(st);
      s = st->next;
      if (ring_passed(__atomic_load_n(&ctrl->head, __ATOMIC_ACQUIRE), s + 1)) rc = write_step(p, st, s, 1);
      if (rc == 1) __atomic_store_n(&st->next, st->next + (uint32_t)p->nsocks, __ATOMIC_RELAXED);
      stream_unlock(st);
    }
    if (rc < 0) {
      stream_failed(p, "send failed", strerror(errno));
      return NULL;
    }
    if (rc == 1) {
      step_sent(p, s);
      idle = 0;
      continue;
    }
    /* Nothing for this proxy: spin and yield a while (a stream of large
     * steps keeps it busy without wake-ups), then sleep until kicked. */
    if (++idle < spin) __builtin_ia32_pause();
    else if (idle < spin + 100) sched_yield();
    else word_wait(&st->kick, &st->kick_sleepers, k, &p->closing), idle = 0;
  }
}

/* --- receiving --- */

/* Read the stream's next step into the ring (or a flush, and answer it).
 * The header is read without waiting; the rest of a step whose header has
 * come is waited for (it is on its way). 1: a step or a flush was taken;
 * 0: nothing had arrived; -1: the stream is over (st->ended; the ring is
 * aborted when it must be). Under st->busy. r: the proxy's ring, or NULL
 * when the caller is the executor, which waits for exactly this step (so
 * its slot is free) and must not wait for itself on a flush. */
static int read_step(sock_priv_t *p, sock_stream_t *st, ring_t *r) {
  ring_ctrl_t *ctrl = p->conn->ring.ctrl;
  int fd = p->fds[st->index];
  double timeout = r ? 0 : p->timeout;
  uint64_t meta;
  ssize_t n;
  do n = recv(fd, &meta, sizeof meta, MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return 0;
  st->ended = 1; /* until the step is whole */
  if (n == 0) { /* end-of-file between steps: the peer destroyed its communicator */
    /* Only when every stream has ended can no step still be on its way:
     * the other streams may yet deliver steps posted before this one's
     * end (CI lost a 4 MiB message when the first stream's end aborted
     * the ring). */
    if (__atomic_add_fetch(&p->eofs, 1, __ATOMIC_ACQ_REL) == p->nsocks) {
      if (!__atomic_load_n(&p->closing, __ATOMIC_ACQUIRE))
        LOG_INFO_("SOCK", "rank %d channel %d closed its connection", p->conn->peer, p->conn->channel);
      ring_abort(ctrl, RING_ABORT_CLOSED);
    }
    return -1;
  }
  if (n < 0) {
    stream_failed(p, "receive failed between steps", strerror(errno));
    return -1;
  }
  if (n != (ssize_t)sizeof meta &&
      net_recv_all(fd, (char *)&meta + n, sizeof meta - (size_t)n, timeout) != chorus_success) {
    stream_failed(p, "the connection ended in the middle of a step header", chorus_last_error());
    return -1;
  }
  if (sock_is_flush(meta)) {
    uint32_t count = (uint32_t)(meta >> 32), tail = __atomic_load_n(&ctrl->tail, __ATOMIC_ACQUIRE);
    if ((int32_t)(count - tail) > GEOM_NSTEPS || (!r && !ring_passed(tail, count))) {
      stream_failed(p, "a flush for steps that were never sent arrived", "a peer of another build?");
      return -1;
    }
    if (r && !ring_passed(tail, count) &&
        ring_wait_slow(r, &ctrl->tail, &ctrl->tail_sleepers, count, 0) != RING_OK)
      return -1; /* aborted: this rank's abort ends the stream, and the sender sees that */
    uint8_t ack = 1;
    if (net_send_all(fd, &ack, 1, timeout) != chorus_success) {
      stream_failed(p, "the answer to a flush failed", chorus_last_error());
      return -1;
    }
    st->ended = 0;
    return 1;
  }
  long bytes = sock_step_bytes(meta, p->conn->ring.step_bytes);
  if (bytes < 0) {
    stream_failed(p, "a step larger than the slot arrived", "CHORUS_BUFFSIZE differs between ranks?");
    return -1;
  }
  uint32_t s = st->next, need = s - GEOM_NSTEPS + 1;
  if (r && !ring_passed(__atomic_load_n(&ctrl->tail, __ATOMIC_ACQUIRE), need) &&
      ring_wait_slow(r, &ctrl->tail, &ctrl->tail_sleepers, need, 0) != RING_OK)
    return -1;
  char *slot = p->conn->ring.slots + (size_t)(s % GEOM_NSTEPS) * p->conn->ring.step_bytes;
  if (net_recv_all(fd, slot, (size_t)bytes, timeout) != chorus_success) {
    stream_failed(p, "the connection ended in the middle of a step", chorus_last_error());
    return -1;
  }
  st->ended = 0;
  __atomic_store_n(&st->next, st->next + (uint32_t)p->nsocks, __ATOMIC_RELAXED);
  __atomic_store_n(&p->bulk, (size_t)bytes > p->direct_max || ((uint32_t)meta & RING_MORE), __ATOMIC_RELAXED);
  ctrl->meta[s % GEOM_NSTEPS] = meta;
  __atomic_store_n(&p->done[s % GEOM_NSTEPS], 1, __ATOMIC_RELEASE);
  advance(p, &ctrl->head, &ctrl->head_sleepers);
  return 1;
}

static void stream_release(sock_stream_t *st) {
  if (__atomic_load_n(&st->direct, __ATOMIC_RELAXED)) word_set(&st->direct, &st->direct_sleepers, 0);
}

/* The executor waits for step r->pos. While it waits it reads that step's
 * stream itself (and, asked to block, sleeps in poll on it: the data's
 * arrival wakes it, where a proxy would have to wake it again), unless the
 * steps are large (the proxies overlap reading with its work there); before
 * it sleeps on the ring it gives the stream back. */
static int recv_hook(ring_t *r, ring_hook_op_t op) {
  tr_conn_t *c = r->hook_arg;
  sock_priv_t *p = c->priv;
  uint32_t s = r->pos;
  sock_stream_t *st = &p->streams[s % (uint32_t)p->nsocks];
  if (op == RING_HOOK_IDLE || __atomic_load_n(&p->bulk, __ATOMIC_RELAXED)) {
    /* Every stream, not only this step's: a parked proxy is the only one
     * that would see its stream end while the executor sleeps (a peer's
     * abort went unnoticed until CHORUS_TIMEOUT when only one came back). */
    for (int i = 0; i < p->nsocks; i++) stream_release(&p->streams[i]);
    return -1;
  }
  if (op != RING_HOOK_POLL && op != RING_HOOK_BLOCK) return -1;
  if (!__atomic_load_n(&st->direct, __ATOMIC_RELAXED)) __atomic_store_n(&st->direct, 1, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&st->next, __ATOMIC_RELAXED) != s || !stream_trylock(st)) return 0;
  int rc = st->next == s && !st->ended ? read_step(p, st, NULL) : 1;
  stream_unlock(st);
  if (__atomic_load_n(&p->bulk, __ATOMIC_RELAXED))
    for (int i = 0; i < p->nsocks; i++) stream_release(&p->streams[i]);
  if (rc != 0 || op != RING_HOOK_BLOCK) return 0;
  struct pollfd pf = {p->fds[st->index], POLLIN, 0};
  poll(&pf, 1, 1); /* the caller's next call reads what woke it */
  return 1;
}

/* Receiver stream: take steps s = index (mod nsocks) into the ring while
 * the executor does not read the stream itself. */
static void *recv_main(void *arg) {
  sock_stream_t *st = arg;
  sock_priv_t *p = st->p;
  ring_t r = proxy_ring(p);
  int fd = p->fds[st->index];
  log_set_rank(p->rank);
  while (!__atomic_load_n(&p->closing, __ATOMIC_ACQUIRE)) {
    if (__atomic_load_n(&st->direct, __ATOMIC_SEQ_CST)) {
      word_wait(&st->direct, &st->direct_sleepers, 1, &p->closing);
      continue;
    }
    struct pollfd pf = {fd, POLLIN, 0};
    if (poll(&pf, 1, 20) <= 0 || __atomic_load_n(&st->direct, __ATOMIC_SEQ_CST)) continue;
    stream_lock(st);
    int rc = st->ended ? -1 : read_step(p, st, &r);
    stream_unlock(st);
    if (rc < 0) return NULL;
  }
  return NULL;
}

static chorus_result_t start_streams(sock_priv_t *p) {
  for (int i = 0; i < p->nsocks; i++) p->streams[i] = (sock_stream_t){.p = p, .index = i, .next = (uint32_t)i};
  for (int i = 0; i < p->nsocks; i++) {
    int rc = pthread_create(&p->streams[i].thread, NULL, p->is_send ? send_main : recv_main, &p->streams[i]);
    if (rc != 0) return err_set(chorus_system_error, "sock: cannot start a proxy thread: %s", strerror(rc));
    p->streams[i].started = 1;
  }
  return chorus_success;
}

static chorus_result_t sock_send_setup(tr_conn_t *c, const tr_args_t *a, void *desc, size_t *len) {
  *len = 0;
  return priv_create(c, a, 1);
}

static chorus_result_t sock_recv_setup(tr_conn_t *c, const tr_args_t *a, void *desc, size_t *len) {
  TRY(priv_create(c, a, 0));
  sock_priv_t *p = c->priv;
  sock_desc_t d = {.nsocks = p->nsocks};
  memcpy(&d.addr, a->ifaddr, sizeof d.addr);
  if (d.addr.sa.ss_family == AF_INET) ((struct sockaddr_in *)&d.addr.sa)->sin_port = 0;
  else ((struct sockaddr_in6 *)&d.addr.sa)->sin6_port = 0;
  TRY(net_listen(&d.addr, &p->lfd));
  memcpy(desc, &d, sizeof d);
  *len = sizeof d;
  return chorus_success;
}

static chorus_result_t sock_send_connect(tr_conn_t *c, const tr_args_t *a, const void *desc, size_t len) {
  sock_priv_t *p = c->priv;
  sock_desc_t d;
  const char *bad = sock_desc_check(desc, len, &d);
  if (bad) return err_set(chorus_remote_error, "sock: rank %d sent %s", a->peer, bad);
  p->nsocks = d.nsocks; /* the receiver decides, so both ends agree */
  double timeout = (double)param_int(PARAM_TIMEOUT);
  for (int i = 0; i < p->nsocks; i++) {
    chorus_result_t res = net_connect(&d.addr, timeout, NET_LISTENING, &p->fds[i]); /* it listened before it sent d */
    TRY(res);
    net_tune(p->fds[i], param_int(PARAM_SOCKET_BUFSIZE));
    sock_hello_t h = {.magic = SOCK_MAGIC, .version = SOCK_VERSION, .rank = a->rank, .channel = a->channel,
                      .stream = i};
    memcpy(h.secret, a->secret, 16);
    TRY(net_send_all(p->fds[i], &h, sizeof h, timeout));
  }
  return start_streams(p);
}

static chorus_result_t sock_recv_connect(tr_conn_t *c, const tr_args_t *a, const void *desc, size_t len) {
  sock_priv_t *p = c->priv;
  double timeout = (double)param_int(PARAM_TIMEOUT), deadline = tr_now() + timeout;
  int got = 0;
  while (got < p->nsocks) {
    int fd;
    double left = deadline - tr_now();
    if (left <= 0 || net_accept(p->lfd, left, &fd) != chorus_success)
      return err_set(chorus_timeout, "sock: rank %d did not open its %d streams within %.0f s", a->peer, p->nsocks,
                     timeout);
    sock_hello_t h;
    char cut[160];
    const char *why;
    if (net_recv_all(fd, &h, sizeof h, 5.0) != chorus_success)
      snprintf(cut, sizeof cut, "no complete hello (%s)", chorus_last_error()), why = cut;
    else why = sock_hello_check(&h, sizeof h, a, p->nsocks, &h);
    if (!why && p->fds[h.stream] >= 0) why = "a stream that is already open";
    if (why) {
      LOG_WARN_("SOCK", "rank %d: refused a connection for rank %d channel %d: %s", a->rank, a->peer, a->channel, why);
      close(fd);
      continue;
    }
    net_tune(fd, param_int(PARAM_SOCKET_BUFSIZE));
    p->fds[h.stream] = fd;
    got++;
  }
  close(p->lfd);
  p->lfd = -1;
  return start_streams(p);
}

/* A sender's steps count as done once they sit in its ring, before the
 * proxy has written them to the socket, so a rank that finishes its last
 * collective and destroys the communicator must first let the proxies ship
 * what is posted (bounded by CHORUS_TIMEOUT), then half-close so the peer
 * reads the data and then end-of-file. Closing at once lost the peer's last
 * steps (seen in CI under load). An aborted ring is not drained. */
static void sock_drain(tr_conn_t *c, sock_priv_t *p) {
  ring_ctrl_t *ctrl = c->ring.ctrl;
  if (!p->is_send || !ctrl || !p->streams[0].started) return;
  ring_t r = c->ring;
  uint32_t posted = __atomic_load_n(&ctrl->head, __ATOMIC_ACQUIRE);
  if (!ring_passed(__atomic_load_n(&ctrl->tail, __ATOMIC_ACQUIRE), posted) &&
      !__atomic_load_n(&ctrl->abort, __ATOMIC_ACQUIRE) &&
      !(r.stop && *r.stop)) {
    if (ring_wait_slow(&r, &ctrl->tail, &ctrl->tail_sleepers, posted, (double)param_int(PARAM_TIMEOUT)) != RING_OK)
      LOG_WARN_("SOCK", "connection to rank %d channel %d: closing with steps the peer has not taken", c->peer,
                c->channel);
  }
  for (int i = 0; i < p->nsocks; i++)
    if (p->fds[i] >= 0) shutdown(p->fds[i], SHUT_WR);
}

static void sock_free(tr_conn_t *c) {
  sock_priv_t *p = c->priv;
  if (!p) return;
  sock_drain(c, p);
  __atomic_store_n(&p->closing, 1, __ATOMIC_SEQ_CST);
  if (p->mem) {
    ring_wake(&c->ring.ctrl->head);
    ring_wake(&c->ring.ctrl->tail);
  }
  for (int i = 0; i < p->nsocks; i++) {
    sock_stream_t *st = &p->streams[i];
    word_set(&st->direct, &st->direct_sleepers, 0);
    word_set(&st->kick, &st->kick_sleepers, st->kick + 1);
  }
  for (int i = 0; i < SOCK_MAX_STREAMS; i++)
    if (p->fds[i] >= 0) shutdown(p->fds[i], SHUT_RDWR);
  for (int i = 0; i < p->nsocks; i++)
    if (p->streams[i].started) pthread_join(p->streams[i].thread, NULL);
  for (int i = 0; i < SOCK_MAX_STREAMS; i++)
    if (p->fds[i] >= 0) close(p->fds[i]);
  if (p->lfd >= 0) close(p->lfd);
  free(p->mem);
  free(p);
  c->priv = NULL;
}

/* The executor calls this when every posted step has been written (the
 * ring's tail passed them), so no proxy writes stream 0 meanwhile, and
 * nothing else ever reads a sender's streams. */
static ring_wait_t sock_flush(tr_conn_t *c, double timeout_s) {
  sock_priv_t *p = c->priv;
  ring_ctrl_t *ctrl = c->ring.ctrl;
  uint64_t meta = (uint64_t)c->ring.pos << 32 | SOCK_FLUSH;
  uint8_t ack = 0;
  if (net_send_all(p->fds[0], &meta, sizeof meta, timeout_s) != chorus_success) {
    stream_failed(p, "a flush failed", chorus_last_error());
    return RING_ABORTED;
  }
  chorus_result_t res = net_recv_all(p->fds[0], &ack, 1, timeout_s);
  if (res == chorus_success && ack == 1) return RING_OK;
  if (res == chorus_timeout) return RING_TIMEOUT;
  /* The receiver aborted (a different call, or it failed): its end closed. */
  ring_abort(ctrl, RING_ABORT_CLOSED);
  return RING_ABORTED;
}

/* Nothing but a flush's answer ever arrives on a sender's stream, so
 * anything readable there is the receiver's end closing. */
static ring_wait_t sock_check(tr_conn_t *c) {
  sock_priv_t *p = c->priv;
  char b;
  ssize_t n = recv(p->fds[0], &b, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))) return RING_OK;
  ring_abort(c->ring.ctrl, RING_ABORT_CLOSED);
  return RING_ABORTED;
}

/* This end failed: end every stream now, so the peer's proxies see the end
 * and its waits fail at once, not at their timeout (a local abort alone
 * stays local: the peer's ring is in its own memory). The proxies and fds
 * stay until sock_free. */
static void sock_abort(tr_conn_t *c) {
  sock_priv_t *p = c->priv;
  for (int i = 0; p && i < SOCK_MAX_STREAMS; i++)
    if (p->fds[i] >= 0) shutdown(p->fds[i], SHUT_RDWR);
}

const transport_t sock_transport = {
    .name = "socket",
    .send_setup = sock_send_setup,
    .recv_setup = sock_recv_setup,
    .send_connect = sock_send_connect,
    .recv_connect = sock_recv_connect,
    .abort = sock_abort,
    .flush = sock_flush,
    .check = sock_check,
    .free = sock_free,
};
