/* exec.c -- the executor: runs this rank's program of a verified plan, one
 * thread per channel, looping it over the buffer; and runs point-to-point
 * calls, all of a group at once, through a non-blocking progress loop.
 *
 * Geometry: core/geom.h, the one source the CUDA kernel and the simulator
 * use too (geom_call, geom_chan, geom_chunk_len, geom_piece); exec_moves
 * lists what it gives. Every step carries the call's tag, so a rank that
 * made a different call is noticed at its first step (and mismatch.c tells
 * every rank both calls). */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "exec.h"
#include "cuda_exec.h"
#include "geom.h"
#include "hang.h"
#include "kernels.h"
#include "mismatch.h"
#include "tune.h"
#include "verify.h"
#include "log.h"
#include "str.h"
#include "params.h"


struct exec_job {
  chorus_comm_t *comm;
  const plan_t *plan;
  const comm_call_t *call;
  const char *in;
  char *out;
  geom_call_t g; /* the call's cut (core/geom.h) */
  int spc;       /* the most steps a chunk is cut into: the plan's connection's (geom_conn_window) */
  uint32_t tag; /* desc.tag */
  int confirm;  /* a rank that only sends waits for its steps to be taken (CHORUS_CONFIRM_SENDS) */
  comm_desc_t desc;
  double timeout;
  chorus_result_t res[PLAN_MAX_CHANNELS];
};

/* --- futex helpers for the workers (process-private) --- */

static void pfutex_wait(uint32_t *w, uint32_t v) {
  struct timespec ts = {0, 50 * 1000 * 1000};
  syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, v, &ts, NULL, 0);
}

static void pfutex_wake(uint32_t *w) { syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0); }

/* --- one channel --- */

typedef struct {
  exec_job_t *j;
  int ch, k;
  geom_chan_t g; /* this channel's part of the call */
  size_t base;   /* the current slice's first element in the part */
  char *scratch;
  size_t *slen;
  size_t step;
  int spc; /* exec_job_t.spc */
  comm_where_t *where;
  int tracing;    /* this call's ops are recorded (exec_trace_next) */
  double waited;  /* seconds the current op waited for data or room, when tracing */
} exec_chan_t;

/* One recorded op (exec_trace_next). */
struct exec_trace_ev {
  double t0, t1, wait;
  size_t bytes;
  uint32_t op, iter;
  int code, to, from;
};

static chorus_result_t wait_error(exec_chan_t *x, ring_wait_t w, const tr_conn_t *cn, const char *what) {
  chorus_comm_t *c = x->j->comm;
  /* A report on every failed wait, not only on a timeout: the first rank to
   * time out aborts its peers, and their reports complete the picture. */
  if (w != RING_STOPPED) hang_dump(c, w == RING_TIMEOUT ? "timeout" : "peer-failed");
  switch (w) {
  case RING_ABORTED: {
    char at[96];
    snprintf(at, sizeof at, "on channel %d while this rank %s it", x->ch, what);
    return comm_peer_failed(c, cn, at);
  }
  case RING_PEER_DEAD:
    return comm_fail(c, chorus_remote_error, "rank %d channel %d: rank %d (pid %d) died while this rank %s it",
                     c->rank, x->ch, cn->peer, cn->ring.peer_pid, what);
  case RING_TIMEOUT:
    return comm_fail(c, chorus_timeout,
                     "rank %d channel %d: waited %.0f s while it %s rank %d (CHORUS_TIMEOUT): the peer hangs, died, "
                     "or made a different call",
                     c->rank, x->ch, x->j->timeout, what, cn->peer);
  default:
    return comm_fail_after(c, c->error ? c->error : chorus_remote_error, "rank %d channel %d: stopped (%s)", c->rank,
                     x->ch, c->errmsg[0] ? c->errmsg : "aborted");
  }
}

static chorus_result_t mismatch(exec_chan_t *x, const tr_conn_t *cn, const char *why) {
  chorus_comm_t *c = x->j->comm;
  return comm_fail(c, chorus_invalid_usage,
                   "rank %d channel %d: rank %d's call differs from this rank's %s (%s): every rank must make the "
                   "same calls with the same count, type, op and root",
                   c->rank, x->ch, cn->peer, chorus_coll_name(x->j->call->coll), why);
}

/* Chunk q of the slice at `base` of a channel's part: its first element in
 * the unit, and its elements (0 past the end of the part). */
static inline size_t chunk_span(const geom_chan_t *g, size_t base, int q, size_t *first) {
  size_t pos, n = geom_chunk_len(g->part_len, base, q, g->ce, &pos);
  *first = g->part_off + pos;
  return n;
}

static inline char *chunk(exec_chan_t *x, int buf, int c, size_t *len) {
  exec_job_t *j = x->j;
  if (buf == PLAN_BUF_SCRATCH) {
    *len = x->slen[c];
    return x->scratch + (size_t)c * x->g.ce * j->g.es;
  }
  int u = c / x->k;
  size_t first, n = chunk_span(&x->g, x->base, c % x->k, &first);
  *len = n * j->g.es;
  char *b = buf == PLAN_BUF_INPUT ? (char *)j->in : j->out;
  return b + ((size_t)u * j->g.count + first) * j->g.es;
}

static inline size_t piece_size(size_t len, size_t step, int spc) {
  return geom_piece(len, step, (size_t)spc, GEOM_MIN_STEP);
}

static chorus_result_t op_send(exec_chan_t *x, tr_conn_t *out, const char *src, size_t len) {
  size_t off = 0, p = piece_size(len, x->step, x->spc);
  do {
    size_t n = len - off < p ? len - off : p;
    void *slot;
    double tw = x->tracing ? tr_now() : 0;
    ring_wait_t w = ring_wait_room(&out->ring, &slot, x->j->timeout);
    if (x->tracing) x->waited += tr_now() - tw;
    if (w != RING_OK) return wait_error(x, w, out, "sent to");
    kern_copy(slot, src + off, n);
    off += n;
    ring_post(&out->ring, (uint32_t)n | (off < len ? RING_MORE : 0), x->j->tag);
  } while (off < len);
  return chorus_success;
}

/* The receiving ops, one piece at a time as the sender cut them:
 *   src == NULL: dst = in          (recv, recv_copy_send)
 *   src != NULL: dst = src (+) in  (recv_reduce*, dst may be NULL)
 * and when out != NULL the result is also sent on. `expect` is the length
 * the result must have ((size_t)-1: unknown, a scratch destination). */
static chorus_result_t op_recv(exec_chan_t *x, tr_conn_t *in, tr_conn_t *out, const char *src, char *dst, size_t expect,
                               size_t *got) {
  exec_job_t *j = x->j;
  size_t off = 0, cap = expect == (size_t)-1 ? x->g.ce * j->g.es : expect;
  for (;;) {
    void *islot, *oslot = NULL;
    uint64_t meta;
    double tw = x->tracing ? tr_now() : 0;
    ring_wait_t w = ring_wait_data(&in->ring, &islot, &meta, j->timeout);
    if (x->tracing) x->waited += tr_now() - tw;
    if (w != RING_OK) return wait_error(x, w, in, "received from");
    if ((uint32_t)(meta >> 32) != j->tag) return mismatch_report(x->j->comm, x->ch, in->peer, &j->desc, (uint32_t)(meta >> 32));
    uint32_t flags = (uint32_t)meta;
    size_t n = flags & ~RING_MORE;
    if (off + n > cap || n % j->g.es) return mismatch(x, in, "more data arrived than this rank's chunk holds");
    if (out) {
      tw = x->tracing ? tr_now() : 0;
      w = ring_wait_room(&out->ring, &oslot, j->timeout);
      if (x->tracing) x->waited += tr_now() - tw;
      if (w != RING_OK) return wait_error(x, w, out, "sent to");
    }
    if (!src) {
      if (dst) kern_copy(dst + off, islot, n);
      if (oslot) kern_copy(oslot, islot, n);
    } else if (oslot && dst) {
      kern_reduce2(dst + off, oslot, src + off, islot, n / j->g.es, j->call->dt, j->call->op);
    } else if (oslot) {
      kern_reduce_out(oslot, src + off, islot, n / j->g.es, j->call->dt, j->call->op);
    } else {
      kern_reduce(dst + off, src + off, islot, n / j->g.es, j->call->dt, j->call->op);
    }
    if (oslot) ring_post(&out->ring, flags, j->tag);
    ring_release(&in->ring);
    off += n;
    if (!(flags & RING_MORE)) break;
  }
  if (expect != (size_t)-1 && off != expect) return mismatch(x, in, "less data arrived than this rank's chunk holds");
  *got = off;
  return chorus_success;
}

static chorus_result_t run_op(exec_chan_t *x, const plan_op_t *op) {
  chorus_comm_t *c = x->j->comm;
  size_t slen = 0, dlen = 0, got = 0;
  const char *src = NULL;
  char *dst = NULL;
  if (plan_op_reads_src(op->code)) src = chunk(x, op->src_buf, op->src_chunk, &slen);
  if (plan_op_writes_dst(op->code)) dst = chunk(x, op->dst_buf, op->dst_chunk, &dlen);
  int dscratch = plan_op_writes_dst(op->code) && op->dst_buf == PLAN_BUF_SCRATCH;
  tr_conn_t *in = plan_op_receives(op->code) ? comm_conn(c, op->recv_peer, x->ch, 0) : NULL;
  tr_conn_t *out = plan_op_sends(op->code) ? comm_conn(c, op->send_peer, x->ch, 1) : NULL;
  comm_where_t *w = x->where;
  w->op_code = op->code, w->recv_peer = in ? op->recv_peer : -1, w->send_peer = out ? op->send_peer : -1;
  w->conn_in = in, w->conn_out = out;
  chorus_result_t res = chorus_success;
  switch ((plan_opcode_t)op->code) {
  case PLAN_OP_SEND: return op_send(x, out, src, slen);
  case PLAN_OP_COPY:
    if (dst != src) kern_copy(dst, src, slen);
    got = slen;
    break;
  case PLAN_OP_RECV:
  case PLAN_OP_RECV_COPY_SEND:
    res = op_recv(x, in, out, NULL, dst, dscratch ? (size_t)-1 : dlen, &got);
    break;
  case PLAN_OP_RECV_REDUCE:
  case PLAN_OP_RECV_REDUCE_COPY_SEND:
  case PLAN_OP_RECV_REDUCE_SEND:
    res = op_recv(x, in, out, src, dst, slen, &got);
    break;
  default: return comm_fail(c, chorus_internal_error, "rank %d: op code %d is unknown", c->rank, op->code);
  }
  if (dscratch) x->slen[op->dst_chunk] = got;
  return res;
}

/* A rank that only sends in a call (a broadcast's root, a reduce's leaf)
 * returns before any receiver looked at its steps; a receiver that finds
 * them from a different call aborts the connection, and this rank fails,
 * with both calls, in the first later call that finds the abort: at once
 * over shared memory when it next waits for a slot, and over sockets here,
 * at the end of each such call, by a look (no wait) at whether the
 * receiver closed (without it a root ran 169 more broadcasts into the
 * socket buffers). With CHORUS_CONFIRM_SENDS it waits until its last step
 * is taken (over sockets a flush: one round trip), and so fails in the same
 * call. Not by default: on 2 ranks on 2 loaded cores that made an 8-byte
 * broadcast 3-7x slower (2026-12-03). */
static chorus_result_t check_sends(exec_chan_t *x, const plan_prog_t *prog, const plan_op_t *ops) {
  for (uint32_t i = 0; i < prog->count; i++)
    if (plan_op_receives(ops[i].code)) return chorus_success;
  for (uint32_t i = 0; i < prog->count; i++) {
    if (!plan_op_sends(ops[i].code) || (i && ops[i - 1].send_peer == ops[i].send_peer)) continue;
    tr_conn_t *out = comm_conn(x->j->comm, ops[i].send_peer, x->ch, 1);
    ring_t *r = &out->ring;
    ring_wait_t w = RING_OK;
    if (!x->j->confirm) {
      if (out->tr->check) w = out->tr->check(out);
    } else {
      if (!ring_passed(__atomic_load_n(&r->ctrl->tail, __ATOMIC_ACQUIRE), r->pos))
        w = ring_wait_slow(r, &r->ctrl->tail, &r->ctrl->tail_sleepers, r->pos, x->j->timeout);
      if (w == RING_OK && out->tr->flush) w = out->tr->flush(out, x->j->timeout);
    }
    if (w != RING_OK) return wait_error(x, w, out, "sent to");
  }
  return chorus_success;
}

/* Keep one traced op (a full buffer drops the rest: tracing is for one call). */
static void trace_record(chorus_comm_t *c, int ch, struct exec_trace_ev *e, exec_chan_t *x, const plan_op_t *op) {
  exec_state_t *s = &c->x;
  if (s->trace_n[ch] == s->trace_cap[ch]) {
    size_t cap = s->trace_cap[ch] ? 2 * s->trace_cap[ch] : 256;
    struct exec_trace_ev *ev = cap <= ((size_t)1 << 22) ? realloc(s->trace_ev[ch], cap * sizeof *ev) : NULL;
    if (!ev) return;
    s->trace_ev[ch] = ev, s->trace_cap[ch] = cap;
  }
  size_t len = 0;
  if (plan_op_reads_src(op->code)) chunk(x, op->src_buf, op->src_chunk, &len);
  else if (plan_op_writes_dst(op->code)) chunk(x, op->dst_buf, op->dst_chunk, &len);
  e->bytes = len;
  e->to = plan_op_sends(op->code) ? op->send_peer : -1;
  e->from = plan_op_receives(op->code) ? op->recv_peer : -1;
  s->trace_ev[ch][s->trace_n[ch]++] = *e;
}

static chorus_result_t run_channel(exec_job_t *j, int ch) {
  chorus_comm_t *c = j->comm;
  const plan_t *p = j->plan;
  exec_chan_t x = {
      .j = j, .ch = ch, .k = p->nchunks, .step = c->geom.step_bytes, .spc = j->spc, .where = &c->where[ch]};
  x.g = geom_chan(&j->g, ch);
  if (!x.g.part_len && (j->g.count || ch)) return chorus_success; /* see exec_coll for a count of 0 */
  x.scratch = c->x.scratch[ch];
  x.slen = p->scratch_chunks ? (size_t *)(x.scratch + (size_t)p->scratch_chunks * c->geom.chunk_bytes) : NULL;
  const plan_prog_t *prog = plan_prog(p, c->rank, ch);
  const plan_op_t *ops = plan_prog_ops(p, c->rank, ch);
  size_t per_iter = (size_t)x.k * x.g.ce;
  x.where->op_count = (int)prog->count;
  x.where->active = 1;
  x.tracing = c->x.trace_path[0] != 0;
  uint32_t iter = 0;
  x.base = 0;
  do { /* at least once: a call of 0 elements runs one slice of empty steps */
    for (uint32_t i = 0; i < prog->count; i++) {
      x.where->op_index = (int)i;
      if (x.tracing) {
        x.waited = 0;
        double t0 = tr_now();
        chorus_result_t res = run_op(&x, &ops[i]);
        TRY(res);
        trace_record(c, ch, &(struct exec_trace_ev){.t0 = t0, .t1 = tr_now(), .wait = x.waited, .op = i,
                                                     .iter = iter, .code = ops[i].code},
                     &x, &ops[i]);
        continue;
      }
      chorus_result_t res = run_op(&x, &ops[i]);
      TRY(res); /* where stays: a report after the failure shows it */
    }
    x.base += per_iter, iter++;
  } while (x.base < x.g.part_len);
  x.where->active = 0;
  TRY(check_sends(&x, prog, ops));
  if (j->call->op == chorus_avg && plan_coll_reduces(j->call->coll) && j->out &&
      (j->call->coll != chorus_reduce || c->rank == j->call->root))
    kern_divide(j->out + x.g.part_off * j->g.es, x.g.part_len, j->call->dt, c->nranks);
  return chorus_success;
}

int exec_moves(const plan_t *p, size_t count, chorus_dtype_t dt, size_t buffsize, geom_move_fn fn, void *arg) {
  geom_conn_t conn = geom_conn_window(geom_conn_engine(buffsize), p->window);
  geom_call_t g = geom_call(count, chorus_dtype_size(dt), p->nchannels, p->nchunks, &conn);
  for (int ch = 0; ch < p->nchannels; ch++) {
    geom_chan_t gc = geom_chan(&g, ch);
    uint32_t slice = 0;
    for (size_t base = 0; base < gc.part_len; base += (size_t)g.k * gc.ce, slice++) {
      for (int q = 0; q < g.k; q++) {
        size_t first, len = chunk_span(&gc, base, q, &first) * g.es, off = 0,
                      piece = piece_size(len, conn.step_bytes, conn.steps_per_chunk);
        uint32_t step = 0;
        do {
          size_t n = len - off < piece ? len - off : piece;
          geom_move_t m = {.ch = ch, .slice = slice, .chunk = q, .step = step++, .offset = first * g.es + off,
                           .bytes = n};
          if (fn(&m, arg)) return 1;
          off += n;
        } while (off < len);
      }
    }
  }
  return 0;
}

/* --- channel workers --- */

static void *worker_main(void *arg) {
  exec_worker_t *w = arg;
  chorus_comm_t *c = w->comm;
  uint32_t seen = w->seen; /* read by the creator: a job posted before this thread runs is not missed */
  log_set_rank(c->rank);
  long spin = param_int(PARAM_SPIN);
  for (;;) {
    uint32_t g;
    long i = 0;
    while ((g = __atomic_load_n(&c->x.work_gen, __ATOMIC_ACQUIRE)) == seen &&
           !__atomic_load_n(&c->x.quit, __ATOMIC_ACQUIRE)) {
      if (++i < spin) __builtin_ia32_pause();
      else pfutex_wait(&c->x.work_gen, seen);
    }
    if (__atomic_load_n(&c->x.quit, __ATOMIC_ACQUIRE)) return NULL;
    seen = g;
    exec_job_t *j = c->x.job;
    if (w->channel < j->plan->nchannels) j->res[w->channel] = run_channel(j, w->channel);
    if (__atomic_sub_fetch(&c->x.work_left, 1, __ATOMIC_ACQ_REL) == 0) pfutex_wake(&c->x.work_left);
  }
}

static chorus_result_t workers_ensure(chorus_comm_t *c, int n) {
  while (c->x.nworkers < n - 1) {
    exec_worker_t *w = &c->x.workers[c->x.nworkers + 1];
    w->comm = c, w->channel = c->x.nworkers + 1;
    w->seen = __atomic_load_n(&c->x.work_gen, __ATOMIC_ACQUIRE);
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0)
      return comm_fail(c, chorus_system_error, "rank %d: cannot start a channel thread", c->rank);
    w->started = 1;
    c->x.nworkers++;
  }
  return chorus_success;
}

void exec_state_fini(exec_state_t *x) {
  __atomic_store_n(&x->quit, 1, __ATOMIC_RELEASE); /* read by spinning workers */
  __atomic_add_fetch(&x->work_gen, 1, __ATOMIC_RELEASE);
  pfutex_wake(&x->work_gen);
  for (int i = 1; i <= x->nworkers; i++)
    if (x->workers[i].started) pthread_join(x->workers[i].thread, NULL);
  x->nworkers = 0;
  tune_destroy(x->tune);
  x->tune = NULL;
  for (int i = 0; i < PLAN_MAX_CHANNELS; i++) free(x->scratch[i]), x->scratch[i] = NULL;
  for (int i = 0; i < PLAN_MAX_CHANNELS; i++) free(x->trace_ev[i]), x->trace_ev[i] = NULL;
  free(x->stage);
  x->stage = NULL;
}

void exec_force(chorus_comm_t *c, const char *algo, int nchannels) {
  str_copy(c->x.force_algo, sizeof c->x.force_algo, algo ? algo : "");
  c->x.force_nchannels = nchannels;
}

void exec_agree(chorus_comm_t *c, int mode) { c->x.agree_mode = mode < 0 ? 0 : 1 + mode; }

const char *exec_last(const chorus_comm_t *c, int *nchannels) {
  if (nchannels) *nchannels = c->x.last_nchannels;
  return c->x.last_algo;
}

/* --- collectives --- */

static chorus_result_t grow(chorus_comm_t *c, void **buf, size_t *size, size_t want) {
  if (*size >= want) return chorus_success;
  void *p;
  if (posix_memalign(&p, 4096, want) != 0) return comm_fail(c, chorus_out_of_memory, "out of memory (%zu bytes)", want);
  memset(p, 0, want); /* pre-fault once; later calls reuse it */
  free(*buf);
  *buf = p;
  *size = want;
  return chorus_success;
}

/* The plan of algo (from the memo, else planned, proved and memoized) and
 * its scratch; *memo: its memo entry (NULL when the memo is full). Its
 * connections are made by connect_plan, once the call's tag is known. */
static chorus_result_t get_plan(chorus_comm_t *c, chorus_coll_t coll, int root, const char *algo, int nch,
                                const plan_t **out, exec_memo_t **memo) {
  *memo = NULL;
  for (int i = 0; i < c->x.nmemo; i++) {
    exec_memo_t *m = &c->x.memo[i];
    if (m->coll == coll && m->root == root && m->nchannels == nch && !strcmp(m->algo, algo)) {
      *out = m->plan;
      *memo = m;
      return chorus_success;
    }
  }
  planner_req_t req = {.algo = algo, .coll = coll, .nranks = c->nranks, .shape = &c->shape, .root = root,
                       .nchannels = nch};
  const char *dir = param_str(PARAM_ALGOS);
  if (dir[0]) req.algos_dir = dir;
  planner_err_t err;
  const plan_t *p;
  double t0 = tr_now();
  chorus_result_t res = plan_cache_get(c->cache, &req, (int)param_int(PARAM_VERIFY), &p, &err);
  if (res != chorus_success) return err_set(res, "%s", err.msg);
  if (p->nhubs)
    return err_set(chorus_invalid_usage,
                   "algorithm %s reduces in a switch (%d hub%s): the simulator predicts it (chorus sim -a %s), but "
                   "this engine has no switch that reduces; choose another (CHORUS_ALGO)",
                   algo, p->nhubs, p->nhubs == 1 ? "" : "s", algo);
  LOG_INFO_("PLAN", "rank %d: %s %s (root %d) on %d channel%s for %d ranks: %u ops for this rank, %.2f ms to get "
                    "from the plan cache (which plans and verifies on first use)", c->rank, algo,
            chorus_coll_name(coll), root, p->nchannels, p->nchannels == 1 ? "" : "s", c->nranks,
            plan_prog(p, c->rank, 0)->count, (tr_now() - t0) * 1e3);
  /* A CUDA communicator's kernels use device connections and scratch
   * (cuda_exec.c): no host connections, no host scratch. */
  if (p->scratch_chunks && !c->cuda) {
    for (int ch = 0; ch < p->nchannels; ch++) {
      size_t want = (size_t)p->scratch_chunks * (c->geom.chunk_bytes + sizeof(size_t));
      TRY(grow(c, &c->x.scratch[ch], &c->x.scratch_size[ch], want));
    }
  }
  if (c->x.nmemo < EXEC_MEMO) {
    exec_memo_t *m = &c->x.memo[c->x.nmemo++];
    *m = (exec_memo_t){.plan = p, .coll = coll, .root = root, .nchannels = nch};
    snprintf(m->algo, sizeof m->algo, "%s", algo);
    *memo = m;
  }
  *out = p;
  return chorus_success;
}

/* Make plan p's connections that do not exist yet; every rank does so in
 * the same call. Each set-up message carries the call (`call`), so ranks
 * whose calls differ, and so would wait on set-ups that never come (a
 * broadcast whose ranks disagree on the root), find it out here. */
static chorus_result_t connect_plan(chorus_comm_t *c, const plan_t *p, const comm_desc_t *call) {
  if (c->cuda) return chorus_success;
  int cap = 0;
  for (int ch = 0; ch < p->nchannels; ch++) cap += 2 * (int)plan_prog(p, c->rank, ch)->count;
  comm_link_t *links = malloc(sizeof *links * (cap ? cap : 1));
  if (!links) return comm_fail(c, chorus_out_of_memory, "out of memory");
  int n = 0;
  for (int ch = 0; ch < p->nchannels; ch++) {
    const plan_op_t *ops = plan_prog_ops(p, c->rank, ch);
    for (uint32_t i = 0; i < plan_prog(p, c->rank, ch)->count; i++) {
      if (plan_op_receives(ops[i].code)) links[n++] = (comm_link_t){ops[i].recv_peer, ch, 0};
      if (plan_op_sends(ops[i].code)) links[n++] = (comm_link_t){ops[i].send_peer, ch, 1};
    }
  }
  chorus_result_t res = comm_connect(c, links, n, call);
  free(links);
  return res;
}

static chorus_result_t check_call(chorus_comm_t *c, const comm_call_t *k) {
  if ((unsigned)k->dt >= chorus_num_dtypes)
    return err_set(chorus_invalid_argument, "rank %d: data type %d is not a chorus_dtype_t", c->rank, (int)k->dt);
  if (k->kind == CALL_COLL) {
    if ((unsigned)k->coll >= chorus_num_collectives)
      return err_set(chorus_invalid_argument, "rank %d: collective %d is unknown", c->rank, (int)k->coll);
    if (plan_coll_reduces(k->coll) && (unsigned)k->op >= chorus_num_redops)
      return err_set(chorus_invalid_argument, "rank %d: op %d is not a chorus_redop_t", c->rank, (int)k->op);
    if (plan_coll_rooted(k->coll) && (k->root < 0 || k->root >= c->nranks))
      return err_set(chorus_invalid_argument, "rank %d: root %d is not a rank of %d", c->rank, k->root, c->nranks);
    int needs_in = k->coll != chorus_broadcast || c->rank == k->root;
    int needs_out = k->coll != chorus_reduce || c->rank == k->root;
    if (k->count && ((needs_in && !k->sendbuf) || (needs_out && !k->recvbuf)))
      return err_set(chorus_invalid_argument, "rank %d: %s of %zu elements with a NULL buffer", c->rank,
                     chorus_coll_name(k->coll), k->count);
  } else {
    if (k->root < 0 || k->root >= c->nranks)
      return err_set(chorus_invalid_argument, "rank %d: peer %d is not a rank of %d", c->rank, k->root, c->nranks);
    if (k->count && !k->sendbuf && !k->recvbuf)
      return err_set(chorus_invalid_argument, "rank %d: send/recv with a NULL buffer", c->rank);
  }
  return chorus_success;
}

/* The tuner's candidates: planned and proved through the plan cache, not
 * connected (only the chosen plan makes connections, in get_plan). */
typedef struct {
  chorus_comm_t *c;
  chorus_coll_t coll;
  int root;
} cand_ctx_t;

static chorus_result_t cand_plan(void *ctx, const char *algo, int nch, const plan_t **out) {
  cand_ctx_t *x = ctx;
  chorus_comm_t *c = x->c;
  for (int i = 0; i < c->x.nmemo; i++) {
    exec_memo_t *m = &c->x.memo[i];
    if (m->coll == x->coll && m->root == x->root && m->nchannels == nch && !strcmp(m->algo, algo)) {
      *out = m->plan;
      return chorus_success;
    }
  }
  planner_req_t req = {.algo = algo, .coll = x->coll, .nranks = c->nranks, .shape = &c->shape, .root = x->root,
                       .nchannels = nch};
  const char *dir = param_str(PARAM_ALGOS);
  if (dir[0]) req.algos_dir = dir;
  planner_err_t err;
  chorus_result_t res = plan_cache_get(c->cache, &req, (int)param_int(PARAM_VERIFY), out, &err);
  if (res == chorus_success && (*out)->nhubs) return chorus_invalid_usage; /* a switch that reduces: not here */
  return res == chorus_success && (*out)->nchannels != nch ? chorus_invalid_argument : res;
}

/* The algorithm and channel count for call k: the tuner's (or the rules'),
 * unless CHORUS_ALGO, the benchmark's force or CHORUS_NCHANNELS say
 * otherwise; on a GPU, channels enough to fill it. *forced: an algorithm
 * was forced. */
static void choose(chorus_comm_t *c, const comm_call_t *k, size_t bytes, char *algo, size_t algolen, int *nch,
                   int *forced) {
  const char *env_algo = param_str(PARAM_ALGO);
  int env_forced = env_algo[0] && !tune_algo_is_list(env_algo);
  if (!c->x.force_algo[0] && !env_forced) {
    if (!c->x.tune_made) {
      c->x.tune_made = 1;
      c->x.tune = tune_create(c->nranks, c->nhosts, c->nlocal, c->host_of, c->geom.buffsize);
    }
    cand_ctx_t cx = {c, k->coll, plan_coll_rooted(k->coll) ? k->root : 0};
    tune_choose(c->x.tune, k->coll, c->nranks, c->nlocal, k->count, k->dt, bytes, cand_plan, &cx, algo, algolen, nch);
  } else {
    tune_select(k->coll, c->nranks, c->nlocal, bytes, algo, algolen, nch);
  }
  /* A call of 0 elements runs empty steps to find a rank whose call differs
   * (exec_coll); it can only meet the others' steps on their plan, which
   * their count chose. The last call with data is the best guess there is
   * (a bucket that is empty on one rank only). */
  if (!k->count && c->x.last_with_data[k->coll].algo[0]) {
    str_copy(algo, algolen, c->x.last_with_data[k->coll].algo);
    *nch = c->x.last_with_data[k->coll].nchannels;
  }
  if (env_forced) str_copy(algo, algolen, env_algo);
  if (c->x.force_algo[0]) str_copy(algo, algolen, c->x.force_algo);
  /* On a GPU a channel is a thread block: the CPU cost model's count is far
   * too few to fill the GPU's memory bandwidth. */
  if (c->cuda) {
    int cap = cuda_max_channels(c);
    *nch = cap < CUDA_DEFAULT_CHANNELS ? cap : CUDA_DEFAULT_CHANNELS;
  }
  if (param_int(PARAM_NCHANNELS) > 0) *nch = (int)param_int(PARAM_NCHANNELS);
  if (c->x.force_nchannels > 0) *nch = c->x.force_nchannels;
  if (*nch > PLAN_MAX_CHANNELS) *nch = PLAN_MAX_CHANNELS;
  *forced = c->x.force_algo[0] || env_forced;
}

/* The plan of algo for call k. A chosen algorithm that declines the shape
 * falls back to the default; a forced one only when it does not implement
 * this collective at all (as with NCCL_ALGO: -a direct still lets the
 * harness's own allreduce run). algo becomes the one used. */
static chorus_result_t plan_for(chorus_comm_t *c, const comm_call_t *k, char *algo, size_t algolen, int nch,
                                int forced, const plan_t **p, exec_memo_t **memo) {
  int root = plan_coll_rooted(k->coll) ? k->root : 0;
  chorus_result_t res = get_plan(c, k->coll, root, algo, nch, p, memo);
  int lacks = res != chorus_success && strstr(chorus_last_error(), "does not implement") != NULL;
  if (res != chorus_success && (!forced || lacks) && strcmp(algo, tune_fallback(k->coll)) != 0) {
    LOG_INFO_("TUNE", "%s for %s declined (%s); using %s", algo, chorus_coll_name(k->coll), chorus_last_error(),
              tune_fallback(k->coll));
    snprintf(algo, algolen, "%s", tune_fallback(k->coll));
    res = get_plan(c, k->coll, root, algo, nch, p, memo);
  }
  if (res != chorus_success)
    return comm_fail(c, res, "rank %d: no plan for %s with algorithm '%s' on %d ranks: %s", c->rank,
                     chorus_coll_name(k->coll), algo, c->nranks, chorus_last_error());
  return chorus_success;
}

/* In place is what the verifier proved for the canonical aliasing; any
 * other overlap, and alltoall in place, reads a staged copy of the input
 * (j->in becomes the copy). */
static chorus_result_t stage_input(chorus_comm_t *c, const comm_call_t *k, size_t in_bytes, size_t out_bytes,
                                   exec_job_t *j) {
  size_t es = chorus_dtype_size(k->dt);
  const char *ib = k->sendbuf, *ob = k->recvbuf;
  if (!ib || !ob || ib >= ob + out_bytes || ob >= ib + in_bytes) return chorus_success;
  int canonical = (k->coll == chorus_allgather && ib == ob + (size_t)c->rank * k->count * es) ||
                  (k->coll == chorus_reducescatter && ob == ib + (size_t)c->rank * k->count * es) ||
                  (ib == ob && k->coll != chorus_alltoall && k->coll != chorus_allgather &&
                   k->coll != chorus_reducescatter);
  if (canonical) return chorus_success;
  if (c->cuda) {
    const void *staged;
    TRY(cuda_stage(c, ib, in_bytes, k->cuda_stream, &staged));
    j->in = staged;
  } else {
    TRY(grow(c, &c->x.stage, &c->x.stage_size, in_bytes));
    kern_copy(c->x.stage, ib, in_bytes);
    j->in = c->x.stage;
  }
  return chorus_success;
}

/* Job j on every channel: channel 0 on this thread, the others on the
 * workers, and wait for them all. */
static chorus_result_t run_channels(chorus_comm_t *c, exec_job_t *j) {
  int nch = j->plan->nchannels;
  TRY(workers_ensure(c, nch));
  if (nch > 1) {
    c->x.job = j;
    __atomic_store_n(&c->x.work_left, (uint32_t)(nch - 1), __ATOMIC_RELEASE);
    __atomic_add_fetch(&c->x.work_gen, 1, __ATOMIC_ACQ_REL);
    pfutex_wake(&c->x.work_gen);
  }
  j->res[0] = run_channel(j, 0);
  if (nch > 1) {
    long spin = param_int(PARAM_SPIN), i = 0;
    uint32_t left;
    while ((left = __atomic_load_n(&c->x.work_left, __ATOMIC_ACQUIRE)) != 0) {
      if (++i < spin) __builtin_ia32_pause();
      else pfutex_wait(&c->x.work_left, left);
    }
  }
  for (int ch = 0; ch < nch; ch++)
    if (j->res[ch] != chorus_success) return c->error ? c->error : j->res[ch];
  return chorus_success;
}

/* The traced call's ops, written as exec_trace_next says; then tracing is off. */
static chorus_result_t trace_write(chorus_comm_t *c, const plan_t *p, chorus_result_t res) {
  exec_state_t *s = &c->x;
  FILE *f = fopen(s->trace_path, "w");
  if (!f) {
    LOG_WARN_("EXEC", "rank %d: the trace file %s: %s", c->rank, s->trace_path, strerror(errno));
  } else {
    fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"rank %d\"}}", c->rank,
            c->rank);
    for (int ch = 0; ch < p->nchannels; ch++)
      fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"channel "
                 "%d\"}}", c->rank, ch, ch);
    for (int ch = 0; ch < p->nchannels; ch++)
      for (size_t i = 0; i < s->trace_n[ch]; i++) {
        const struct exec_trace_ev *e = &s->trace_ev[ch][i];
        fprintf(f, ",\n{\"name\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":%d,\"tid\":%d,\"args\":{"
                   "\"op\":%u,\"iter\":%u,\"from\":%d,\"to\":%d,\"bytes\":%zu,\"wait_us\":%.3f}}",
                plan_op_name((plan_opcode_t)e->code), e->t0 * 1e6, (e->t1 - e->t0) * 1e6, c->rank, ch, e->op, e->iter,
                e->from, e->to, e->bytes, e->wait * 1e6);
      }
    fprintf(f, "\n]}\n");
    if (fclose(f) != 0) LOG_WARN_("EXEC", "rank %d: the trace file %s: %s", c->rank, s->trace_path, strerror(errno));
  }
  s->trace_path[0] = 0;
  for (int ch = 0; ch < PLAN_MAX_CHANNELS; ch++) s->trace_n[ch] = 0;
  return res;
}

chorus_result_t exec_trace_next(chorus_comm_t *c, const char *path) {
  if (!path || strlen(path) >= sizeof c->x.trace_path)
    return err_set(chorus_invalid_argument, "exec_trace_next: no path, or longer than %zu bytes",
                   sizeof c->x.trace_path - 1);
  snprintf(c->x.trace_path, sizeof c->x.trace_path, "%s", path);
  return chorus_success;
}

/* --- agreement: the ranks compare their calls before any data moves ---
 *
 * A step's tag finds a rank whose call differs only where that rank
 * receives from one whose call differs. A broadcast's root receives
 * nothing, nor does a reduce's leaf: ranks that disagree on the root may
 * each find a peer that agrees with them and return success. So, before a
 * rooted call, and before the first call of each collective (a count of 0
 * under the tuner chooses its plan by 0 bytes, which may never meet the
 * others'), every rank reduces two words with max over all ranks:
 * (tag << 32 | rank) and (~tag << 32 | rank). Every rank gets the same
 * answer, in which its own tag is the largest and the smallest only when
 * all agree; otherwise the answer names a rank whose call differs, and a
 * second reduction (each rank's descriptor in its own slot, zeros
 * elsewhere) tells every rank that rank's call, so every rank fails in
 * this call with both calls named, before any data moves. It costs one
 * small allreduce (recursive doubling: log2(ranks) steps) per such call;
 * CHORUS_AGREE=all does it before every call, none never. */

#define AGREE_WORDS ((sizeof(comm_desc_t) + 7) / 8)

/* Allreduce with max of n 64-bit words in place, on the agreement's plan,
 * its steps tagged with the agreement tag of this call (desc->seq). */
static chorus_result_t agree_max(chorus_comm_t *c, const comm_desc_t *desc, uint64_t *w, size_t n) {
  char algo[64] = "rd";
  const plan_t *p;
  exec_memo_t *memo;
  comm_call_t k = {.kind = CALL_COLL, .coll = chorus_allreduce, .dt = chorus_uint64, .op = chorus_max, .count = n,
                   .sendbuf = w, .recvbuf = w};
  TRY(plan_for(c, &k, algo, sizeof algo, 1, 0, &p, &memo));
  /* Set-ups and steps carry the user's call (a report names it) under the
   * agreement's tag (the same on every rank that agrees to agree). */
  geom_conn_t conn = geom_conn_window(c->geom, p->window);
  exec_job_t j = {.comm = c, .plan = p, .call = &k, .in = (const char *)w, .out = (char *)w,
                  .g = geom_call(n, sizeof *w, p->nchannels, p->nchunks, &conn), .spc = conn.steps_per_chunk,
                  .desc = *desc, .timeout = (double)param_int(PARAM_TIMEOUT)};
  j.desc.tag = j.tag = mismatch_agree_tag(desc->seq);
  if (!memo || !memo->connected) {
    TRY(connect_plan(c, p, &j.desc));
    if (memo) memo->connected = 1;
  }
  /* A trace asked for (exec_trace_next) is of the call's own ops. */
  char traced = c->x.trace_path[0];
  c->x.trace_path[0] = 0;
  chorus_result_t res = run_channels(c, &j);
  c->x.trace_path[0] = traced;
  return res;
}

static chorus_result_t agree(chorus_comm_t *c, const comm_desc_t *d) {
  uint64_t w[2] = {(uint64_t)d->tag << 32 | (uint32_t)c->rank, (uint64_t)(uint32_t)~d->tag << 32 | (uint32_t)c->rank};
  TRY(agree_max(c, d, w, 2));
  int peer = -1;
  if ((uint32_t)(w[0] >> 32) != d->tag) peer = (int)(uint32_t)w[0];
  else if ((uint32_t)(w[1] >> 32) != (uint32_t)~d->tag) peer = (int)(uint32_t)w[1];
  if (peer < 0) return chorus_success;
  if (peer >= c->nranks) return comm_fail(c, chorus_internal_error, "rank %d: the agreement named rank %d", c->rank, peer);
  /* Every rank is here (all got the same answer): share the calls. */
  size_t n = (size_t)c->nranks * AGREE_WORDS;
  uint64_t *all = calloc(n, sizeof *all);
  if (!all) return comm_fail(c, chorus_out_of_memory, "out of memory for the calls of %d ranks", c->nranks);
  memcpy(all + (size_t)c->rank * AGREE_WORDS, d, sizeof *d);
  chorus_result_t res = agree_max(c, d, all, n);
  if (res == chorus_success) {
    comm_desc_t theirs;
    memcpy(&theirs, all + (size_t)peer * AGREE_WORDS, sizeof theirs);
    theirs.algo[sizeof theirs.algo - 1] = 0;
    res = mismatch_disagreed(c, d, peer, &theirs);
  }
  free(all);
  return res;
}

/* Whether call k is agreed on first (CHORUS_AGREE). */
static int agree_needed(chorus_comm_t *c, const comm_call_t *k) {
  if (c->cuda) return 0; /* its kernels run the call; see cuda_exec.c */
  switch (c->x.agree_mode ? (tune_agree_t)(c->x.agree_mode - 1) : tune_agree()) {
  case TUNE_AGREE_ALL: return 1;
  case TUNE_AGREE_NONE: return 0;
  default: break;
  }
  int first = !c->x.agreed[k->coll];
  c->x.agreed[k->coll] = 1;
  return first || plan_coll_rooted(k->coll);
}

static chorus_result_t exec_coll(chorus_comm_t *c, const comm_call_t *k) {
  ++c->seq;
  /* A call of 0 elements still runs its plan, one slice of empty steps on
   * channel 0 (run_channel): each carries the call's tag, so a rank whose
   * count is not 0 and the one whose is both see that the calls differ,
   * where returning at once left the others waiting until the timeout.
   * When every rank passes 0 that costs the plan's latency once. One rank
   * alone, and a GPU communicator (its kernels are not cut this way),
   * return at once. */
  if (!k->count && (c->nranks == 1 || c->cuda)) return chorus_success;
  size_t es = chorus_dtype_size(k->dt);
  int in_units, out_units;
  plan_coll_units(k->coll, c->nranks, &in_units, &out_units);
  size_t bytes = k->count * es * (size_t)(in_units > out_units ? in_units : out_units);
  char algo[64];
  int nch, forced;
  const plan_t *p;
  exec_memo_t *memo;
  choose(c, k, bytes, algo, sizeof algo, &nch, &forced);
  TRY(plan_for(c, k, algo, sizeof algo, nch, forced, &p, &memo));
  str_copy(c->x.last_algo, sizeof c->x.last_algo, algo);
  c->x.last_nchannels = p->nchannels;
  if (k->count) {
    str_copy(c->x.last_with_data[k->coll].algo, sizeof c->x.last_with_data[k->coll].algo, algo);
    c->x.last_with_data[k->coll].nchannels = nch;
  }

  /* Buffers of a call of 0 elements may be NULL: its empty steps point here. */
  static char no_data[GEOM_ALIGN];
  geom_conn_t conn = geom_conn_window(c->geom, p->window);
  exec_job_t j = {.comm = c, .plan = p, .call = k, .in = k->count ? k->sendbuf : no_data,
                  .out = k->count ? k->recvbuf : no_data,
                  .g = geom_call(k->count, es, p->nchannels, p->nchunks, &conn), .spc = conn.steps_per_chunk,
                  .timeout = (double)param_int(PARAM_TIMEOUT)};
  /* The tag covers the algorithm and channels too: ranks that chose
   * differently (CHORUS_ALGO set on one host only) fail, never mix plans. */
  j.desc = (comm_desc_t){.coll = k->coll, .dt = k->dt, .count = k->count, .nchannels = p->nchannels,
                         .op = plan_coll_reduces(k->coll) ? (int32_t)k->op : -1,
                         .root = plan_coll_rooted(k->coll) ? k->root : -1};
  str_copy(j.desc.algo, sizeof j.desc.algo, algo);
  mismatch_record(c, &j.desc);
  j.tag = j.desc.tag;
  if (agree_needed(c, k)) TRY(agree(c, &j.desc));
  if (!memo || !memo->connected) {
    TRY(connect_plan(c, p, &j.desc));
    if (memo) memo->connected = 1;
  }
  long every = param_int(PARAM_CONFIRM_SENDS);
  j.confirm = every > 0 && c->seq % (uint32_t)every == 0;
  TRY(stage_input(c, k, k->count * es * (size_t)in_units, k->count * es * (size_t)out_units, &j));
  if (c->cuda) return cuda_exec_coll(c, p, k, j.in, j.tag);
  if (c->x.trace_path[0]) return trace_write(c, p, run_channels(c, &j));
  if (!log_enabled(LOG_TRACE, "EXEC")) return run_channels(c, &j);
  double t0 = tr_now();
  chorus_result_t res = run_channels(c, &j);
  char what[256];
  mismatch_desc_str(&j.desc, what, sizeof what);
  LOG_TRACE_("EXEC", "rank %d: %s, %zu bytes: %s in %.1f us", c->rank, what, bytes,
             res == chorus_success ? "done" : chorus_result_string(res), (tr_now() - t0) * 1e6);
  return res;
}

/* --- point to point --- */

typedef struct {
  tr_conn_t *conn;
  char *buf;
  size_t bytes, off;
  uint32_t tag;
  int prev;  /* earlier op on the same connection, -1 when none */
  int done, started;
} p2p_t;

/* The point-to-point calls' ops, on their connections (made now when
 * new), each after the earlier op on the same connection. */
static chorus_result_t p2p_prepare(chorus_comm_t *c, const comm_call_t *calls, int ncalls, p2p_t *ops,
                                   comm_link_t *links, int n) {
  int m = 0;
  for (int i = 0; i < ncalls; i++)
    if (calls[i].kind != CALL_COLL) links[m++] = (comm_link_t){calls[i].root, COMM_P2P_CHANNEL, calls[i].kind == CALL_SEND};
  TRY(comm_connect(c, links, n, NULL));
  m = 0;
  for (int i = 0; i < ncalls; i++) {
    const comm_call_t *k = &calls[i];
    if (k->kind == CALL_COLL) continue;
    int is_send = k->kind == CALL_SEND;
    p2p_t *o = &ops[m];
    o->conn = comm_conn(c, k->root, COMM_P2P_CHANNEL, is_send);
    o->buf = is_send ? (char *)k->sendbuf : k->recvbuf;
    o->bytes = k->count * chorus_dtype_size(k->dt);
    uint32_t seq = is_send ? ++c->p2p_sent[k->root] : ++c->p2p_recvd[k->root];
    o->tag = tag_mix(tag_mix(0x50325000u, seq), o->bytes);
    o->prev = -1;
    for (int q = m - 1; q >= 0 && o->prev < 0; q--)
      if (ops[q].conn == o->conn) o->prev = q;
    m++;
  }
  return chorus_success;
}

/* One step of op o if its ring is ready: a send's next step into a slot, or
 * a receive's next step out of one. *moved: a step moved. */
static chorus_result_t p2p_step(chorus_comm_t *c, p2p_t *o, int *left, int *moved) {
  ring_t *r = &o->conn->ring;
  /* Steps already in the ring are taken even when the peer has since
   * left (a receive ring's abort can follow the peer's last step). */
  int ready = o->conn->is_send
                  ? ring_passed(__atomic_load_n(&r->ctrl->tail, __ATOMIC_ACQUIRE), r->pos - GEOM_NSTEPS + 1)
                  : ring_passed(__atomic_load_n(&r->ctrl->head, __ATOMIC_ACQUIRE), r->pos + 1);
  if (__atomic_load_n(&r->ctrl->abort, __ATOMIC_ACQUIRE) && (o->conn->is_send || !ready))
    return comm_peer_failed(c, o->conn, "during send/recv");
  if (!ready) return chorus_success;
  *moved = 1;
  char *slot = r->slots + (size_t)(r->pos % GEOM_NSTEPS) * r->step_bytes;
  if (o->conn->is_send) {
    size_t nb = o->bytes - o->off < c->geom.step_bytes ? o->bytes - o->off : c->geom.step_bytes;
    kern_copy(slot, o->buf + o->off, nb);
    o->off += nb;
    ring_post(r, (uint32_t)nb | (o->off < o->bytes ? RING_MORE : 0), o->tag);
    if (o->off == o->bytes) o->done = 1, (*left)--;
    return chorus_success;
  }
  uint64_t meta = r->ctrl->meta[r->pos % GEOM_NSTEPS];
  size_t nb = (uint32_t)meta & ~RING_MORE;
  if ((uint32_t)(meta >> 32) != o->tag || o->off + nb > o->bytes)
    return comm_fail(c, chorus_invalid_usage,
                     "rank %d: a message from rank %d does not match this receive of %zu bytes (sizes or order "
                     "of send/recv differ)",
                     c->rank, o->conn->peer, o->bytes);
  kern_copy(o->buf + o->off, slot, nb);
  o->off += nb;
  ring_release(r);
  if (!((uint32_t)meta & RING_MORE)) {
    if (o->off != o->bytes)
      return comm_fail(c, chorus_invalid_usage, "rank %d: rank %d sent %zu bytes, this receive expects %zu", c->rank,
                       o->conn->peer, o->off, o->bytes);
    o->done = 1, (*left)--;
  }
  return chorus_success;
}

/* Nothing moved for a while: a peer that died or no progress since `last`
 * for longer than the timeout fails the call. */
static chorus_result_t p2p_check_stuck(chorus_comm_t *c, const p2p_t *ops, int n, double last, double timeout) {
  for (int i = 0; i < n; i++) {
    int pid = ops[i].conn->ring.peer_pid;
    if (!ops[i].done && ring_peer_gone(pid))
      return comm_fail(c, chorus_remote_error, "rank %d: rank %d (pid %d) died during send/recv", c->rank,
                       ops[i].conn->peer, pid);
  }
  if (tr_now() - last > timeout) {
    hang_dump(c, "timeout");
    return comm_fail(c, chorus_timeout, "rank %d: send/recv made no progress for %.0f s (CHORUS_TIMEOUT)", c->rank,
                     timeout);
  }
  return chorus_success;
}

/* All point-to-point calls of a group at once: every op moves whenever its
 * ring is ready, so that sends and receives in any order complete. */
static chorus_result_t p2p_run(chorus_comm_t *c, p2p_t *ops, int n) {
  double timeout = (double)param_int(PARAM_TIMEOUT), last = tr_now();
  long spin = param_int(PARAM_SPIN);
  int left = n;
  for (long idle = 0; left;) {
    int moved = 0;
    for (int i = 0; i < n; i++) {
      p2p_t *o = &ops[i];
      if (o->done || (o->prev >= 0 && !ops[o->prev].done)) continue;
      TRY(p2p_step(c, o, &left, &moved));
    }
    if (moved) {
      idle = 0;
      continue;
    }
    if (c->stop)
      return comm_fail_after(c, c->error ? c->error : chorus_remote_error, "rank %d: stopped during send/recv",
                             c->rank);
    if (++idle < spin) {
      __builtin_ia32_pause();
      continue;
    }
    if (idle == spin) last = tr_now();
    sched_yield();
    if ((idle & 255) == 0) TRY(p2p_check_stuck(c, ops, n, last, timeout));
  }
  return chorus_success;
}

static chorus_result_t exec_p2p(chorus_comm_t *c, const comm_call_t *calls, int ncalls) {
  chorus_result_t res = chorus_success;
  int n = 0;
  for (int i = 0; i < ncalls; i++) n += calls[i].kind != CALL_COLL;
  if (!n) return chorus_success;
  if (c->cuda)
    return err_set(chorus_invalid_usage, "rank %d: a CUDA communicator runs collectives only (as CUDA kernels); "
                                         "send and recv need a communicator on host memory", c->rank);
  p2p_t *ops = calloc((size_t)n, sizeof *ops);
  comm_link_t *links = calloc((size_t)n, sizeof *links);
  if (!ops || !links) CHECK(comm_fail(c, chorus_out_of_memory, "out of memory"));
  CHECK(p2p_prepare(c, calls, ncalls, ops, links, n));
  CHECK(p2p_run(c, ops, n));
cleanup:
  free(ops);
  free(links);
  return res;
}

chorus_result_t exec_calls(chorus_comm_t *c, const comm_call_t *calls, int ncalls) {
  chorus_result_t res = chorus_success;
  pthread_mutex_lock(&c->lock);
  log_set_rank(c->rank);
  if (c->error) {
    res = err_set(c->error, "%s", c->errmsg);
    goto cleanup;
  }
  for (int i = 0; i < ncalls; i++) CHECK(check_call(c, &calls[i]));
  for (int i = 0; i < ncalls; i++) {
    if (calls[i].kind != CALL_COLL) continue;
    c->call_kind = CALL_COLL, c->call_coll = calls[i].coll, c->call_count = calls[i].count;
    c->call_active = 1;
    CHECK(exec_coll(c, &calls[i]));
    c->call_active = 0;
  }
  c->call_kind = CALL_SEND, c->call_count = (size_t)ncalls;
  c->call_active = 1;
  res = exec_p2p(c, calls, ncalls);
  if (res == chorus_success) c->call_active = 0;
cleanup:
  if (res != chorus_success && c->error) err_set(c->error, "%s", c->errmsg);
  pthread_mutex_unlock(&c->lock);
  return res;
}
