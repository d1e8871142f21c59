/* sim.c -- plan replay: every (rank, channel) program is a small state
 * machine stepping through its ops the way the executor's thread does,
 * connections hold the engine's slots, steps become flows in sim_net, and one
 * event queue orders arrivals and the ends of computation. The loop that
 * handles a step allocates nothing and logs nothing. */
#include "sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim_net.h"

#define SIM_ALIGN 64
/* Destinations with at most this many sources are routed pair by pair. */
#define SIM_PAIR_ROUTES 4

enum { ST_RUN = 0, ST_WAIT_IN, ST_WAIT_OUT, ST_BUSY, ST_DONE };
enum { EV_ARRIVE = 0, EV_READY = 1 };

typedef struct {
  double t;
  uint64_t seq;
  int32_t id;
  int32_t kind;
} event_t;

/* Events a fixed delay after now (a route's latency, an op's overhead, the
 * reduction of a step of a given size): one FIFO per distinct delay holds
 * them already in (time, sequence) order, since now only grows, so they skip
 * the heap; a plan has a handful of such delays. The heap takes the rest. */
#define SIM_EV_FIFOS 16

typedef struct {
  double delay;
  event_t *q; /* ring of cap (a power of two) */
  size_t head, n, cap;
} ev_fifo_t;

typedef struct {
  int32_t src_thr, dst_thr; /* sender and receiver threads */
  int32_t route_off, route_len;
  double lat;               /* route latency + protocol step latency */
  uint32_t P, D, C;         /* steps posted, transmitted, consumed */
  double bytes;             /* bytes put on the wire in this run */
  uint8_t tx;               /* a step is on the network */
  uint8_t wait_send, wait_recv;
} conn_t;

typedef struct {
  uint32_t op, iter, piece, npieces;
  uint8_t state, phase; /* phase: 0 op not begun, 1 overhead paid, 2 work pending */
  int32_t in, out;      /* connections of the current op */
  uint64_t len, psize;  /* current send length and piece size */
  uint32_t pend;        /* the step being worked on: bytes | last flag */
  int32_t out_first, out_n, in_first, in_n; /* this thread's connections (by peer) in conn_peer */
  double t_op, t_step, t_work;
  /* The op being run, copied from the plan when it begins, and the costs of
   * the rank's device: a large plan does not fit in the cache and its
   * threads run interleaved, so every wake-up that read them from the plan
   * and the topology would miss. */
  plan_op_t cur;
  double reduce_bw, copy_bw, op_overhead;
} thr_t;

/* A slot of a connection: what the step holds and when it arrives, side by
 * side, since the receiver reads both at once (one cache miss, not two). */
typedef struct {
  double arrive;
  uint32_t v; /* bytes | SLOT_LAST */
} slot_t;

struct sim {
  const topo_t *t;
  const plan_t *p;
  sim_opts_t o;
  int nthr, nconn;
  thr_t *thr;
  conn_t *conn;
  int32_t *conn_peer_out, *conn_id_out; /* per thread, sorted by peer */
  int32_t *conn_peer_in, *conn_id_in;
  int32_t *routes;
  size_t nroutes;
  slot_t *slots;   /* nconn * nsteps */
  double *scratch_len;
  sim_net_t *net;
  int nres;
  double *cap;
  /* the call being simulated */
  size_t count, es, chunk_bytes, step_bytes, min_step;
  int nsteps, spc;
  size_t part_len[PLAN_MAX_CHANNELS], ce[PLAN_MAX_CHANNELS];
  uint32_t niter[PLAN_MAX_CHANNELS];
  double eff;
  double now;
  event_t *ev;
  size_t nev, evcap;
  ev_fifo_t fifo[SIM_EV_FIFOS];
  event_t fhead[SIM_EV_FIFOS]; /* each FIFO's first event, side by side for the scan */
  int nfifo;
  uint64_t seq, events, steps;
  int32_t *rq;
  size_t rq_head, rq_tail, rq_cap;
  uint8_t *queued;
  double end;
  int done_threads;
  chorus_result_t fault;
  sim_span_t *spans;
  size_t nspans, spancap;
  double *res_bytes, *res_busy;
  int trace_first;
};

#define SLOT_LAST 0x80000000u

/* --- event heap --- */

static inline int ev_before(const event_t *a, const event_t *b) {
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int ev_push(sim_t *s, double t, int kind, int id) {
  if (s->nev == s->evcap) {
    size_t c = s->evcap ? s->evcap * 2 : 1024;
    event_t *e = realloc(s->ev, sizeof *e * c);
    if (!e) return -1;
    s->ev = e;
    s->evcap = c;
  }
  size_t i = s->nev++;
  event_t x = {t, s->seq++, id, kind};
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!ev_before(&x, &s->ev[p])) break;
    s->ev[i] = s->ev[p];
    i = p;
  }
  s->ev[i] = x;
  return 0;
}

static event_t ev_pop(sim_t *s) {
  event_t top = s->ev[0], x = s->ev[--s->nev];
  size_t i = 0, n = s->nev;
  for (;;) {
    size_t l = 2 * i + 1, m = i;
    const event_t *best = &x;
    if (l < n && ev_before(&s->ev[l], best)) m = l, best = &s->ev[l];
    if (l + 1 < n && ev_before(&s->ev[l + 1], best)) m = l + 1;
    if (m == i) break;
    s->ev[i] = s->ev[m];
    i = m;
  }
  if (n) s->ev[i] = x;
  return top;
}

/* An event `delay` after now. */
static int ev_after(sim_t *s, double delay, int kind, int id) {
  int f = -1;
  for (int i = 0; i < s->nfifo; i++)
    if (s->fifo[i].delay == delay) {
      f = i;
      break;
    }
  if (f < 0) {
    if (s->nfifo == SIM_EV_FIFOS) return ev_push(s, s->now + delay, kind, id);
    f = s->nfifo++;
    s->fifo[f].delay = delay;
    s->fifo[f].head = s->fifo[f].n = 0;
  }
  ev_fifo_t *q = &s->fifo[f];
  if (q->n == q->cap) {
    size_t c = q->cap ? q->cap * 2 : 256;
    event_t *e = malloc(sizeof *e * c);
    if (!e) return -1;
    for (size_t i = 0; i < q->n; i++) e[i] = q->q[(q->head + i) & (q->cap - 1)];
    free(q->q);
    q->q = e;
    q->cap = c;
    q->head = 0;
  }
  event_t x = {s->now + delay, s->seq++, id, kind};
  q->q[(q->head + q->n) & (q->cap - 1)] = x;
  if (q->n++ == 0) s->fhead[f] = x;
  return 0;
}

/* Where the next event is: a FIFO's index, -1 the heap, -2 none. */
static inline int ev_next(const sim_t *s) {
  const event_t *best = s->nev ? &s->ev[0] : NULL;
  int w = best ? -1 : -2;
  for (int i = 0; i < s->nfifo; i++)
    if (s->fifo[i].n && (!best || ev_before(&s->fhead[i], best))) best = &s->fhead[i], w = i;
  return w;
}

static event_t ev_take(sim_t *s, int w) {
  if (w < 0) return ev_pop(s);
  ev_fifo_t *q = &s->fifo[w];
  event_t e = s->fhead[w];
  q->head = (q->head + 1) & (q->cap - 1);
  if (--q->n) s->fhead[w] = q->q[q->head];
  return e;
}

static inline void wake(sim_t *s, int thr) {
  if (s->queued[thr]) return;
  s->queued[thr] = 1;
  s->rq[s->rq_tail++ % s->rq_cap] = thr;
}

/* --- setup --- */

static int cmp_pair(const void *a, const void *b) {
  const int32_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int find_conn(const int32_t *peers, const int32_t *ids, int n, int peer) {
  int lo = 0, hi = n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (peers[mid] == peer) return ids[mid];
    if (peers[mid] < peer) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/* Collect each thread's distinct peers in one direction, sorted. */
static chorus_result_t collect_peers(sim_t *s, int out, int32_t **peers_out, int *total) {
  const plan_t *p = s->p;
  int32_t *stamp = malloc(sizeof *stamp * p->nranks);
  size_t cap = 1024, n = 0;
  int32_t *pairs = malloc(sizeof *pairs * 2 * cap);
  if (!stamp || !pairs) {
    free(stamp);
    free(pairs);
    return chorus_out_of_memory;
  }
  for (int r = 0; r < p->nranks; r++) stamp[r] = -1;
  for (int th = 0; th < s->nthr; th++) {
    int rank = th / p->nchannels, ch = th % p->nchannels;
    const plan_prog_t *pg = plan_prog(p, rank, ch);
    const plan_op_t *ops = plan_prog_ops(p, rank, ch);
    size_t first = n;
    for (uint32_t i = 0; i < pg->count; i++) {
      int peer = out ? (plan_op_sends(ops[i].code) ? ops[i].send_peer : -1)
                     : (plan_op_receives(ops[i].code) ? ops[i].recv_peer : -1);
      if (peer < 0 || peer >= p->nranks || stamp[peer] == th) continue;
      stamp[peer] = th;
      if (n == cap) {
        int32_t *q = realloc(pairs, sizeof *pairs * 4 * cap);
        if (!q) {
          free(stamp);
          free(pairs);
          return chorus_out_of_memory;
        }
        pairs = q;
        cap *= 2;
      }
      pairs[2 * n] = peer;
      pairs[2 * n + 1] = th;
      n++;
    }
    qsort(pairs + 2 * first, n - first, 2 * sizeof *pairs, cmp_pair);
    if (out) s->thr[th].out_first = (int32_t)first, s->thr[th].out_n = (int32_t)(n - first);
    else s->thr[th].in_first = (int32_t)first, s->thr[th].in_n = (int32_t)(n - first);
  }
  free(stamp);
  *peers_out = pairs;
  *total = (int)n;
  return chorus_success;
}

static chorus_result_t route_all(sim_t *s, char *err, size_t errlen) {
  const topo_t *t = s->t;
  const plan_t *p = s->p;
  /* Group connections by destination device; one router per device. */
  int nd = t->ndevs;
  int *first = calloc(nd + 1, sizeof *first), *order = malloc(sizeof *order * (s->nconn + 1));
  int32_t *buf = malloc(sizeof *buf * (2 * t->ndevs + 2));
  if (!first || !order || !buf) {
    free(first), free(order), free(buf);
    return chorus_out_of_memory;
  }
  for (int c = 0; c < s->nconn; c++) first[t->rank_dev[s->conn[c].dst_thr / p->nchannels] + 1]++;
  for (int d = 0; d < nd; d++) first[d + 1] += first[d];
  int *fill = calloc(nd + 1, sizeof *fill);
  if (!fill) {
    free(first), free(order), free(buf);
    return chorus_out_of_memory;
  }
  for (int c = 0; c < s->nconn; c++) {
    int d = t->rank_dev[s->conn[c].dst_thr / p->nchannels];
    order[first[d] + fill[d]++] = c;
  }
  free(fill);
  size_t cap = (size_t)s->nconn * 4 + 16;
  s->routes = malloc(sizeof *s->routes * cap);
  chorus_result_t res = s->routes ? chorus_success : chorus_out_of_memory;
  topo_router_t *r = NULL;
  topo_pathfinder_t *pf = NULL;
  for (int d = 0; res == chorus_success && d < nd; d++) {
    if (first[d] == first[d + 1]) continue;
    /* A destination with few sources (a ring's one or two) is routed pair
     * by pair: one search from it would cover every device nearer than its
     * sources, on a large fabric nearly all of them. Many sources share the
     * one search instead. Both give the same routes. */
    int pairs = first[d + 1] - first[d] <= SIM_PAIR_ROUTES;
    if (pairs) res = pf ? chorus_success : topo_pathfinder_create(&pf, t);
    else res = r ? topo_router_retarget(r, d) : topo_router_create(&r, t, d);
    if (res != chorus_success) break;
    for (int i = first[d]; i < first[d + 1]; i++) {
      conn_t *c = &s->conn[order[i]];
      int sr = c->src_thr / p->nchannels, dr = c->dst_thr / p->nchannels, ch = c->src_thr % p->nchannels;
      double lat;
      uint64_t key = topo_flow_key(sr, dr, ch);
      int len = pairs ? topo_route_pair(pf, t->rank_dev[sr], d, key, buf, &lat)
                      : topo_router_route(r, t->rank_dev[sr], key, buf, &lat);
      if (len == -2) {
        res = chorus_out_of_memory;
        break;
      }
      if (len < 0) {
        snprintf(err, errlen, "rank %d (on %s) cannot reach rank %d (on %s): no route in %s", sr,
                 t->devs[t->rank_dev[sr]].name, dr, t->devs[d].name, t->path);
        res = chorus_invalid_argument;
        break;
      }
      if (s->nroutes + len > cap) {
        while (s->nroutes + len > cap) cap *= 2;
        int32_t *q = realloc(s->routes, sizeof *q * cap);
        if (!q) {
          res = chorus_out_of_memory;
          break;
        }
        s->routes = q;
      }
      memcpy(s->routes + s->nroutes, buf, sizeof *buf * len);
      c->route_off = (int32_t)s->nroutes;
      c->route_len = len;
      c->lat = lat;
      s->nroutes += len;
    }
  }
  topo_router_destroy(r);
  topo_pathfinder_destroy(pf);
  free(first), free(order), free(buf);
  return res;
}

static chorus_result_t sim_create_ex(sim_t **out, const topo_t *t, const plan_t *p, const sim_opts_t *o,
                                     const double *fixed_cap, double fixed_lat, char *err, size_t errlen) {
  *out = NULL;
  if (p->nranks > t->nranks) {
    snprintf(err, errlen, "the plan has %d ranks but %s places only %d", p->nranks, t->path, t->nranks);
    return chorus_invalid_argument;
  }
  sim_t *s = calloc(1, sizeof *s);
  if (!s) return chorus_out_of_memory;
  s->t = t;
  s->p = p;
  s->o = *o;
  if (!s->o.buffsize) s->o.buffsize = SIM_DEFAULT_BUFFSIZE;
  if (!s->o.nsteps) s->o.nsteps = SIM_DEFAULT_NSTEPS;
  if (!s->o.min_step) s->o.min_step = SIM_DEFAULT_MIN_STEP;
  if (!s->o.steps_per_chunk) s->o.steps_per_chunk = s->o.nsteps / PLAN_SLOT_CHUNKS;
  chorus_result_t res = chorus_success;
  if (s->o.nsteps < PLAN_SLOT_CHUNKS || s->o.nsteps > SIM_MAX_NSTEPS || s->o.steps_per_chunk < 1 ||
      s->o.steps_per_chunk * PLAN_SLOT_CHUNKS > s->o.nsteps) {
    snprintf(err, errlen, "steps per connection must be %d..%d and hold %d chunks of up to %d steps", PLAN_SLOT_CHUNKS,
             SIM_MAX_NSTEPS, PLAN_SLOT_CHUNKS, s->o.steps_per_chunk);
    res = chorus_invalid_argument;
    goto fail;
  }
  s->nthr = p->nranks * p->nchannels;
  s->thr = calloc(s->nthr, sizeof *s->thr);
  s->queued = calloc(s->nthr, 1);
  s->rq_cap = (size_t)s->nthr + 1;
  s->rq = malloc(sizeof *s->rq * s->rq_cap);
  if (!s->thr || !s->queued || !s->rq) goto oom;
  int nout, nin;
  int32_t *outp = NULL, *inp = NULL;
  if ((res = collect_peers(s, 1, &outp, &nout)) != chorus_success) goto fail;
  if ((res = collect_peers(s, 0, &inp, &nin)) != chorus_success) {
    free(outp);
    goto fail;
  }
  s->nconn = nout;
  s->conn = calloc(nout + 1, sizeof *s->conn);
  s->conn_peer_out = malloc(sizeof(int32_t) * (nout + 1));
  s->conn_id_out = malloc(sizeof(int32_t) * (nout + 1));
  s->conn_peer_in = malloc(sizeof(int32_t) * (nin + 1));
  s->conn_id_in = malloc(sizeof(int32_t) * (nin + 1));
  if (!s->conn || !s->conn_peer_out || !s->conn_id_out || !s->conn_peer_in || !s->conn_id_in) {
    free(outp), free(inp);
    goto oom;
  }
  for (int i = 0; i < nout; i++) {
    int peer = outp[2 * i], th = outp[2 * i + 1];
    s->conn_peer_out[i] = peer;
    s->conn_id_out[i] = i;
    s->conn[i].src_thr = th;
    s->conn[i].dst_thr = peer * p->nchannels + th % p->nchannels;
  }
  for (int i = 0; i < nin; i++) {
    int peer = inp[2 * i], th = inp[2 * i + 1];
    int sth = peer * p->nchannels + th % p->nchannels;
    int c = find_conn(s->conn_peer_out + s->thr[sth].out_first, s->conn_id_out + s->thr[sth].out_first,
                      s->thr[sth].out_n, th / p->nchannels);
    if (c < 0) {
      snprintf(err, errlen, "rank %d channel %d receives from rank %d, which never sends to it", th / p->nchannels,
               th % p->nchannels, peer);
      free(outp), free(inp);
      res = chorus_invalid_argument;
      goto fail;
    }
    s->conn_peer_in[i] = peer;
    s->conn_id_in[i] = c;
  }
  free(outp), free(inp);
  if (fixed_cap) {
    /* One resource per channel: each channel's connection has the share. */
    s->nres = p->nchannels;
    s->cap = malloc(sizeof *s->cap * s->nres);
    s->routes = malloc(sizeof *s->routes * s->nres);
    if (!s->cap || !s->routes) goto oom;
    for (int ch = 0; ch < s->nres; ch++) s->cap[ch] = *fixed_cap, s->routes[ch] = ch;
    for (int c = 0; c < s->nconn; c++) {
      s->conn[c].route_off = s->conn[c].src_thr % p->nchannels;
      s->conn[c].route_len = 1;
      s->conn[c].lat = fixed_lat;
    }
  } else {
    s->nres = topo_nres(t);
    s->cap = malloc(sizeof *s->cap * (s->nres + 1));
    if (!s->cap) goto oom;
    for (int r = 0; r < s->nres; r++) s->cap[r] = topo_res_cap(t, r);
    if ((res = route_all(s, err, errlen)) != chorus_success) goto fail;
  }
  s->slots = malloc(sizeof *s->slots * ((size_t)s->nconn * s->o.nsteps + 1));
  s->res_bytes = calloc(s->nres + 1, sizeof *s->res_bytes);
  s->res_busy = calloc(s->nres + 1, sizeof *s->res_busy);
  if (!s->slots || !s->res_bytes || !s->res_busy) goto oom;
  if (p->scratch_chunks && !(s->scratch_len = calloc((size_t)s->nthr * p->scratch_chunks, sizeof(double))))
    goto oom;
  *out = s;
  return chorus_success;
oom:
  res = chorus_out_of_memory;
  snprintf(err, errlen, "out of memory preparing the simulation of %d ranks", p->nranks);
fail:
  sim_destroy(s);
  return res;
}

chorus_result_t sim_create(sim_t **out, const topo_t *t, const plan_t *p, const sim_opts_t *o, char *err,
                           size_t errlen) {
  return sim_create_ex(out, t, p, o, NULL, 0, err, errlen);
}

void sim_destroy(sim_t *s) {
  if (!s) return;
  sim_net_destroy(s->net);
  free(s->thr), free(s->queued), free(s->rq), free(s->conn);
  free(s->conn_peer_out), free(s->conn_id_out), free(s->conn_peer_in), free(s->conn_id_in);
  free(s->routes), free(s->cap), free(s->slots), free(s->scratch_len);
  for (int i = 0; i < SIM_EV_FIFOS; i++) free(s->fifo[i].q);
  free(s->ev), free(s->spans), free(s->res_bytes), free(s->res_busy);
  free(s);
}

/* --- geometry --- */

static inline size_t round_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* Bytes of chunk c of buffer `buf` for this thread in its current iteration. */
static inline double chunk_len(const sim_t *s, int th, const thr_t *T, int buf, int c) {
  int ch = th % s->p->nchannels;
  if (buf == PLAN_BUF_SCRATCH) return s->scratch_len[(size_t)th * s->p->scratch_chunks + c];
  int k = s->p->nchunks, q = c % k;
  size_t pos = (size_t)T->iter * k * s->ce[ch] + (size_t)q * s->ce[ch];
  size_t n = pos >= s->part_len[ch] ? 0 : s->part_len[ch] - pos;
  if (n > s->ce[ch]) n = s->ce[ch];
  return (double)(n * s->es);
}

/* The executor's piece size for a chunk of len bytes. */
static inline size_t piece_size(const sim_t *s, size_t len) {
  size_t step = s->step_bytes;
  size_t np = (len + step - 1) / step;
  size_t want = (len + s->min_step - 1) / s->min_step;
  if (want > (size_t)s->spc) want = s->spc;
  if (np < want) np = want;
  if (np < 1) np = 1;
  size_t p = round_up((len + np - 1) / np, SIM_ALIGN);
  return p > step ? step : p ? p : SIM_ALIGN;
}

/* --- connections --- */

/* A step has left: it arrives lat later. Arrivals are not events of their
 * own: the receiver reads the arrival time when it looks, and only a
 * receiver already waiting gets woken (at once, or by an event at the
 * arrival time). */
static inline void conn_left(sim_t *s, int id) {
  conn_t *c = &s->conn[id];
  s->slots[(size_t)id * s->nsteps + c->D % s->nsteps].arrive = s->now + c->lat;
  c->D++;
  if (c->wait_recv) {
    c->wait_recv = 0;
    if (c->lat <= 0) wake(s, c->dst_thr);
    else if (ev_after(s, c->lat, EV_ARRIVE, id)) s->fault = chorus_out_of_memory;
  }
}

static void conn_transmit(sim_t *s, int id) {
  conn_t *c = &s->conn[id];
  while (!c->tx && c->D < c->P) {
    uint32_t v = s->slots[(size_t)id * s->nsteps + c->D % s->nsteps].v;
    double bytes = (double)(v & ~SLOT_LAST) / s->eff;
    if (bytes <= 0) {
      conn_left(s, id);
      continue;
    }
    c->bytes += bytes;
    if (sim_net_start(s->net, s->now, s->routes + c->route_off, c->route_len, bytes, id) != chorus_success)
      s->fault = chorus_out_of_memory;
    c->tx = 1;
    if (s->o.trace) {
      fprintf(s->o.trace, "%s{\"name\":\"step\",\"ph\":\"B\",\"ts\":%.4f,\"pid\":%d,\"tid\":%d,\"args\":{\"bytes\":%u}}",
              s->trace_first ? "" : ",\n", s->now * 1e6, s->p->nranks, id, v & ~SLOT_LAST);
      s->trace_first = 0;
    }
  }
}

static void conn_sent(sim_t *s, int id) {
  conn_t *c = &s->conn[id];
  c->tx = 0;
  s->steps++;
  if (s->o.trace)
    fprintf(s->o.trace, ",\n{\"ph\":\"E\",\"ts\":%.4f,\"pid\":%d,\"tid\":%d}", s->now * 1e6, s->p->nranks, id);
  conn_left(s, id);
  conn_transmit(s, id);
}

static inline void conn_post(sim_t *s, int id, uint32_t v) {
  conn_t *c = &s->conn[id];
  s->slots[(size_t)id * s->nsteps + c->P % s->nsteps].v = v;
  c->P++;
  conn_transmit(s, id);
}

static inline void conn_release(sim_t *s, int id) {
  conn_t *c = &s->conn[id];
  c->C++;
  if (c->wait_send) {
    c->wait_send = 0;
    wake(s, c->src_thr);
  }
}

/* --- threads --- */

static void trace_op(sim_t *s, int th, const thr_t *T, const plan_op_t *op) {
  int rank = th / s->p->nchannels, ch = th % s->p->nchannels;
  if (s->o.trace) {
    int chunk = plan_op_writes_dst(op->code) ? op->dst_chunk : op->src_chunk;
    fprintf(s->o.trace,
            "%s{\"name\":\"%s\",\"ph\":\"X\",\"ts\":%.4f,\"dur\":%.4f,\"pid\":%d,\"tid\":%d,\"args\":{\"chunk\":%d,"
            "\"from\":%d,\"to\":%d,\"iter\":%u,\"wait_us\":%.4f}}",
            s->trace_first ? "" : ",\n", plan_op_name(op->code), T->t_op * 1e6, (s->now - T->t_op) * 1e6, rank, ch,
            chunk, op->recv_peer, op->send_peer, T->iter, (T->t_work - T->t_op) * 1e6);
    s->trace_first = 0;
  }
  if (rank < s->o.span_ranks) {
    if (s->nspans == s->spancap) {
      size_t c = s->spancap ? s->spancap * 2 : 4096;
      sim_span_t *q = realloc(s->spans, sizeof *q * c);
      if (!q) {
        s->fault = chorus_out_of_memory;
        return;
      }
      s->spans = q;
      s->spancap = c;
    }
    s->spans[s->nspans++] = (sim_span_t){rank, ch, op->code, T->t_op, T->t_work, s->now};
  }
}

static void thread_run(sim_t *s, int th) {
  thr_t *T = &s->thr[th];
  const plan_t *p = s->p;
  int rank = th / p->nchannels, ch = th % p->nchannels;
  const plan_prog_t *pg = plan_prog(p, rank, ch);
  const plan_op_t *ops = plan_prog_ops(p, rank, ch);
  const plan_op_t *op = &T->cur;
  for (;;) {
    if (T->state == ST_DONE) return;
    if (T->op == pg->count) {
      T->op = 0;
      if (++T->iter >= s->niter[ch] || pg->count == 0) {
        T->state = ST_DONE;
        s->done_threads++;
        if (s->now > s->end) s->end = s->now;
        return;
      }
    }
    if (T->phase == 0) {
      T->cur = ops[T->op];
      /* Ask for the next op now: it is read when this one ends, later. */
      if (T->op + 1 < pg->count) __builtin_prefetch(&ops[T->op + 1]);
      T->t_op = T->t_step = s->now;
      T->t_work = -1;
      T->in = plan_op_receives(op->code)
                  ? find_conn(s->conn_peer_in + T->in_first, s->conn_id_in + T->in_first, T->in_n, op->recv_peer)
                  : -1;
      T->out = plan_op_sends(op->code)
                   ? find_conn(s->conn_peer_out + T->out_first, s->conn_id_out + T->out_first, T->out_n, op->send_peer)
                   : -1;
      if (op->code == PLAN_OP_SEND || op->code == PLAN_OP_COPY) {
        T->len = (uint64_t)chunk_len(s, th, T, op->src_buf, op->src_chunk);
        T->psize = piece_size(s, T->len);
        T->npieces = T->len ? (uint32_t)((T->len + T->psize - 1) / T->psize) : 1;
        T->piece = 0;
      }
      if (plan_op_writes_dst(op->code) && op->dst_buf == PLAN_BUF_SCRATCH)
        s->scratch_len[(size_t)th * p->scratch_chunks + op->dst_chunk] =
            op->code == PLAN_OP_COPY ? (double)T->len : 0;
      T->phase = 1;
      if (T->op_overhead > 0) {
        T->state = ST_BUSY;
        if (ev_after(s, T->op_overhead, EV_READY, th)) s->fault = chorus_out_of_memory;
        return;
      }
    }
    T->state = ST_RUN;
    int finished = 0;
    switch ((plan_opcode_t)op->code) {
    case PLAN_OP_SEND: {
      conn_t *out = &s->conn[T->out];
      while (T->piece < T->npieces) {
        if (out->P - out->C >= (uint32_t)s->nsteps) {
          T->state = ST_WAIT_OUT;
          out->wait_send = 1;
          return;
        }
        if (T->t_work < 0) T->t_work = s->now;
        uint64_t off = (uint64_t)T->piece * T->psize;
        uint64_t n = T->len - off < T->psize ? T->len - off : T->psize;
        T->piece++;
        conn_post(s, T->out, (uint32_t)n | (T->piece == T->npieces ? SLOT_LAST : 0));
      }
      finished = 1;
      break;
    }
    case PLAN_OP_COPY:
      if (T->phase == 1) {
        T->t_work = s->now;
        double cost = T->copy_bw > 0 ? (double)T->len / T->copy_bw : 0;
        T->phase = 2;
        if (cost > 0) {
          T->state = ST_BUSY;
          if (ev_after(s, cost, EV_READY, th)) s->fault = chorus_out_of_memory;
          return;
        }
      }
      finished = 1;
      break;
    default: {
      conn_t *in = &s->conn[T->in];
      int sends = T->out >= 0;
      for (;;) {
        if (T->phase == 2) {
          /* The step worked on is done: forward it, free its slot. */
          uint32_t v = T->pend;
          T->phase = 1;
          if (sends) conn_post(s, T->out, v);
          conn_release(s, T->in);
          if (plan_op_writes_dst(op->code) && op->dst_buf == PLAN_BUF_SCRATCH)
            s->scratch_len[(size_t)th * p->scratch_chunks + op->dst_chunk] += v & ~SLOT_LAST;
          if (v & SLOT_LAST) {
            finished = 1;
            break;
          }
        }
        if (in->C == in->D) {
          T->state = ST_WAIT_IN;
          in->wait_recv = 1;
          return;
        }
        double ta = s->slots[(size_t)T->in * s->nsteps + in->C % s->nsteps].arrive;
        if (ta > s->now) {
          T->state = ST_WAIT_IN;
          if (ev_push(s, ta, EV_ARRIVE, T->in)) s->fault = chorus_out_of_memory;
          return;
        }
        if (sends) {
          conn_t *out = &s->conn[T->out];
          if (out->P - out->C >= (uint32_t)s->nsteps) {
            T->state = ST_WAIT_OUT;
            out->wait_send = 1;
            return;
          }
        }
        if (T->t_work < 0) T->t_work = s->now;
        uint32_t v = s->slots[(size_t)T->in * s->nsteps + in->C % s->nsteps].v;
        T->pend = v;
        T->phase = 2;
        int reduces = op->code == PLAN_OP_RECV_REDUCE || op->code == PLAN_OP_RECV_REDUCE_SEND ||
                      op->code == PLAN_OP_RECV_REDUCE_COPY_SEND;
        double bw = reduces ? T->reduce_bw : T->copy_bw;
        double cost = bw > 0 ? (double)(v & ~SLOT_LAST) / bw : 0;
        if (cost > 0) {
          T->state = ST_BUSY;
          if (ev_after(s, cost, EV_READY, th)) s->fault = chorus_out_of_memory;
          return;
        }
      }
      break;
    }
    }
    if (finished) {
      if (T->t_work < 0) T->t_work = s->now;
      if (s->o.trace || rank < s->o.span_ranks) trace_op(s, th, T, op);
      T->op++;
      T->phase = 0;
    }
  }
}

static void drain(sim_t *s) {
  while (s->rq_head != s->rq_tail) {
    int th = s->rq[s->rq_head++ % s->rq_cap];
    s->queued[th] = 0;
    thread_run(s, th);
  }
}

chorus_result_t sim_run(sim_t *s, size_t count, chorus_dtype_t dt, sim_result_t *res, char *err, size_t errlen) {
  memset(res, 0, sizeof *res);
  const plan_t *p = s->p;
  s->es = sim_dtype_size(dt);
  s->count = count;
  size_t buff = s->o.buffsize;
  size_t unit = (size_t)s->o.nsteps * SIM_ALIGN;
  if (buff < unit * 16) buff = unit * 16;
  buff -= buff % unit;
  s->nsteps = s->o.nsteps;
  s->spc = s->o.steps_per_chunk;
  s->min_step = s->o.min_step;
  s->chunk_bytes = buff / PLAN_SLOT_CHUNKS;
  s->step_bytes = buff / s->nsteps;
  if (s->step_bytes >= SLOT_LAST) {
    snprintf(err, errlen, "steps of %zu bytes are too large (buffer %zu / %d steps)", s->step_bytes, buff, s->nsteps);
    return chorus_invalid_argument;
  }
  s->eff = s->t->proto[s->o.proto].efficiency;
  size_t per = round_up((count + p->nchannels - 1) / p->nchannels * s->es, SIM_ALIGN);
  size_t chan_elems = per / s->es;
  size_t ce_max = s->chunk_bytes / s->es;
  for (int ch = 0; ch < p->nchannels; ch++) {
    size_t off = (size_t)ch * chan_elems;
    s->part_len[ch] = off >= count ? 0 : count - off;
    if (s->part_len[ch] > chan_elems) s->part_len[ch] = chan_elems;
    size_t want = round_up((s->part_len[ch] + p->nchunks - 1) / p->nchunks * s->es, SIM_ALIGN);
    s->ce[ch] = want / s->es < ce_max ? want / s->es : ce_max;
    if (s->ce[ch] == 0) s->ce[ch] = 1;
    size_t per_iter = (size_t)p->nchunks * s->ce[ch];
    s->niter[ch] = s->part_len[ch] ? (uint32_t)((s->part_len[ch] + per_iter - 1) / per_iter) : 0;
  }
  /* Fresh state for this call. */
  sim_net_destroy(s->net);
  s->net = NULL;
  if (sim_net_create(&s->net, s->nres, s->cap) != chorus_success) return chorus_out_of_memory;
  for (int c = 0; c < s->nconn; c++) {
    conn_t *k = &s->conn[c];
    k->P = k->D = k->C = 0;
    k->bytes = 0;
    k->tx = k->wait_send = k->wait_recv = 0;
  }
  double step_lat = s->t->proto[s->o.proto].step_lat;
  s->now = 0;
  s->end = 0;
  s->nev = 0;
  s->nfifo = 0;
  s->seq = s->events = s->steps = 0;
  s->rq_head = s->rq_tail = 0;
  s->done_threads = 0;
  s->fault = chorus_success;
  s->nspans = 0;
  s->trace_first = 1;
  memset(s->queued, 0, s->nthr);
  if (s->o.trace) {
    fprintf(s->o.trace, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    for (int r = 0; r < p->nranks; r++) {
      fprintf(s->o.trace, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"rank %d (%s)\"}}",
              s->trace_first ? "" : ",\n", r, r, s->t->devs[s->t->rank_dev[r]].name);
      s->trace_first = 0;
      for (int ch = 0; ch < p->nchannels; ch++)
        fprintf(s->o.trace, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"channel %d\"}}",
                r, ch, ch);
    }
    fprintf(s->o.trace, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"network\"}}",
            p->nranks);
    for (int c = 0; c < s->nconn; c++)
      fprintf(s->o.trace, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%d -> %d ch %d\"}}",
              p->nranks, c, s->conn[c].src_thr / p->nchannels, s->conn[c].dst_thr / p->nchannels,
              s->conn[c].src_thr % p->nchannels);
  }
  for (int th = 0; th < s->nthr; th++) {
    thr_t *T = &s->thr[th];
    int32_t of = T->out_first, on = T->out_n, inf = T->in_first, inn = T->in_n;
    memset(T, 0, sizeof *T);
    T->out_first = of, T->out_n = on, T->in_first = inf, T->in_n = inn;
    T->in = T->out = -1;
    const topo_dev_t *dev = &s->t->devs[s->t->rank_dev[th / p->nchannels]];
    T->reduce_bw = dev->reduce_bw, T->copy_bw = dev->copy_bw, T->op_overhead = dev->op_overhead;
    if (s->niter[th % p->nchannels] == 0 || plan_prog(p, th / p->nchannels, th % p->nchannels)->count == 0) {
      T->state = ST_DONE;
      s->done_threads++;
      continue;
    }
    wake(s, th);
  }
  for (int c = 0; c < s->nconn; c++) s->conn[c].lat += step_lat;
  drain(s);
  while (s->fault == chorus_success) {
    double tn = sim_net_next(s->net);
    int w = ev_next(s);
    double te = w == -2 ? INFINITY : w == -1 ? s->ev[0].t : s->fhead[w].t;
    if (isinf(tn) && isinf(te)) break;
    s->events++;
    if (tn <= te) {
      int c = sim_net_pop(s->net, &s->now);
      conn_sent(s, c);
    } else {
      event_t e = ev_take(s, w);
      s->now = e.t;
      if (e.kind == EV_ARRIVE) {
        wake(s, s->conn[e.id].dst_thr);
      } else {
        s->thr[e.id].state = ST_RUN;
        wake(s, e.id);
      }
    }
    drain(s);
  }
  for (int c = 0; c < s->nconn; c++) s->conn[c].lat -= step_lat;
  if (s->o.trace) fprintf(s->o.trace, "\n]}\n");
  for (int r = 0; r < s->nres; r++) {
    s->res_busy[r] = sim_net_res_busy(s->net, r, s->end);
    s->res_bytes[r] = 0;
  }
  for (int c = 0; c < s->nconn; c++)
    for (int k = 0; k < s->conn[c].route_len; k++) s->res_bytes[s->routes[s->conn[c].route_off + k]] += s->conn[c].bytes;
  res->time = s->end;
  res->events = s->events;
  res->steps = s->steps;
  res->flows = sim_net_started(s->net);
  res->recomputes = sim_net_recomputes(s->net);
  res->peak_flows = sim_net_peak(s->net);
  if (s->fault != chorus_success) {
    snprintf(err, errlen, "out of memory during the simulation");
    return s->fault;
  }
  if (s->done_threads < s->nthr) {
    for (int th = 0; th < s->nthr; th++) {
      thr_t *T = &s->thr[th];
      if (T->state == ST_DONE) continue;
      const plan_op_t *op = &plan_prog_ops(p, th / p->nchannels, th % p->nchannels)[T->op];
      char what[160];
      plan_op_format(p, op, what, sizeof what);
      snprintf(err, errlen,
               "deadlock at %.3f us: rank %d channel %d waits %s in op %u (%s), iteration %u; %d of %d programs "
               "finished",
               s->now * 1e6, th / p->nchannels, th % p->nchannels,
               T->state == ST_WAIT_IN ? "for data" : "for a free slot", T->op, what, T->iter, s->done_threads, s->nthr);
      break;
    }
    return chorus_internal_error;
  }
  return chorus_success;
}

void sim_res_stats(const sim_t *s, int res, double *bytes, double *busy) {
  *bytes = s->res_bytes[res];
  *busy = s->res_busy[res];
}

const topo_t *sim_topo(const sim_t *s) { return s->t; }

const sim_span_t *sim_spans(const sim_t *s, size_t *n) {
  *n = s->nspans;
  return s->spans;
}

static const size_t dtype_sizes[chorus_num_dtypes] = {1, 1, 4, 4, 8, 8, 2, 2, 4, 8};
static const char *const dtype_names[chorus_num_dtypes] = {"int8",  "uint8", "int32",    "uint32", "int64",
                                                           "uint64", "half", "bfloat16", "float",  "double"};
static const char *const dtype_alias[chorus_num_dtypes] = {"char", "u8",   "int",  "u32",  "i64",
                                                           "u64",  "fp16", "bf16", "fp32", "fp64"};
static const char *const redop_names[chorus_num_redops] = {"sum", "prod", "min", "max", "avg"};

size_t sim_dtype_size(chorus_dtype_t dt) { return (unsigned)dt < chorus_num_dtypes ? dtype_sizes[dt] : 1; }
const char *sim_dtype_name(chorus_dtype_t dt) { return (unsigned)dt < chorus_num_dtypes ? dtype_names[dt] : "unknown"; }
const char *sim_redop_name(chorus_redop_t op) { return (unsigned)op < chorus_num_redops ? redop_names[op] : "unknown"; }

int sim_dtype_parse(const char *name, chorus_dtype_t *out) {
  for (int i = 0; i < chorus_num_dtypes; i++)
    if (!strcasecmp(name, dtype_names[i]) || !strcasecmp(name, dtype_alias[i])) return *out = (chorus_dtype_t)i, 0;
  if (!strcasecmp(name, "float32")) return *out = chorus_float32, 0;
  if (!strcasecmp(name, "float16")) return *out = chorus_float16, 0;
  if (!strcasecmp(name, "float64")) return *out = chorus_float64, 0;
  return -1;
}

int sim_redop_parse(const char *name, chorus_redop_t *out) {
  for (int i = 0; i < chorus_num_redops; i++)
    if (!strcasecmp(name, redop_names[i])) return *out = (chorus_redop_t)i, 0;
  return -1;
}

double sim_bus_factor(chorus_coll_t coll, int n) {
  switch (coll) {
  case chorus_allreduce: return n > 0 ? 2.0 * (n - 1) / n : 0;
  case chorus_allgather:
  case chorus_reducescatter:
  case chorus_alltoall: return n > 0 ? (double)(n - 1) / n : 0;
  default: return 1;
  }
}

/* --- analytic mode: the ring reduced to one rank by symmetry --- */

static chorus_result_t append(plan_t *p, int ch, int code, int sb, int sc, int db, int dc, int rp, int spr) {
  plan_op_t op = {.code = (uint8_t)code, .src_buf = (uint8_t)sb, .dst_buf = (uint8_t)db,
                  .src_chunk = sc, .dst_chunk = dc, .recv_peer = rp, .send_peer = spr};
  return plan_append(p, 0, ch, &op);
}

chorus_result_t sim_analytic_ring(const topo_t *t, chorus_coll_t coll, int n, int nch, size_t count,
                                  chorus_dtype_t dt, const sim_opts_t *o, sim_result_t *res, char *err,
                                  size_t errlen) {
  memset(res, 0, sizeof *res);
  if (coll != chorus_allreduce && coll != chorus_allgather && coll != chorus_reducescatter) {
    snprintf(err, errlen, "the analytic model covers ring allreduce, allgather and reducescatter, not %s "
                          "(use --model event)", chorus_coll_name(coll));
    return chorus_invalid_usage;
  }
  if (n < 2 || n > t->nranks || nch < 1 || nch > PLAN_MAX_CHANNELS) {
    snprintf(err, errlen, "the analytic ring needs 2..%d ranks and 1..%d channels", t->nranks, PLAN_MAX_CHANNELS);
    return chorus_invalid_argument;
  }
  /* The ring's bottleneck: every resource's capacity divided by the ring
   * connections (every channel's: even channels run r -> r+1, odd ones
   * r -> r-1, each with its own ECMP hash) crossing it; and the largest
   * route latency. */
  int nres = topo_nres(t);
  int *uses = calloc(nres, sizeof *uses);
  int32_t *buf = malloc(sizeof *buf * (2 * t->ndevs + 2));
  if (!uses || !buf) {
    free(uses), free(buf);
    return chorus_out_of_memory;
  }
  double lat = 0;
  chorus_result_t r = chorus_success;
  /* Each ring connection is its own (source, destination) pair. */
  topo_pathfinder_t *pf = NULL;
  r = topo_pathfinder_create(&pf, t);
  for (int src = 0; src < n && r == chorus_success; src++) {
    for (int dir = 0; dir < (nch > 1 ? 2 : 1) && r == chorus_success; dir++) {
      int dst = dir == 0 ? (src + 1) % n : (src + n - 1) % n;
      for (int ch = dir; ch < nch && r == chorus_success; ch += 2) {
        double l;
        int len = topo_route_pair(pf, t->rank_dev[src], t->rank_dev[dst], topo_flow_key(src, dst, ch), buf, &l);
        if (len == -2) {
          r = chorus_out_of_memory;
          break;
        }
        if (len < 0) {
          snprintf(err, errlen, "rank %d cannot reach rank %d in %s", src, dst, t->path);
          r = chorus_invalid_argument;
          break;
        }
        if (l > lat) lat = l;
        for (int k = 0; k < len; k++) uses[buf[k]]++;
      }
    }
  }
  double bw = INFINITY;
  for (int q = 0; q < nres; q++) {
    double cap = topo_res_cap(t, q);
    if (uses[q] && cap > 0 && cap / uses[q] < bw) bw = cap / uses[q];
  }
  topo_pathfinder_destroy(pf);
  free(uses), free(buf);
  if (r != chorus_success) return r;
  if (isinf(bw)) bw = 0;
  /* Rank 0's program of the n-rank ring (ring.lua), every peer mapped to
   * itself: by symmetry, what it receives is what it sent one step before. */
  plan_t *p = NULL;
  if ((r = plan_create(&p, coll, 1, nch, 0, NULL)) != chorus_success) return r;
  p->nchunks = coll == chorus_allreduce ? n : 1;
  plan_coll_units(coll, n, &p->in_units, &p->out_units);
  for (int ch = 0; ch < nch && r == chorus_success; ch++) {
    if (coll == chorus_allreduce) {
      r = append(p, ch, PLAN_OP_SEND, PLAN_BUF_INPUT, 0, 0, -1, -1, 0);
      for (int s = 1; s <= n - 2 && r == chorus_success; s++)
        r = append(p, ch, PLAN_OP_RECV_REDUCE_SEND, PLAN_BUF_INPUT, (n - s) % n, 0, -1, 0, 0);
      if (r == chorus_success)
        r = append(p, ch, PLAN_OP_RECV_REDUCE_COPY_SEND, PLAN_BUF_INPUT, 1 % n, PLAN_BUF_OUTPUT, 1 % n, 0, 0);
      for (int s = 1; s <= n - 2 && r == chorus_success; s++)
        r = append(p, ch, PLAN_OP_RECV_COPY_SEND, 0, -1, PLAN_BUF_OUTPUT, (1 - s + n) % n, 0, 0);
      if (r == chorus_success) r = append(p, ch, PLAN_OP_RECV, 0, -1, PLAN_BUF_OUTPUT, 2 % n, 0, -1);
    } else if (coll == chorus_allgather) {
      r = append(p, ch, PLAN_OP_SEND, PLAN_BUF_INPUT, 0, 0, -1, -1, 0);
      if (r == chorus_success) r = append(p, ch, PLAN_OP_COPY, PLAN_BUF_INPUT, 0, PLAN_BUF_OUTPUT, 0, -1, -1);
      for (int s = 1; s <= n - 2 && r == chorus_success; s++)
        r = append(p, ch, PLAN_OP_RECV_COPY_SEND, 0, -1, PLAN_BUF_OUTPUT, (n - s) % n, 0, 0);
      if (r == chorus_success) r = append(p, ch, PLAN_OP_RECV, 0, -1, PLAN_BUF_OUTPUT, 1 % n, 0, -1);
    } else {
      r = append(p, ch, PLAN_OP_SEND, PLAN_BUF_INPUT, n - 1, 0, -1, -1, 0);
      for (int s = 1; s <= n - 2 && r == chorus_success; s++)
        r = append(p, ch, PLAN_OP_RECV_REDUCE_SEND, PLAN_BUF_INPUT, (2 * n - 1 - s) % n, 0, -1, 0, 0);
      if (r == chorus_success)
        r = append(p, ch, PLAN_OP_RECV_REDUCE, PLAN_BUF_INPUT, 0, PLAN_BUF_OUTPUT, 0, 0, -1);
    }
  }
  sim_t *s = NULL;
  if (r == chorus_success) r = sim_create_ex(&s, t, p, o, &bw, lat, err, errlen);
  if (r == chorus_success) r = sim_run(s, count, dt, res, err, errlen);
  sim_destroy(s);
  plan_destroy(p);
  return r;
}
