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

#include "error.h"
#include "sim_evq.h"
#include "sim_net.h"
#include "topo_route.h"

/* Destinations with at most this many sources are routed pair by pair. */
#define SIM_PAIR_ROUTES 4

enum { ST_RUN = 0, ST_WAIT_IN, ST_WAIT_OUT, ST_BUSY, ST_DONE, ST_JOIN };
/* An event's kind: EV_NET is a step's flow end (id: the connection, its
 * route); the others wake thread id, and carry the connection it will read
 * first (plus one, 0: none) above the low two bits, so that its line is
 * asked for together with the thread's. */
enum { EV_ARRIVE = 0, EV_READY = 1, EV_NET = 2 };
#define EV_KIND(type, conn) ((type) | ((conn) + 1) << 2)
/* The simulator's events are numbered from 2^63 up, the network's flows
 * below: in the one queue, flows that end at the same time as an event of
 * the simulator come first (the network's state is settled before threads
 * look at it), and each kind keeps its own order. */
#define SEQ_EV ((uint64_t)1 << 63)

/* A connection and its slots, in one block of two cache lines (with the
 * default 8 slots): what every event of a step reads, the sender's and the
 * receiver's side alike. The header is followed by nsteps arrival times and
 * nsteps slot values (bytes | SLOT_LAST); a slot's value and arrival time
 * are what the step holds and when it arrives. */
typedef struct {
  uint32_t P, D, C; /* steps posted, transmitted, consumed */
  uint8_t tx;       /* a step is on the network */
  uint8_t wait_send, wait_recv;
  uint8_t own;       /* the sender's thread moves the steps itself (it waits for each to leave) */
  uint8_t wait_left; /* it waits until step left_upto - 1 has left */
  uint32_t left_upto;
  int8_t latq;              /* the event queue's FIFO for lat, -1 none */
  int32_t src_thr, dst_thr; /* sender and receiver threads */
  double lat;               /* route latency + protocol step latency */
} sim_conn_t;

/* What a connection's steps do not read. */
typedef struct {
  int32_t route_off, route_len;
  double route_lat; /* the route's latency (lat adds the protocol's per run) */
  double bytes;     /* bytes put on the wire in this run */
  uint8_t tcopy;    /* the sender's thread copies each step (one memory, sim.h): no flow on the route */
  uint8_t own_ok;   /* the sender's thread would move the steps itself if it had a step overhead: a
                     * rank without a memory model, on a route without a NIC (sim_conn_t.own) */
  double nic_share; /* 1 when the route crosses a NIC (its steps pay the protocol's net latency), else 0;
                     * a folded connection (fold_resources): the share of its copies that do */
  uint8_t hub;      /* its sender or receiver is a hub (plan.h): its steps pay no protocol latency or overhead,
                     * and no rank moves them itself (the switch pulls them, or is hardware) */
  uint8_t folded;   /* the node fold (plan/fold.h): it stands for a connection to another node, on a resource
                     * of its own (fold_resources) */
} conn_info_t;

/* An op as a thread runs it: the plan's op with its connections found, 16
 * bytes. A thread holds the next SIM_OP_WINDOW of its program, read from the
 * plan together: a large plan does not fit in the cache and its threads run
 * interleaved, so one op at a time would miss on nearly every op. */
typedef struct {
  uint8_t code, src_buf, dst_buf;
  uint8_t flags; /* OPF_* */
  union {
    int32_t in;        /* receiving ops: the connection */
    int32_t src_chunk; /* SEND, COPY */
  };
  int32_t out; /* the connection it sends on, -1 */
  int32_t dst_chunk;
} sim_op_t;

#define OPF_REDUCES 1     /* a receive that reduces (reduce_bw, not copy_bw) */
#define OPF_SCRATCH_DST 2 /* writes a scratch chunk */
/* Bits 2-3: the buffers of the rank's memory the op's work reads and writes
 * (0-2: src read, dst written, when not scratch), for the memory model. */
#define OPF_MEM_SHIFT 2
#define OPF_MEM(f) (((f) >> OPF_MEM_SHIFT) & 3)
/* The memory model: a receive that writes its dst and also sends on a
 * connection its thread copies (one memory) writes the result twice, as the
 * engine does (kern_reduce2, or a copy to dst and one to the slot): after
 * its work, a copy of the step at copy_bw that touches no buffer of memory
 * (the result was just written, the slot is in the cache). */
#define OPF_TWICE 16
/* A receive from a hub: its steps cost the thread its device's step_overhead
 * alone, no protocol overhead (topo_proto_t.hub_lat). */
#define OPF_FROM_HUB 32
/* The memory model's work classes of a thread: a copy between cores (into
 * a peer's slot, out of its own), a reduction, or a copy between the rank's
 * own buffers (a copy op, at copy_local_bw), touching 1 or 2 buffers of
 * memory per byte (sim.h). */
enum { WK_COPY1 = 0, WK_COPY2, WK_REDUCE1, WK_REDUCE2, WK_LCOPY1, WK_LCOPY2, WK_NCLASSES };
#define SIM_OP_WINDOW 16

/* A (rank, channel) thread. Line 0 is what every wake-up reads; line 1 what
 * an op's start and a send read; line 2 the window of ops; line 3 the times
 * a trace or a timeline records (only for the threads recorded). */
typedef struct {
  _Alignas(64) uint32_t op;
  uint32_t iter;
  uint32_t call;        /* of o.calls back to back */
  uint8_t state, phase; /* phase: 0 op not begun, 1 overhead paid, 2 work pending, 3 its second write (OPF_TWICE) */
  uint8_t record;       /* op spans are traced or kept */
  int8_t costq;         /* the event queue's FIFO for cost, -1 none */
  uint32_t pend;        /* the step being worked on: bytes | last flag */
  uint32_t count;       /* ops in the program */
  uint32_t wbase;       /* program index of win[0] */
  sim_op_t cur;         /* the op being run */
  double bw;            /* what a step of the current op costs: bytes / bw */
  double cost;          /* of a step of cost_v bytes (UINT32_MAX: none yet) */
  uint32_t cost_v;
  _Alignas(64) uint64_t len; /* current send length and piece size */
  uint64_t psize;
  uint32_t piece, npieces;
  /* the rank's device's costs, copied: the topology is not in the cache */
  double reduce_bw, copy_bw, op_overhead, lcopy_bw; /* lcopy_bw: copy_local_bw, or copy_bw */
  double dev_overhead;                              /* its device's step_overhead alone: a step from a hub's */
  double ovh;                                       /* the current op's per-step overhead */
  double step_overhead;                             /* per received step, before its bytes' cost (which
                                                     * connections it then moves itself: sim_conn_t.own) */
  double channel_wake;                              /* a channel's hand-over at a call's start and end */
  const plan_op_t *ops; /* the program in the plan */
  int32_t ch;
  int8_t ovq; /* the event queue's FIFO for op_overhead, -1 none */
  int32_t wroute; /* the memory model: its first work route (WK_NCLASSES of them), -1: not modelled */
  _Alignas(64) sim_op_t win[SIM_OP_WINDOW];
  _Alignas(64) double t_op, t_work;
} sim_thr_t;

/* This thread's connections, sorted by peer, in conn_peer_out/in. */
typedef struct {
  int32_t out_first, out_n, in_first, in_n;
} thr_conns_t;

struct sim {
  const topo_t *t;
  int *pdev; /* [nranks + nhubs] the device of each participant: rank r's t->rank_dev[r], hub i's t->hub_dev[i] */
  const plan_t *p;
  const plan_fold_t *fold; /* the node fold, NULL: none */
  sim_opts_t o;
  int nthr, nconn;
  sim_thr_t *thr;
  thr_conns_t *tconn;
  unsigned char *cmem; /* the connections' blocks, cstride bytes apart */
  size_t cstride;
  conn_info_t *cinfo;
  int32_t *conn_peer_out, *conn_id_out; /* per thread, sorted by peer */
  int32_t *conn_peer_in, *conn_id_in;
  int32_t *routes;
  size_t nroutes;
  double *scratch_len;
  sim_net_t *net;
  int nres;
  double *cap;
  /* the call being simulated */
  geom_conn_t conn;   /* the connections' buffer: slots, chunk and step sizes (core/geom.h) */
  geom_call_t call;   /* the call's cut: count, element size, channels' parts */
  uint32_t slot_mask; /* nsteps - 1 when a power of two, else 0 */
  int span_thr;       /* threads of the ranks whose spans are recorded */
  geom_chan_t chan[PLAN_MAX_CHANNELS]; /* each channel's part, chunk size and slices */
  double eff;
  double now;
  sim_evq_t evq; /* arrivals and the ends of computation */
  uint64_t seq, events, steps;
  int32_t *rq;
  size_t rq_head, rq_tail, rq_cap; /* ready threads: a ring of rq_cap (a power of two) */
  uint8_t *queued;
  double end, first_end; /* the last thread's end, and the last end of a first call */
  const topo_proto_t *size_lat; /* the protocol, when it has a latency by step size; else NULL */
  uint32_t size_lat_v;          /* the last step size looked up there (UINT32_MAX: none), and its latency */
  double size_lat_t;
  int done_threads;
  /* A rank's channels end a call together (the engine's executor waits for
   * its workers; a GPU kernel ends with its last block): per rank, the
   * channels that take part in its calls, and those that have ended the
   * current one. */
  int *join_need, *join_have;
  double *join_ch0; /* per rank, when its channel 0 ended the current call */
  chorus_result_t fault;
  sim_span_t *spans;
  size_t nspans, spancap;
  double *res_bytes, *res_busy;
  int trace_first;
  /* The memory model: threads on a device with `mem` do their own data
   * movement as flows over two resources, their own rate for the work class
   * and their memory; work route nconn + WK_NCLASSES * i + k is thread
   * wthr[i]'s class k, over wpath[2 * (that route - nconn)] (length wlen). */
  int nwthr;
  int32_t *wthr;
  int32_t *wpath;
  double *wbytes; /* per work route, this run */
};

#define SLOT_LAST 0x80000000u

static inline sim_conn_t *conn(const sim_t *s, int id) { return (sim_conn_t *)(s->cmem + (size_t)id * s->cstride); }
static inline uint32_t slot_of(const sim_t *s, uint32_t k) {
  return s->slot_mask ? k & s->slot_mask : k % (uint32_t)s->conn.nsteps;
}

/* Slot k's arrival time and value (k counts steps; the slot is k mod nsteps). */
static inline double *slot_arrive(const sim_t *s, sim_conn_t *c, uint32_t k) { return (double *)(c + 1) + slot_of(s, k); }
static inline uint32_t *slot_v(const sim_t *s, sim_conn_t *c, uint32_t k) {
  return (uint32_t *)((unsigned char *)(c + 1) + sizeof(double) * (size_t)s->conn.nsteps) + slot_of(s, k);
}

/* --- events --- */

static inline int ev_push(sim_t *s, double t, int kind, int id) {
  return sim_evq_push(&s->evq, t, SEQ_EV | s->seq++, id, kind);
}

/* An event `delay` after now. */
static inline int ev_after(sim_t *s, double delay, int kind, int id) {
  return sim_evq_after(&s->evq, s->now, delay, SEQ_EV | s->seq++, id, kind);
}

/* The same, through the FIFO q found for that delay (sim_evq_fifo; -1: none). */
static inline int ev_after_in(sim_t *s, int q, double delay, int kind, int id) {
  if (q < 0) return ev_after(s, delay, kind, id);
  return sim_evq_after_in(&s->evq, q, s->now, SEQ_EV | s->seq++, id, kind);
}

static inline void wake(sim_t *s, int thr) {
  if (s->queued[thr]) return;
  s->queued[thr] = 1;
  s->rq[s->rq_tail++ & (s->rq_cap - 1)] = thr;
}

/* --- setup --- */

/* Zeroed memory on 128-byte boundaries (a pair of cache lines, which the
 * hardware fetches together), for arrays of line-sized state. */
static void *cache_calloc(size_t n, size_t size) {
  if (size && n > (SIZE_MAX - 128) / size) return NULL;
  size_t bytes = (n * size + 127) / 128 * 128;
  void *q = aligned_alloc(128, bytes ? bytes : 128);
  if (q) memset(q, 0, bytes ? bytes : 128);
  return q;
}

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

/* Collect each thread's distinct peers it sends to (d = 0) and receives
 * from (d = 1), each sorted, in one pass over the plan (48 MB at 1024
 * ranks: a pass costs tens of milliseconds). */
static chorus_result_t collect_peers(sim_t *s, int32_t **pairs_out, int *total) {
  const plan_t *p = s->p;
  uint8_t dirs[256] = {0}; /* op code: 1 sends, 2 receives */
  for (int c = 0; c < PLAN_NUM_OPS; c++) dirs[c] = (uint8_t)(plan_op_sends(c) | plan_op_receives(c) << 1);
  int np = plan_nparts(p);
  int32_t *stamp[2] = {malloc(sizeof(int32_t) * np), malloc(sizeof(int32_t) * np)};
  size_t cap[2] = {1024, 1024}, n[2] = {0, 0};
  int32_t *pairs[2] = {malloc(sizeof(int32_t) * 2 * cap[0]), malloc(sizeof(int32_t) * 2 * cap[1])};
  chorus_result_t res = chorus_success;
  if (!stamp[0] || !stamp[1] || !pairs[0] || !pairs[1]) res = chorus_out_of_memory;
  for (int r = 0; res == chorus_success && r < np; r++) stamp[0][r] = stamp[1][r] = -1;
  for (int th = 0; res == chorus_success && th < s->nthr; th++) {
    int rank = th / p->nchannels, ch = th % p->nchannels;
    const plan_prog_t *pg = plan_prog(p, rank, ch);
    const plan_op_t *ops = plan_prog_ops(p, rank, ch);
    size_t first[2] = {n[0], n[1]};
    for (uint32_t i = 0; res == chorus_success && i < pg->count; i++) {
      for (int d = 0; d < 2; d++) {
        if (!(dirs[ops[i].code] & (1 << d))) continue;
        int peer = d ? ops[i].recv_peer : ops[i].send_peer;
        if (peer < 0 || peer >= np || stamp[d][peer] == th) continue;
        stamp[d][peer] = th;
        if (n[d] == cap[d]) {
          int32_t *q = realloc(pairs[d], sizeof(int32_t) * 4 * cap[d]);
          if (!q) {
            res = chorus_out_of_memory;
            break;
          }
          pairs[d] = q;
          cap[d] *= 2;
        }
        pairs[d][2 * n[d]] = peer;
        pairs[d][2 * n[d] + 1] = th;
        n[d]++;
      }
    }
    for (int d = 0; res == chorus_success && d < 2; d++)
      qsort(pairs[d] + 2 * first[d], n[d] - first[d], 2 * sizeof(int32_t), cmp_pair);
    s->tconn[th].out_first = (int32_t)first[0], s->tconn[th].out_n = (int32_t)(n[0] - first[0]);
    s->tconn[th].in_first = (int32_t)first[1], s->tconn[th].in_n = (int32_t)(n[1] - first[1]);
  }
  free(stamp[0]), free(stamp[1]);
  if (res != chorus_success) {
    free(pairs[0]), free(pairs[1]);
    return res;
  }
  for (int d = 0; d < 2; d++) pairs_out[d] = pairs[d], total[d] = (int)n[d];
  return chorus_success;
}

static chorus_result_t route_all(sim_t *s, char *err, size_t errlen) {
  const topo_t *t = s->t;
  const plan_t *p = s->p;
  /* Group connections by destination device; one router per device. */
  int nd = t->ndevs;
  int *first = calloc(nd + 1, sizeof *first), *order = malloc(sizeof *order * (s->nconn + 1));
  int32_t *buf = malloc(sizeof *buf * topo_route_conn_cap(t));
  if (!first || !order || !buf) {
    free(first), free(order), free(buf);
    return chorus_out_of_memory;
  }
  for (int c = 0; c < s->nconn; c++)
    if (!s->cinfo[c].folded) first[s->pdev[conn(s, c)->dst_thr / p->nchannels] + 1]++;
  for (int d = 0; d < nd; d++) first[d + 1] += first[d];
  int *fill = calloc(nd + 1, sizeof *fill);
  if (!fill) {
    free(first), free(order), free(buf);
    return chorus_out_of_memory;
  }
  for (int c = 0; c < s->nconn; c++) {
    if (s->cinfo[c].folded) continue;
    int d = s->pdev[conn(s, c)->dst_thr / p->nchannels];
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
    /* Between hosts with NICs a connection goes through its channel's NICs
     * (topo_route_conn), one pair at a time. */
    int via_nics = topo_host_nics(t, t->devs[d].host) > 0;
    res = pf ? chorus_success : topo_pathfinder_create(&pf, t);
    if (res == chorus_success && !pairs) res = r ? topo_router_retarget(r, d) : topo_router_create(&r, t, d);
    if (res != chorus_success) break;
    for (int i = first[d]; i < first[d + 1]; i++) {
      sim_conn_t *c = conn(s, order[i]);
      conn_info_t *ci = &s->cinfo[order[i]];
      int sr = c->src_thr / p->nchannels, dr = c->dst_thr / p->nchannels, ch = c->src_thr % p->nchannels;
      double lat;
      uint64_t key = topo_flow_key(sr, dr, ch);
      /* A hub is a switch: the shortest route to or from it. */
      int hub = plan_is_hub(p, sr) || plan_is_hub(p, dr);
      int cross = via_nics && !hub && t->devs[s->pdev[sr]].host != t->devs[d].host;
      int len = hub && pairs        ? topo_route_pair(pf, s->pdev[sr], d, key, buf, &lat)
                : pairs || cross    ? topo_route_conn(pf, sr, dr, ch, p->rail_nics, buf, &lat)
                                    : topo_router_route(r, s->pdev[sr], key, buf, &lat);
      if (len == -2) {
        res = chorus_out_of_memory;
        break;
      }
      if (len < 0) {
        snprintf(err, errlen, "%s %d (on %s) cannot reach %s %d (on %s): no route in %s",
                 plan_is_hub(p, sr) ? "hub" : "rank", plan_is_hub(p, sr) ? sr - p->nranks : sr,
                 t->devs[s->pdev[sr]].name, plan_is_hub(p, dr) ? "hub" : "rank",
                 plan_is_hub(p, dr) ? dr - p->nranks : dr, t->devs[d].name, t->path);
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
      ci->route_off = (int32_t)s->nroutes;
      ci->route_len = len;
      ci->route_lat = lat;
      s->nroutes += len;
    }
  }
  topo_router_destroy(r);
  topo_pathfinder_destroy(pf);
  free(first), free(order), free(buf);
  return res;
}

/* Out of memory while preparing s: the message, and the result. */
static chorus_result_t prep_oom(const sim_t *s, char *err, size_t errlen) {
  snprintf(err, errlen, "out of memory preparing the simulation of %d ranks", s->p->nranks);
  return chorus_out_of_memory;
}

/* The geometry options, defaulted to the engine's and checked; ranks on
 * GPUs are cut as NCCL cuts its Simple protocol (SIM_GPU_MAX_CHUNK), as
 * the GPU topologies describe NCCL's channels and per-step costs. */
static chorus_result_t check_opts(sim_t *s, char *err, size_t errlen) {
  if (!s->o.max_chunk) {
    int gpus = s->p->nranks > 0;
    for (int r = 0; r < s->p->nranks; r++) gpus &= s->t->devs[s->t->rank_dev[r]].kind == TOPO_GPU;
    s->o.max_chunk = gpus ? SIM_GPU_MAX_CHUNK : GEOM_MAX_CHUNK;
  }
  if (!s->o.buffsize) s->o.buffsize = GEOM_DEFAULT_BUFFSIZE;
  if (!s->o.nsteps) s->o.nsteps = GEOM_NSTEPS;
  if (!s->o.min_step) s->o.min_step = GEOM_MIN_STEP;
  if (!s->o.steps_per_chunk) s->o.steps_per_chunk = s->o.nsteps / GEOM_SLOT_CHUNKS;
  if (s->o.nsteps < GEOM_SLOT_CHUNKS || s->o.nsteps > SIM_MAX_NSTEPS || s->o.steps_per_chunk < 1 ||
      s->o.steps_per_chunk * GEOM_SLOT_CHUNKS > s->o.nsteps) {
    snprintf(err, errlen, "steps per connection must be %d..%d and hold %d chunks of up to %d steps", GEOM_SLOT_CHUNKS,
             SIM_MAX_NSTEPS, GEOM_SLOT_CHUNKS, s->o.steps_per_chunk);
    return chorus_invalid_argument;
  }
  if (s->p->window > s->o.nsteps) {
    snprintf(err, errlen, "algorithm %s needs connections that hold %d chunks (its window) but --steps %d holds %d",
             s->p->algo, s->p->window, s->o.nsteps, s->o.nsteps);
    return chorus_invalid_argument;
  }
  return chorus_success;
}

/* The threads (a rank's channel each) and the run queue. */
static chorus_result_t make_threads(sim_t *s, char *err, size_t errlen) {
  s->nthr = plan_nparts(s->p) * s->p->nchannels;
  s->thr = cache_calloc(s->nthr, sizeof *s->thr);
  s->tconn = calloc(s->nthr, sizeof *s->tconn);
  s->queued = calloc(s->nthr, 1);
  s->join_need = calloc((size_t)plan_nparts(s->p) + 1, sizeof *s->join_need);
  s->join_have = calloc((size_t)plan_nparts(s->p) + 1, sizeof *s->join_have);
  s->join_ch0 = calloc((size_t)plan_nparts(s->p) + 1, sizeof *s->join_ch0);
  for (s->rq_cap = 1; s->rq_cap <= (size_t)s->nthr; s->rq_cap *= 2) {}
  s->rq = malloc(sizeof *s->rq * s->rq_cap);
  if (!s->thr || !s->tconn || !s->queued || !s->rq || !s->join_need || !s->join_have || !s->join_ch0)
    return prep_oom(s, err, errlen);
  return chorus_success;
}

/* One connection per (sender thread, peer), and each receiver's view of
 * the connections it reads; a receive nobody sends to is an error. */
static chorus_result_t link_connections(sim_t *s, const int32_t *outp, int nout, const int32_t *inp, int nin,
                                        char *err, size_t errlen) {
  const plan_t *p = s->p;
  s->nconn = nout;
  s->cstride = (sizeof(sim_conn_t) + (sizeof(double) + sizeof(uint32_t)) * (size_t)s->o.nsteps + 63) / 64 * 64;
  s->cmem = cache_calloc(nout + 1, s->cstride);
  s->cinfo = calloc(nout + 1, sizeof *s->cinfo);
  s->conn_peer_out = malloc(sizeof(int32_t) * (nout + 1));
  s->conn_id_out = malloc(sizeof(int32_t) * (nout + 1));
  s->conn_peer_in = malloc(sizeof(int32_t) * (nin + 1));
  s->conn_id_in = malloc(sizeof(int32_t) * (nin + 1));
  if (!s->cmem || !s->cinfo || !s->conn_peer_out || !s->conn_id_out || !s->conn_peer_in || !s->conn_id_in)
    return prep_oom(s, err, errlen);
  for (int i = 0; i < nout; i++) {
    int peer = outp[2 * i], th = outp[2 * i + 1];
    s->conn_peer_out[i] = peer;
    s->conn_id_out[i] = i;
    conn(s, i)->src_thr = th;
    conn(s, i)->dst_thr = peer * p->nchannels + th % p->nchannels;
    s->cinfo[i].hub = (uint8_t)(plan_is_hub(p, th / p->nchannels) || plan_is_hub(p, peer));
  }
  for (int i = 0; i < nin; i++) {
    int peer = inp[2 * i], th = inp[2 * i + 1];
    int sth = peer * p->nchannels + th % p->nchannels;
    int c = find_conn(s->conn_peer_out + s->tconn[sth].out_first, s->conn_id_out + s->tconn[sth].out_first,
                      s->tconn[sth].out_n, th / p->nchannels);
    if (c < 0) {
      snprintf(err, errlen, "rank %d channel %d receives from rank %d, which never sends to it", th / p->nchannels,
               th % p->nchannels, peer);
      return chorus_invalid_argument;
    }
    s->conn_peer_in[i] = peer;
    s->conn_id_in[i] = c;
  }
  return chorus_success;
}

/* The topology's resources and routes, and the memory model: the threads
 * of ranks on a device with `mem`, and per thread a resource of its rate
 * for each work class. */
static chorus_result_t topo_resources(sim_t *s, char *err, size_t errlen) {
  const topo_t *t = s->t;
  const plan_t *p = s->p;
  for (int th = 0; th < s->nthr; th++) s->nwthr += t->devs[s->pdev[th / p->nchannels]].mem >= 0;
  int nbase = topo_nres_all(t);
  s->nres = nbase + WK_NCLASSES * s->nwthr;
  s->cap = malloc(sizeof *s->cap * (s->nres + 1));
  s->wthr = malloc(sizeof *s->wthr * (s->nwthr + 1));
  s->wpath = malloc(sizeof *s->wpath * (2 * WK_NCLASSES * s->nwthr + 1));
  s->wbytes = calloc(WK_NCLASSES * s->nwthr + 1, sizeof *s->wbytes);
  if (!s->cap || !s->wthr || !s->wpath || !s->wbytes) return prep_oom(s, err, errlen);
  for (int r = 0; r < nbase; r++) s->cap[r] = topo_res_cap(t, r);
  for (int th = 0, w = 0; th < s->nthr; th++) {
    const topo_dev_t *d = &t->devs[s->pdev[th / p->nchannels]];
    if (d->mem < 0) continue;
    for (int k = 0; k < WK_NCLASSES; k++) {
      int res_k = nbase + WK_NCLASSES * w + k, touches = 1 + (k == WK_COPY2 || k == WK_REDUCE2 || k == WK_LCOPY2);
      double rate = k < WK_REDUCE1   ? d->copy_bw
                    : k < WK_LCOPY1  ? d->reduce_bw
                    : d->copy_local_bw > 0 ? d->copy_local_bw
                                           : d->copy_bw;
      s->cap[res_k] = rate * touches; /* bytes of memory per second: 0 stays unlimited */
      s->wpath[2 * (WK_NCLASSES * w + k)] = res_k;
      s->wpath[2 * (WK_NCLASSES * w + k) + 1] = t->devs[d->mem].mem_res;
    }
    s->wthr[w++] = th;
  }
  TRY(route_all(s, err, errlen));
  /* A step between two ranks of one memory is the sender's copy. */
  for (int c = 0; c < s->nconn; c++) {
    int a = t->devs[s->pdev[conn(s, c)->src_thr / p->nchannels]].mem;
    s->cinfo[c].tcopy = a >= 0 && a == t->devs[s->pdev[conn(s, c)->dst_thr / p->nchannels]].mem;
  }
  /* A rank with a step overhead moves its own steps over NVLink and PCIe
   * (the GPU's stores); a route through a NIC is the NIC's to move (the
   * proxy posts it, several steps in flight). Whether it has one depends
   * on the protocol too: start_threads decides per run. */
  for (int c = 0; c < s->nconn; c++) {
    const topo_dev_t *src = &t->devs[s->pdev[conn(s, c)->src_thr / p->nchannels]];
    int nic = topo_route_crosses(t, s->routes + s->cinfo[c].route_off, s->cinfo[c].route_len, TOPO_NIC);
    /* What a GPU sends to a switch that reduces, the switch pulls
     * (NVLS's multimem.ld_reduce): no thread of the rank stores it. */
    s->cinfo[c].own_ok = (uint8_t)(src->mem < 0 && !nic && !s->cinfo[c].hub);
    s->cinfo[c].nic_share = nic;
  }
  return chorus_success;
}

/* The rank connection c goes to in the whole job: under the node fold, the
 * one its send stands for (plan/fold.h); else its receiver. */
static int fold_dest(const sim_t *s, int c) {
  const sim_conn_t *k = conn(s, c);
  int nch = s->p->nchannels, peer = k->dst_thr / nch;
  if (!s->fold || plan_is_hub(s->p, k->src_thr / nch) || plan_is_hub(s->p, peer)) return peer;
  return s->fold->peer_of[((size_t)(k->src_thr / nch) * nch + (size_t)(k->src_thr % nch)) * s->fold->node_ranks + peer];
}

/* Connection c's route moved k nodes on (topo_route_conn's result). */
static int fold_route(const sim_t *s, topo_pathfinder_t *pf, int c, int k, int32_t *buf, double *lat) {
  const plan_fold_t *f = s->fold;
  int nch = s->p->nchannels, src = conn(s, c)->src_thr / nch, ch = conn(s, c)->src_thr % nch;
  return topo_route_conn(pf, plan_fold_shift(src, k, f->nnodes, f->node_ranks),
                         plan_fold_shift(fold_dest(s, c), k, f->nnodes, f->node_ranks), ch, s->p->rail_nics, buf, lat);
}

/* A growable list of resources: the bundles' routes (sim_fill_bundles). */
typedef struct {
  int32_t *v;
  int64_t n, cap;
} res_list_t;

static int res_list_add(res_list_t *l, const int32_t *r, int len) {
  if (l->n + len > l->cap) {
    int64_t cap = l->cap ? l->cap : 1024;
    while (cap < l->n + len) cap *= 2;
    int32_t *v = realloc(l->v, sizeof *v * (size_t)cap);
    if (!v) return -1;
    l->v = v, l->cap = cap;
  }
  memcpy(l->v + l->n, r, sizeof *r * (size_t)len);
  l->n += len;
  return 0;
}

/* The node fold's network (plan/fold.h). Connections inside node 0 keep
 * the topology's routes, as the event model has them. A connection that
 * stands for sends to another node gets a resource of its own, of the rate
 * its copies on every node (moved k nodes on, k = 0 .. N-1) get together:
 * they move at one rate (each node waits on the one before), so the copies
 * are one bundle, and the bundles share the network max-min fairly
 * (sim_fill_bundles) -- with the copies' mean latency and share of NIC
 * crossings. Connections inside the nodes take part where they cross a
 * resource of those routes (a PCIe switch the NIC hangs off), but node 0's
 * own flows do not meet the resources of its own: where both kinds share a
 * link, the fold leans optimistic. */
static chorus_result_t fold_resources(sim_t *s, char *err, size_t errlen) {
  const topo_t *t = s->t;
  int N = s->fold->nnodes, nbase = topo_nres_all(t), nfold = 0;
  for (int c = 0; c < s->nconn; c++) nfold += s->cinfo[c].folded;
  if (!nfold) return chorus_success;
  uint8_t *hit = calloc((size_t)nbase + 1, 1);
  int32_t *buf = malloc(sizeof *buf * topo_route_conn_cap(t));
  double *base_cap = malloc(sizeof *base_cap * ((size_t)nbase + 1));
  int64_t *first = malloc(sizeof *first * ((size_t)s->nconn + 1));
  int *of = malloc(sizeof *of * ((size_t)s->nconn + 1)); /* the connection of each bundle */
  double *lat = calloc((size_t)s->nconn + 1, sizeof *lat), *nic = calloc((size_t)s->nconn + 1, sizeof *nic);
  double *rate = malloc(sizeof *rate * ((size_t)s->nconn + 1));
  double *cap = realloc(s->cap, sizeof *cap * ((size_t)s->nres + nfold + 1));
  if (cap) s->cap = cap;
  int32_t *routes = realloc(s->routes, sizeof *routes * (s->nroutes + nfold + 1));
  if (routes) s->routes = routes;
  res_list_t all = {0};
  topo_pathfinder_t *pf = NULL;
  chorus_result_t r = hit && buf && base_cap && first && of && lat && nic && rate && cap && routes
                          ? topo_pathfinder_create(&pf, t)
                          : chorus_out_of_memory;
  int bad = -1, nb = 0;
  /* The bundles: each connection to another node, then each inside the
   * nodes that crosses a resource the first ones do. */
  for (int pass = 0; pass < 2 && r == chorus_success && bad < 0; pass++) {
    for (int c = 0; c < s->nconn && bad < 0 && r == chorus_success; c++) {
      if (s->cinfo[c].hub || s->cinfo[c].folded != (pass == 0)) continue;
      double l;
      /* Inside the nodes: whether copy 0 (and so every copy) crosses one
       * of the first ones' resources; its route is then kept as copy 0's. */
      int len0 = pass == 0 ? 0 : fold_route(s, pf, c, 0, buf, &l), shares = pass == 0;
      for (int i = 0; i < len0 && !shares; i++) shares = hit[buf[i]];
      if (!shares) continue;
      first[nb] = all.n, of[nb++] = c;
      for (int k = 0; k < N && bad < 0; k++) {
        int len = k == 0 && pass == 1 ? len0 : fold_route(s, pf, c, k, buf, &l);
        if (len < 0) {
          bad = c;
          break;
        }
        if (res_list_add(&all, buf, len)) {
          r = chorus_out_of_memory;
          break;
        }
        for (int i = 0; i < len; i++) hit[buf[i]] |= pass == 0;
        lat[c] += l / N;
        nic[c] += (double)topo_route_crosses(t, buf, len, TOPO_NIC) / N;
      }
    }
  }
  if (r == chorus_success && bad < 0) {
    first[nb] = all.n;
    for (int q = 0; q < nbase; q++) base_cap[q] = topo_res_cap(t, q);
    r = sim_fill_bundles(nbase, base_cap, nb, first, all.v, rate);
  }
  for (int b = 0, j = 0; b < nb && r == chorus_success && bad < 0; b++) {
    int c = of[b];
    if (!s->cinfo[c].folded) continue;
    conn_info_t *ci = &s->cinfo[c];
    s->cap[s->nres + j] = isinf(rate[b]) ? 0 : rate[b];
    s->routes[s->nroutes] = s->nres + j++;
    ci->route_off = (int32_t)s->nroutes++;
    ci->route_len = 1;
    ci->route_lat = lat[c];
    ci->nic_share = nic[c];
    ci->tcopy = 0;
    ci->own_ok = (uint8_t)(nic[c] < 0.5 && t->devs[s->pdev[conn(s, c)->src_thr / s->p->nchannels]].mem < 0);
  }
  if (bad >= 0) {
    int nch = s->p->nchannels;
    snprintf(err, errlen, "rank %d cannot reach rank %d (or one of their copies on other nodes) in %s",
             conn(s, bad)->src_thr / nch, fold_dest(s, bad), t->path);
    r = chorus_invalid_argument;
  }
  if (r == chorus_success) s->nres += nfold;
  topo_pathfinder_destroy(pf);
  free(hit), free(buf), free(base_cap), free(first), free(of), free(lat), free(nic), free(rate), free(all.v);
  return r == chorus_out_of_memory ? prep_oom(s, err, errlen) : r;
}

/* Where a plan's hubs run. Hubs in the network (plan.h hubs_in) take the
 * topology's hubs that belong to no host, in order. Hubs in the nodes that
 * divide evenly among them: hub i belongs to node i / (nhubs / nnodes) (a
 * script declares its hubs node by node) and runs on the (i mod that)-th
 * hub of that node's host, so that a node's hubs are its own host's switch
 * whatever else the topology holds; otherwise hub i on the topology's hub i. */
static chorus_result_t place_hubs(sim_t *s, char *err, size_t errlen) {
  const topo_t *t = s->t;
  const plan_t *p = s->p;
  int nn = p->shape.nnodes, per = p->nhubs % nn == 0 ? p->nhubs / nn : 0;
  if (p->hubs_in == PLAN_HUBS_IN_NETWORK) {
    int k = 0;
    for (int h = 0; h < t->nhubs && k < p->nhubs; h++)
      if (t->devs[t->hub_dev[h]].host < 0) s->pdev[p->nranks + k++] = t->hub_dev[h];
    if (k == p->nhubs) return chorus_success;
    snprintf(err, errlen,
             "algorithm %s needs %d hubs in the network (a switch that reduces, as SHARP does) but %s has %d "
             "(dgx-cluster: --set sharp=true)",
             p->algo, p->nhubs, t->path, k);
    return chorus_invalid_argument;
  }
  if (!per) {
    for (int i = 0; i < p->nhubs; i++) s->pdev[p->nranks + i] = t->hub_dev[i];
    return chorus_success;
  }
  /* The topology's hubs host by host, in order (a counting sort): each
   * node then finds its host's in one step, not a walk over all of them. */
  int *first = calloc((size_t)t->nhosts + 2, sizeof *first), *by_host = malloc(sizeof *by_host * (t->nhubs + 1));
  if (!first || !by_host) {
    free(first), free(by_host);
    snprintf(err, errlen, "out of memory placing %d hubs", p->nhubs);
    return chorus_out_of_memory;
  }
  /* Bucket host + 1 (0: no host) is counted at first[host + 2]; once the
   * hubs are dealt, host h's are by_host[first[h] .. first[h + 1] - 1]. */
  for (int h = 0; h < t->nhubs; h++) first[t->devs[t->hub_dev[h]].host + 2]++;
  for (int k = 0; k <= t->nhosts; k++) first[k + 1] += first[k];
  for (int h = 0; h < t->nhubs; h++) by_host[first[t->devs[t->hub_dev[h]].host + 1]++] = t->hub_dev[h];
  chorus_result_t res = chorus_success;
  for (int i = 0; i < p->nhubs && res == chorus_success; i++) {
    int node = i / per, host = t->devs[t->rank_dev[p->shape.node_first[node]]].host;
    int start = host >= 0 ? first[host] : 0, end = first[host + 1];
    if (end - start <= i % per) {
      snprintf(err, errlen,
               "algorithm %s needs %d hubs (a switch that reduces) on each of its %d nodes, but the host of node %d "
               "(%s) has fewer in %s",
               p->algo, per, nn, node, host >= 0 ? t->hosts[host] : "none", t->path);
      res = chorus_invalid_argument;
    } else {
      s->pdev[p->nranks + i] = by_host[start + i % per];
    }
  }
  free(first), free(by_host);
  return res;
}

static chorus_result_t sim_create_ex(sim_t **out, const topo_t *t, const plan_t *p, const plan_fold_t *fold,
                                     const sim_opts_t *o, char *err, size_t errlen) {
  *out = NULL;
  if (fold && (long long)fold->nnodes * fold->node_ranks > t->nranks) {
    snprintf(err, errlen, "a fold of %d nodes of %d ranks needs that many ranks, and %s places %d", fold->nnodes,
             fold->node_ranks, t->path, t->nranks);
    return chorus_invalid_argument;
  }
  if (p->nranks > t->nranks) {
    snprintf(err, errlen, "the plan has %d ranks but %s places only %d", p->nranks, t->path, t->nranks);
    return chorus_invalid_argument;
  }
  if (p->nhubs > t->nhubs) {
    snprintf(err, errlen,
             "algorithm %s needs %d hub%s (a switch that reduces) but %s declares %d: a topology names them with "
             "hub \"device\" (%s)",
             p->algo, p->nhubs, p->nhubs == 1 ? "" : "s", t->path, t->nhubs,
             p->hubs_in == PLAN_HUBS_IN_NETWORK
                 ? "SHARP needs a network switch that reduces: dgx-cluster --set sharp=true"
                 : "NVLink SHARP needs an NVSwitch that reduces: gpu h100 or newer");
    return chorus_invalid_argument;
  }
  sim_t *s = calloc(1, sizeof *s);
  if (!s) return chorus_out_of_memory;
  s->t = t;
  s->p = p;
  s->fold = fold;
  s->pdev = malloc(sizeof *s->pdev * ((size_t)plan_nparts(p) + 1));
  if (!s->pdev) {
    free(s);
    return chorus_out_of_memory;
  }
  for (int r = 0; r < p->nranks; r++) s->pdev[r] = t->rank_dev[r];
  if (place_hubs(s, err, errlen) != chorus_success) {
    free(s->pdev);
    free(s);
    return chorus_invalid_argument;
  }
  sim_evq_init(&s->evq);
  s->o = *o;
  int32_t *pairs[2] = {NULL, NULL};
  int npairs[2];
  chorus_result_t res;
  CHECK(check_opts(s, err, errlen));
  CHECK(make_threads(s, err, errlen));
  CHECK(collect_peers(s, pairs, npairs));
  res = link_connections(s, pairs[0], npairs[0], pairs[1], npairs[1], err, errlen);
  free(pairs[0]), free(pairs[1]);
  if (res != chorus_success) goto cleanup;
  for (int c = 0; fold && c < s->nconn; c++) {
    int g = fold_dest(s, c);
    s->cinfo[c].folded = (uint8_t)(g >= fold->node_ranks);
  }
  CHECK(topo_resources(s, err, errlen));
  if (fold) CHECK(fold_resources(s, err, errlen));
  s->res_bytes = calloc(s->nres + 1, sizeof *s->res_bytes);
  s->res_busy = calloc(s->nres + 1, sizeof *s->res_busy);
  if (p->scratch_chunks) s->scratch_len = calloc((size_t)s->nthr * p->scratch_chunks, sizeof(double));
  if (!s->res_bytes || !s->res_busy || (p->scratch_chunks && !s->scratch_len)) CHECK(prep_oom(s, err, errlen));
  *out = s;
  return chorus_success;
cleanup:
  sim_destroy(s);
  return res;
}

chorus_result_t sim_create(sim_t **out, const topo_t *t, const plan_t *p, const sim_opts_t *o, char *err,
                           size_t errlen) {
  return sim_create_ex(out, t, p, NULL, o, err, errlen);
}

chorus_result_t sim_create_folded(sim_t **out, const topo_t *t, const plan_fold_t *f, const sim_opts_t *o, char *err,
                                  size_t errlen) {
  return sim_create_ex(out, t, f->plan, f, o, err, errlen);
}

void sim_destroy(sim_t *s) {
  if (!s) return;
  sim_net_destroy(s->net);
  free(s->thr), free(s->tconn), free(s->queued), free(s->rq), free(s->cmem), free(s->cinfo);
  free(s->conn_peer_out), free(s->conn_id_out), free(s->conn_peer_in), free(s->conn_id_in);
  free(s->routes), free(s->cap), free(s->scratch_len);
  free(s->wthr), free(s->wpath), free(s->wbytes);
  sim_evq_fini(&s->evq);
  free(s->spans), free(s->res_bytes), free(s->res_busy);
  free(s->join_need), free(s->join_have), free(s->join_ch0);
  free(s->pdev);
  free(s);
}

/* --- geometry --- */

/* Chunk q of slice `slice` of channel ch's part: its first element in the
 * unit, and its elements (0 past the end of the part). */
static inline size_t chunk_span(const sim_t *s, int ch, uint32_t slice, int q, size_t *first) {
  const geom_chan_t *g = &s->chan[ch];
  size_t pos, n = geom_chunk_len(g->part_len, (size_t)slice * s->call.k * g->ce, q, g->ce, &pos);
  *first = g->part_off + pos;
  return n;
}

/* Bytes of chunk c of buffer `buf` for this thread in its current slice. */
static inline double chunk_len(const sim_t *s, int th, const sim_thr_t *T, int buf, int c) {
  if (buf == PLAN_BUF_SCRATCH) return s->scratch_len[(size_t)th * s->p->scratch_chunks + c];
  size_t first;
  return (double)(chunk_span(s, T->ch, T->iter, c % s->call.k, &first) * s->call.es);
}

/* The executor's piece size for a chunk of len bytes. */
static inline size_t piece_size(const sim_t *s, size_t len) {
  return geom_piece(len, s->conn.step_bytes, (size_t)s->conn.steps_per_chunk, s->conn.min_step);
}

/* Pieces of a chunk of len bytes cut psize at a time (an empty chunk moves
 * as one empty step), and the bytes of piece i with its offset. */
static inline uint32_t piece_count(uint64_t len, uint64_t psize) {
  return len ? (uint32_t)((len + psize - 1) / psize) : 1;
}

static inline uint64_t piece_bytes(uint64_t len, uint64_t psize, uint32_t i, uint64_t *off) {
  *off = (uint64_t)i * psize;
  return len - *off < psize ? len - *off : psize;
}

/* --- connections --- */

/* A step has left: it arrives lat later. Arrivals are not events of their
 * own: the receiver reads the arrival time when it looks, and only a
 * receiver already waiting gets woken (at once, or by an event at the
 * arrival time). */
static inline void conn_left(sim_t *s, int id) {
  sim_conn_t *c = conn(s, id);
  double lat = c->lat;
  if (s->size_lat) {
    /* The protocol's latency by step size: steps still arrive in order. */
    double prev = c->D > 0 ? *slot_arrive(s, c, c->D - 1) - s->now : 0;
    uint32_t v = *slot_v(s, c, c->D) & ~SLOT_LAST;
    if (v != s->size_lat_v) s->size_lat_v = v, s->size_lat_t = topo_proto_size_lat(s->size_lat, (double)v);
    lat += s->size_lat_t; /* steps are mostly of one size: looked up once */
    if (c->D > 0 && prev > lat) lat = prev;
  }
  *slot_arrive(s, c, c->D) = s->now + lat;
  c->D++;
  if (c->wait_left && (int32_t)(c->D - c->left_upto) >= 0) {
    c->wait_left = 0;
    wake(s, c->src_thr);
  }
  if (c->wait_recv) {
    c->wait_recv = 0;
    if (lat <= 0) wake(s, c->dst_thr);
    else if (lat != c->lat) {
      if (ev_after(s, lat, EV_KIND(EV_ARRIVE, id), c->dst_thr)) s->fault = chorus_out_of_memory;
    } else if (ev_after_in(s, c->latq, c->lat, EV_KIND(EV_ARRIVE, id), c->dst_thr))
      s->fault = chorus_out_of_memory;
  }
}

static void conn_transmit(sim_t *s, int id) {
  sim_conn_t *c = conn(s, id);
  while (!c->tx && c->D < c->P) {
    uint32_t v = *slot_v(s, c, c->D);
    double bytes = s->eff == 1 ? (double)(v & ~SLOT_LAST) : (double)(v & ~SLOT_LAST) / s->eff; /* x / 1 is x */
    if (bytes <= 0 || s->cinfo[id].tcopy) {
      conn_left(s, id);
      continue;
    }
    s->cinfo[id].bytes += bytes;
    if (sim_net_start_route(s->net, s->now, id, bytes, id) != chorus_success)
      s->fault = chorus_out_of_memory;
    c->tx = 1;
    if (s->o.trace) {
      fprintf(s->o.trace, "%s{\"name\":\"step\",\"ph\":\"B\",\"ts\":%.4f,\"pid\":%d,\"tid\":%d,\"args\":{\"bytes\":%u}}",
              s->trace_first ? "" : ",\n", s->now * 1e6, plan_nparts(s->p), id, v & ~SLOT_LAST);
      s->trace_first = 0;
    }
  }
}

static void conn_sent(sim_t *s, int id) {
  sim_conn_t *c = conn(s, id);
  c->tx = 0;
  s->steps++;
  if (s->o.trace)
    fprintf(s->o.trace, ",\n{\"ph\":\"E\",\"ts\":%.4f,\"pid\":%d,\"tid\":%d}", s->now * 1e6, plan_nparts(s->p), id);
  conn_left(s, id);
  conn_transmit(s, id);
}

static inline void conn_post(sim_t *s, int id, uint32_t v) {
  sim_conn_t *c = conn(s, id);
  *slot_v(s, c, c->P) = v;
  c->P++;
  conn_transmit(s, id);
}

static inline void conn_release(sim_t *s, int id) {
  sim_conn_t *c = conn(s, id);
  c->C++;
  if (c->wait_send) {
    c->wait_send = 0;
    wake(s, c->src_thr);
  }
}

/* A thread that moves its own steps (a GPU channel's thread block stores
 * them into the peer's buffer) is busy until the step it just posted on
 * connection id has left: 1 when it must wait (woken by conn_left). */
static inline int wait_until_left(sim_t *s, int id) {
  sim_conn_t *c = conn(s, id);
  if (!c->own || (int32_t)(c->D - c->P) >= 0) return 0;
  c->wait_left = 1;
  c->left_upto = c->P;
  return 1;
}

/* --- threads --- */

static void trace_op(sim_t *s, int th, const sim_thr_t *T, const plan_op_t *op) {
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

/* Read the thread's next ops, from T->op on, into its window. */
static void window_fill(sim_t *s, int th, sim_thr_t *T) {
  const thr_conns_t *tc = &s->tconn[th];
  uint32_t n = T->count - T->op < SIM_OP_WINDOW ? T->count - T->op : SIM_OP_WINDOW;
  T->wbase = T->op;
  for (uint32_t i = 0; i < n; i++) {
    const plan_op_t *o = &T->ops[T->op + i];
    sim_op_t *w = &T->win[i];
    w->code = o->code;
    w->src_buf = o->src_buf;
    w->dst_buf = o->dst_buf;
    w->flags = (o->code == PLAN_OP_RECV_REDUCE || o->code == PLAN_OP_RECV_REDUCE_SEND ||
                o->code == PLAN_OP_RECV_REDUCE_COPY_SEND
                    ? OPF_REDUCES
                    : 0) |
               (plan_op_writes_dst(o->code) && o->dst_buf == PLAN_BUF_SCRATCH ? OPF_SCRATCH_DST : 0);
    /* A receive reads its slot and a send writes the peer's, both in the
     * cache; a plain receive's src is not read. */
    int reads = o->code == PLAN_OP_SEND || o->code == PLAN_OP_COPY || (w->flags & OPF_REDUCES);
    int mem = (reads && o->src_buf != PLAN_BUF_SCRATCH) +
              (plan_op_writes_dst(o->code) && o->dst_buf != PLAN_BUF_SCRATCH);
    w->flags |= (uint8_t)(mem << OPF_MEM_SHIFT);
    if (plan_op_receives(o->code)) {
      w->in = find_conn(s->conn_peer_in + tc->in_first, s->conn_id_in + tc->in_first, tc->in_n, o->recv_peer);
      if (s->cinfo[w->in].hub) w->flags |= OPF_FROM_HUB;
    } else
      w->src_chunk = o->src_chunk;
    w->out = plan_op_sends(o->code)
                 ? find_conn(s->conn_peer_out + tc->out_first, s->conn_id_out + tc->out_first, tc->out_n, o->send_peer)
                 : -1;
    if (T->wroute >= 0 && plan_op_receives(o->code) && plan_op_writes_dst(o->code) && w->out >= 0 &&
        s->cinfo[w->out].tcopy)
      w->flags |= OPF_TWICE;
    w->dst_chunk = o->dst_chunk;
  }
}

/* The memory model: thread th works on `bytes` (copies them, or reduces
 * into them) touching `mem` buffers of its memory per byte. A work that
 * touches none costs bytes / rate as a fixed delay; the others are flows of
 * mem x bytes over the thread's rate for the class (mem x rate) and its
 * memory. Returns 1 when the thread now waits for the work's end. */
static int thr_work(sim_t *s, int th, sim_thr_t *T, double bytes, int cls, int mem, int first_conn) {
  if (bytes <= 0) return 0;
  if (mem == 0) {
    double rate = cls == WK_REDUCE1 ? T->reduce_bw : cls == WK_LCOPY1 ? T->lcopy_bw : T->copy_bw;
    if (!(rate > 0)) return 0;
    T->state = ST_BUSY;
    if (ev_after(s, bytes / rate, EV_KIND(EV_READY, first_conn), th)) s->fault = chorus_out_of_memory;
    return 1;
  }
  int route = T->wroute + cls + mem - 1;
  if (!(s->cap[s->wpath[2 * (route - s->nconn)]] > 0) && !(s->cap[s->wpath[2 * (route - s->nconn) + 1]] > 0))
    return 0; /* neither the thread nor its memory limits it */
  s->wbytes[route - s->nconn] += bytes * mem;
  if (sim_net_start_route(s->net, s->now, route, bytes * mem, route) != chorus_success) s->fault = chorus_out_of_memory;
  T->state = ST_BUSY;
  return 1;
}

/* The start of thread T's current op: fetch it, size its pieces, and pay
 * the op's overhead. 0 when the thread waits for that overhead. */
static inline int op_start(sim_t *s, int th, sim_thr_t *T) {
  const sim_op_t *op = &T->cur;
  if (T->op - T->wbase >= SIM_OP_WINDOW) window_fill(s, th, T);
  T->cur = T->win[T->op - T->wbase];
  if (T->record) T->t_op = s->now, T->t_work = -1;
  double bw = op->flags & OPF_REDUCES ? T->reduce_bw : T->copy_bw;
  double ovh = op->flags & OPF_FROM_HUB ? T->dev_overhead : T->step_overhead;
  if (bw != T->bw || ovh != T->ovh) T->bw = bw, T->ovh = ovh, T->cost_v = UINT32_MAX;
  if (op->code == PLAN_OP_SEND || op->code == PLAN_OP_COPY) {
    T->len = (uint64_t)chunk_len(s, th, T, op->src_buf, op->src_chunk);
    T->psize = piece_size(s, T->len);
    T->npieces = piece_count(T->len, T->psize);
    T->piece = 0;
  }
  if (op->flags & OPF_SCRATCH_DST)
    s->scratch_len[(size_t)th * s->p->scratch_chunks + op->dst_chunk] =
        op->code == PLAN_OP_COPY ? (double)T->len : 0;
  T->phase = 1;
  if (T->op_overhead > 0) {
    T->state = ST_BUSY;
    int first = op->code == PLAN_OP_SEND ? op->out : op->code == PLAN_OP_COPY ? -1 : op->in;
    if (ev_after_in(s, T->ovq, T->op_overhead, EV_KIND(EV_READY, first), th)) s->fault = chorus_out_of_memory;
    return 0;
  }
  return 1;
}

/* A send: its pieces into the connection's slots while slots are free.
 * 1 when the op is done, 0 when the thread waits. */
static inline int run_send(sim_t *s, int th, sim_thr_t *T) {
  const sim_op_t *op = &T->cur;
  sim_conn_t *out = conn(s, op->out);
  while (T->piece < T->npieces) {
    if (out->P - out->C >= (uint32_t)s->conn.nsteps) {
      T->state = ST_WAIT_OUT;
      out->wait_send = 1;
      return 0;
    }
    if (T->record && T->t_work < 0) T->t_work = s->now;
    uint64_t off, n = piece_bytes(T->len, T->psize, T->piece, &off);
    if (T->wroute >= 0 && T->phase != 2) { /* the thread copies the piece into the slot first */
      T->phase = 2;
      if (thr_work(s, th, T, (double)n, WK_COPY1, OPF_MEM(op->flags), op->out)) return 0;
    }
    T->phase = 1;
    T->piece++;
    conn_post(s, op->out, (uint32_t)n | (T->piece == T->npieces ? SLOT_LAST : 0));
    if (wait_until_left(s, op->out)) {
      T->state = ST_WAIT_OUT;
      return 0;
    }
  }
  return 1;
}

/* A local copy, at the device's copy rate. 1 when done, 0 when busy. */
static inline int run_copy(sim_t *s, int th, sim_thr_t *T) {
  const sim_op_t *op = &T->cur;
  if (T->phase == 1) {
    if (T->record) T->t_work = s->now;
    double cost = T->copy_bw > 0 ? (double)T->len / T->copy_bw : 0;
    T->phase = 2;
    if (T->wroute >= 0) {
      if (thr_work(s, th, T, (double)T->len, WK_LCOPY1, OPF_MEM(op->flags), -1)) return 0;
      cost = 0;
    }
    if (cost > 0) {
      T->state = ST_BUSY;
      if (ev_after(s, cost, EV_KIND(EV_READY, -1), th)) s->fault = chorus_out_of_memory;
      return 0;
    }
  }
  return 1;
}

/* A receive (and reduce, copy or forward): each step that arrived is worked
 * on, forwarded and its slot freed, until the last. 1 when done, 0 when the
 * thread waits for data, a free slot or its work. */
static inline int run_recv(sim_t *s, int th, sim_thr_t *T) {
  const sim_op_t *op = &T->cur;
  sim_conn_t *in = conn(s, op->in);
  int sends = op->out >= 0;
  for (;;) {
    if (T->phase == 2 && (op->flags & OPF_TWICE)) {
      T->phase = 3;
      if (thr_work(s, th, T, (double)(T->pend & ~SLOT_LAST), WK_COPY1, 0, op->in)) return 0;
    }
    if (T->phase == 4) { /* resumed: the step forwarded has left */
      T->phase = 1;
      if (T->pend & SLOT_LAST) return 1;
    }
    if (T->phase >= 2) {
      /* The step worked on is done: forward it, free its slot. */
      uint32_t v = T->pend;
      T->phase = 1;
      if (sends) conn_post(s, op->out, v);
      conn_release(s, op->in);
      if (op->flags & OPF_SCRATCH_DST)
        s->scratch_len[(size_t)th * s->p->scratch_chunks + op->dst_chunk] += v & ~SLOT_LAST;
      if (sends && wait_until_left(s, op->out)) {
        T->phase = 4;
        T->state = ST_WAIT_OUT;
        return 0;
      }
      if (v & SLOT_LAST) return 1;
    }
    if (in->C == in->D) {
      T->state = ST_WAIT_IN;
      in->wait_recv = 1;
      return 0;
    }
    double ta = *slot_arrive(s, in, in->C);
    if (ta > s->now) {
      T->state = ST_WAIT_IN;
      if (ev_push(s, ta, EV_KIND(EV_ARRIVE, op->in), th)) s->fault = chorus_out_of_memory;
      return 0;
    }
    if (sends) {
      sim_conn_t *out = conn(s, op->out);
      if (out->P - out->C >= (uint32_t)s->conn.nsteps) {
        T->state = ST_WAIT_OUT;
        out->wait_send = 1;
        return 0;
      }
    }
    if (T->record && T->t_work < 0) T->t_work = s->now;
    uint32_t v = *slot_v(s, in, in->C);
    T->pend = v;
    T->phase = 2;
    if (T->wroute >= 0) {
      if (thr_work(s, th, T, (double)(v & ~SLOT_LAST), op->flags & OPF_REDUCES ? WK_REDUCE1 : WK_COPY1,
                   OPF_MEM(op->flags), op->in))
        return 0;
      continue;
    }
    /* Steps of one op are mostly of one size: their cost is kept. */
    if ((v & ~SLOT_LAST) != T->cost_v) {
      T->cost_v = v & ~SLOT_LAST;
      T->cost = T->ovh + (T->bw > 0 ? (double)T->cost_v / T->bw : 0);
      T->costq = T->cost > 0 ? (int8_t)sim_evq_fifo(&s->evq, T->cost) : -1;
    }
    if (T->cost > 0) {
      T->state = ST_BUSY;
      if (ev_after_in(s, T->costq, T->cost, EV_KIND(EV_READY, op->in), th)) s->fault = chorus_out_of_memory;
      return 0;
    }
  }
}

/* Thread th has ended its part of a call, on a rank of several channels:
 * it waits for the rank's other channels. When the last one ends, the
 * call is over for the rank: at once if channel 0 (the calling thread)
 * was among the last, else a wake-up later (it slept waiting for the
 * workers: the device's channel_wake). The next call then starts a
 * wake-up later still, on every channel together: the workers' wake-up,
 * charged to the whole rank (the first call starts so too). Starting
 * channel 0 alone earlier is what the engine does, but the memory model
 * then lets the staggered threads share the memory better than the
 * engine's do (2 and 4 channels predicted up to 4 % faster at 16-64 MiB
 * than in step, and faster than 1 channel, which the engine never is). */
static void join_channels(sim_t *s, int th) {
  sim_thr_t *T = &s->thr[th];
  int nch = s->p->nchannels, r = th / nch;
  T->state = ST_JOIN;
  T->iter = 0;
  T->call++;
  if (T->ch == 0) s->join_ch0[r] = s->now;
  if (++s->join_have[r] < s->join_need[r]) return;
  s->join_have[r] = 0;
  double wake_up = T->channel_wake, main_at = s->join_ch0[r] >= s->now ? 0 : wake_up;
  if (T->call == 1 && s->now + main_at > s->first_end) s->first_end = s->now + main_at;
  int more = T->call < (uint32_t)s->o.calls;
  for (int t2 = r * nch; t2 < (r + 1) * nch; t2++) {
    sim_thr_t *U = &s->thr[t2];
    if (U->state != ST_JOIN) continue; /* no part in the calls */
    if (!more) {
      U->state = ST_DONE;
      s->done_threads++;
    } else if (ev_after(s, main_at + wake_up, EV_KIND(EV_READY, -1), t2)) {
      s->fault = chorus_out_of_memory;
    }
  }
  if (!more && s->now + main_at > s->end) s->end = s->now + main_at;
}

/* Thread th runs its program until it waits or ends. */
static void thread_run(sim_t *s, int th) {
  sim_thr_t *T = &s->thr[th];
  for (;;) {
    if (T->state == ST_DONE) return;
    if (T->op == T->count) {
      T->op = 0;
      if (++T->iter >= s->chan[T->ch].slices || T->count == 0) {
        if (s->join_need[th / s->p->nchannels] > 1) {
          join_channels(s, th);
          return;
        }
        if (T->call == 0 && s->now > s->first_end) s->first_end = s->now;
        /* The next call back to back: its program again from the top, on
         * the connections' slots as this call left them. */
        if (++T->call < (uint32_t)s->o.calls && T->count > 0) {
          T->iter = 0;
          continue;
        }
        T->state = ST_DONE;
        s->done_threads++;
        if (s->now > s->end) s->end = s->now;
        return;
      }
    }
    if (T->phase == 0 && !op_start(s, th, T)) return;
    T->state = ST_RUN;
    int finished;
    switch ((plan_opcode_t)T->cur.code) {
    case PLAN_OP_SEND: finished = run_send(s, th, T); break;
    case PLAN_OP_COPY: finished = run_copy(s, th, T); break;
    default: finished = run_recv(s, th, T); break;
    }
    if (!finished) return;
  if (T->record) {
    if (T->t_work < 0) T->t_work = s->now;
    trace_op(s, th, T, &T->ops[T->op]);
  }
  T->op++;
  T->phase = 0;
  }
}

/* A flow ended: a connection's step (user < nconn), or a thread's work. */
static inline void flow_done(sim_t *s, int user) {
  if (user < s->nconn) {
    conn_sent(s, user);
    return;
  }
  int th = s->wthr[(user - s->nconn) / WK_NCLASSES];
  s->thr[th].state = ST_RUN;
  thread_run(s, th);
}

static void drain(sim_t *s) {
  while (s->rq_head != s->rq_tail) {
    int th = s->rq[s->rq_head++ & (s->rq_cap - 1)];
    s->queued[th] = 0;
    thread_run(s, th);
  }
}

/* The call's cut, as the engine makes it (core/geom.h): the connections'
 * buffer from the options, each channel's part, chunk size and slices. */
static chorus_result_t sim_geometry(sim_t *s, size_t count, chorus_dtype_t dt, char *err, size_t errlen) {
  s->conn = geom_conn_window(geom_conn(s->o.buffsize, s->o.nsteps, s->o.steps_per_chunk, s->o.min_step,
                                       s->o.max_chunk),
                             s->p->window);
  if (s->conn.step_bytes >= SLOT_LAST) {
    snprintf(err, errlen, "steps of %zu bytes are too large (buffer %zu / %d steps)", s->conn.step_bytes,
             s->conn.buffsize, s->conn.nsteps);
    return chorus_invalid_argument;
  }
  s->call = geom_call(count, chorus_dtype_size(dt), s->p->nchannels, s->p->nchunks, &s->conn);
  for (int ch = 0; ch < s->p->nchannels; ch++) s->chan[ch] = geom_chan(&s->call, ch);
  return chorus_success;
}

int sim_moves(sim_t *s, size_t count, chorus_dtype_t dt, geom_move_fn fn, void *arg) {
  char err[256];
  if (sim_geometry(s, count, dt, err, sizeof err) != chorus_success) return -1;
  for (int ch = 0; ch < s->p->nchannels; ch++) {
    for (uint32_t slice = 0; slice < s->chan[ch].slices; slice++) {
      for (int q = 0; q < s->call.k; q++) {
        size_t first;
        uint64_t len = chunk_span(s, ch, slice, q, &first) * s->call.es, psize = piece_size(s, len);
        for (uint32_t i = 0, np = piece_count(len, psize); i < np; i++) {
          uint64_t off, n = piece_bytes(len, psize, i, &off);
          geom_move_t m = {.ch = ch, .slice = slice, .chunk = q, .step = i, .offset = first * s->call.es + off,
                           .bytes = n};
          if (fn(&m, arg)) return 1;
        }
      }
    }
  }
  return 0;
}

/* The memory model's memories: a memory limits this call at mem_bw unless
 * the working set of all its ranks fits in its llc, and at llc_bw where it
 * fits in the llc but not in the private caches in front of it (`cache`).
 * The working set: the ranks' input and output buffers, and the part of
 * each incoming connection's slots that calls back to back sweep: each step
 * lands at the start of the next of the nsteps slots, so a call of 4 KiB
 * steps touches 8 x 4 KiB of them, not the whole 4 MiB buffer. */
static void size_memories(sim_t *s, size_t count) {
  const plan_t *p = s->p;
  double unit = (double)count * s->call.es;
  geom_chan_t c0 = geom_chan(&s->call, 0);
  size_t chunk = c0.ce * s->call.es;
  size_t step = geom_piece(chunk, s->conn.step_bytes, (size_t)s->conn.steps_per_chunk, s->conn.min_step);
  double touched = (double)step * s->conn.nsteps;
  if (touched > (double)s->conn.buffsize) touched = (double)s->conn.buffsize;
  for (int d = 0; s->wpath && d < s->t->ndevs; d++) {
    const topo_dev_t *m = &s->t->devs[d];
    if (m->mem_res < 0) continue;
    double ws = 0;
    for (int th = 0; th < s->nthr; th++) {
      if (s->t->devs[s->pdev[th / p->nchannels]].mem != d) continue;
      if (th % p->nchannels == 0) ws += (double)(p->in_units + p->out_units) * unit;
      ws += (double)s->tconn[th].in_n * touched;
    }
    if (m->cache > 0 && ws <= m->cache) s->cap[m->mem_res] = 0;
    else if (m->llc > 0 && ws <= m->llc) s->cap[m->mem_res] = m->cache > 0 ? m->llc_bw : 0;
    else s->cap[m->mem_res] = m->mem_bw;
  }
}

/* A fresh network for this call: route c is connection c's, then the
 * threads' work routes. */
static chorus_result_t reset_network(sim_t *s) {
  sim_net_destroy(s->net);
  s->net = NULL;
  if (sim_net_create(&s->net, s->nres, s->cap) != chorus_success) return chorus_out_of_memory;
  sim_net_use_queue(s->net, &s->evq, EV_NET);
  /* One max-min re-sharing per instant, not one per flow started or ended
   * in it (the event loop flushes before time moves on). */
  if (sim_net_defer(s->net) != chorus_success) return chorus_out_of_memory;
  /* Route c is connection c's. */
  for (int c = 0; c < s->nconn; c++) {
    int id;
    if (sim_net_route(s->net, s->routes + s->cinfo[c].route_off, s->cinfo[c].route_len, &id) != chorus_success)
      return chorus_out_of_memory;
  }
  /* Then the threads' work routes (sim.h, the memory model): a memory whose
   * ranks' buffers all fit in its cache does not limit them this call, and
   * their work crosses their own rate only. */
  for (int w = 0; w < s->nwthr * WK_NCLASSES; w++) {
    int mem = s->wpath[2 * w + 1], id;
    if (sim_net_route(s->net, s->wpath + 2 * w, s->cap[mem] > 0 ? 2 : 1, &id) != chorus_success)
      return chorus_out_of_memory;
    s->wbytes[w] = 0;
  }
  for (int c = 0; c < s->nconn; c++) {
    sim_conn_t *k = conn(s, c);
    k->P = k->D = k->C = 0;
    k->tx = k->wait_send = k->wait_recv = k->wait_left = 0;
    s->cinfo[c].bytes = 0;
  }
  return chorus_success;
}

/* Clock, queues, counters and scratch back to the start of a call. */
static void reset_state(sim_t *s) {
  const plan_t *p = s->p;
  s->now = 0;
  s->end = s->first_end = 0;
  sim_evq_clear(&s->evq);
  s->seq = s->events = s->steps = 0;
  s->rq_head = s->rq_tail = 0;
  s->done_threads = 0;
  memset(s->join_need, 0, sizeof *s->join_need * (size_t)plan_nparts(p));
  memset(s->join_have, 0, sizeof *s->join_have * (size_t)plan_nparts(p));
  s->fault = chorus_success;
  s->nspans = 0;
  s->trace_first = 1;
  memset(s->queued, 0, s->nthr);
  if (s->scratch_len) memset(s->scratch_len, 0, sizeof *s->scratch_len * (size_t)s->nthr * p->scratch_chunks);
}

/* The trace's header: a process per rank, a thread per channel, and the
 * network's connections. */
static void trace_header(sim_t *s) {
  const plan_t *p = s->p;
  fprintf(s->o.trace, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  for (int r = 0; r < plan_nparts(p); r++) {
    fprintf(s->o.trace, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"%s %d (%s)\"}}",
            s->trace_first ? "" : ",\n", r, plan_is_hub(p, r) ? "hub" : "rank",
            plan_is_hub(p, r) ? r - p->nranks : r, s->t->devs[s->pdev[r]].name);
    s->trace_first = 0;
    for (int ch = 0; ch < p->nchannels; ch++)
      fprintf(s->o.trace, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"channel %d\"}}",
              r, ch, ch);
  }
  fprintf(s->o.trace, ",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"network\"}}",
          plan_nparts(p));
  for (int c = 0; c < s->nconn; c++)
    fprintf(s->o.trace, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%d -> %d ch %d\"}}",
            plan_nparts(p), c, conn(s, c)->src_thr / p->nchannels, conn(s, c)->dst_thr / p->nchannels,
            conn(s, c)->src_thr % p->nchannels);
}

/* Every thread at the start of its program, woken unless it has nothing
 * to do. */
static void start_threads(sim_t *s) {
  const plan_t *p = s->p;
  s->slot_mask = (s->conn.nsteps & (s->conn.nsteps - 1)) == 0 ? (uint32_t)s->conn.nsteps - 1 : 0;
  s->span_thr = s->o.span_ranks > 0 ? (s->o.span_ranks < p->nranks ? s->o.span_ranks : p->nranks) * p->nchannels : 0;
  for (int th = 0; th < s->nthr; th++) {
    sim_thr_t *T = &s->thr[th];
    memset(T, 0, sizeof *T);
    int rank = th / p->nchannels;
    T->ch = th % p->nchannels;
    T->ops = plan_prog_ops(p, rank, T->ch);
    T->count = plan_prog(p, rank, T->ch)->count;
    T->wbase = UINT32_MAX / 2; /* the window holds nothing yet */
    const topo_dev_t *dev = &s->t->devs[s->pdev[rank]];
    T->reduce_bw = dev->reduce_bw, T->copy_bw = dev->copy_bw, T->op_overhead = dev->op_overhead;
    /* A hub is a switch's hardware: no GPU channel's per-step flag and fence. */
    T->step_overhead = plan_is_hub(p, rank) ? 0 : dev->step_overhead + s->t->proto[s->o.proto].overhead;
    T->dev_overhead = plan_is_hub(p, rank) ? 0 : dev->step_overhead;
    T->channel_wake = dev->channel_wake;
    T->lcopy_bw = dev->copy_local_bw > 0 ? dev->copy_local_bw : dev->copy_bw;
    T->record = s->o.trace || th < s->span_thr;
    T->wroute = -1;
    T->bw = -1;
    T->cost_v = UINT32_MAX;
    if (s->chan[T->ch].slices == 0 || T->count == 0) {
      T->state = ST_DONE;
      s->done_threads++;
      continue;
    }
    s->join_need[rank]++;
  }
  /* A sender with a step overhead (its device's, or this protocol's) moves
   * its own steps where the route allows (topo_resources). */
  for (int c = 0; c < s->nconn; c++)
    conn(s, c)->own = (uint8_t)(s->cinfo[c].own_ok && s->thr[conn(s, c)->src_thr].step_overhead > 0);
  /* With several channels, a rank starts a call a wake-up late. */
  for (int th = 0; th < s->nthr; th++) {
    sim_thr_t *T = &s->thr[th];
    if (T->state == ST_DONE) continue;
    if (s->join_need[th / p->nchannels] < 2 || !(T->channel_wake > 0)) {
      wake(s, th);
    } else {
      T->state = ST_JOIN; /* started by start_workers, once the queues are set up */
    }
  }
  for (int w = 0; w < s->nwthr; w++) s->thr[s->wthr[w]].wroute = s->nconn + WK_NCLASSES * w;
}

/* The ranks of several channels start the first call a wake-up late
 * (start_threads, join_channels). */
static void start_workers(sim_t *s) {
  for (int th = 0; th < s->nthr; th++)
    if (s->thr[th].state == ST_JOIN && ev_after(s, s->thr[th].channel_wake, EV_KIND(EV_READY, -1), th))
      s->fault = chorus_out_of_memory;
}

/* Connection latencies, the calendar for arrivals and the FIFOs of the
 * fixed delays. */
static chorus_result_t set_up_queues(sim_t *s) {
  const topo_proto_t *pr = &s->t->proto[s->o.proto];
  double step_lat = pr->step_lat, size_max = 0;
  double net_extra = pr->has_net_lat ? pr->net_lat - step_lat : 0; /* a step through a NIC pays net_lat */
  s->size_lat = pr->nsize > 0 ? pr : NULL;
  s->size_lat_v = UINT32_MAX;
  for (int i = 0; i < pr->nsize; i++)
    if (pr->size_lat_s[i] > size_max) size_max = pr->size_lat_s[i];
  double maxlat = 0;
  for (int c = 0; c < s->nconn; c++) {
    /* A step to or from a hub pays no protocol latency (topo_proto_t.hub_lat). */
    conn(s, c)->lat = s->cinfo[c].route_lat + (s->cinfo[c].hub ? 0 : step_lat + s->cinfo[c].nic_share * net_extra);
    if (conn(s, c)->lat + size_max > maxlat) maxlat = conn(s, c)->lat + size_max;
  }
  /* The events the FIFOs cannot hold are arrivals a receiver saw coming,
   * at most a route's latency ahead, at most one per connection: a calendar
   * of twice that span, a bucket per half connection. */
  uint32_t nb = 64;
  while (nb < 2 * (uint32_t)s->nconn && nb < (1u << 16)) nb *= 2;
  if (sim_evq_calendar(&s->evq, 2 * maxlat / nb, nb)) return chorus_out_of_memory;
  /* The FIFOs of the fixed delays known now, found once. */
  for (int c = 0; c < s->nconn; c++) conn(s, c)->latq = conn(s, c)->lat > 0 ? (int8_t)sim_evq_fifo(&s->evq, conn(s, c)->lat) : -1;
  for (int th = 0; th < s->nthr; th++)
    s->thr[th].ovq = s->thr[th].op_overhead > 0 ? (int8_t)sim_evq_fifo(&s->evq, s->thr[th].op_overhead) : -1;
  return chorus_success;
}

/* The events in time order until none is left or a fault stops them. */
static void event_loop(sim_t *s) {
  drain(s);
  /* One queue for steps alone on their routes, arrivals and the ends of
   * computation; the flows that share resources are the network's. */
  const sim_net_head_t *shared = sim_net_shared_head(s->net);
  while (s->fault == chorus_success) {
    const sim_ev_t *head = sim_evq_peek(&s->evq);
    /* The flows that changed at this instant are re-shared once nothing is
     * left to do at it (a flow ending now ends now whatever its rate). */
    if (sim_net_pending(s->net) && (!head || head->t > s->now) && !(shared->t <= s->now)) {
      if (sim_net_flush(s->net) != chorus_success) s->fault = chorus_out_of_memory;
    }
    int net = !head || shared->t < head->t || (shared->t == head->t && shared->seq < head->seq);
    if (isinf(net ? shared->t : head->t)) break;
    s->events++;
    if (net) {
      flow_done(s, sim_net_pop(s->net, &s->now));
    } else {
      sim_ev_t e = sim_evq_pop(&s->evq);
      s->now = e.t;
      if (e.kind == EV_NET) {
        if (e.id < s->nconn) __builtin_prefetch(conn(s, e.id));
        flow_done(s, sim_net_end(s->net, &e));
      } else {
        int c = (e.kind >> 2) - 1;
        if (c >= 0) __builtin_prefetch(conn(s, c));
        /* Nothing is queued to run here: the woken thread runs first. */
        if ((e.kind & 3) == EV_READY) s->thr[e.id].state = ST_RUN;
        thread_run(s, e.id);
      }
    }
    drain(s);
  }
}

/* What each resource carried and how long it was busy, and the result. */
static void collect(sim_t *s, sim_result_t *res) {
  for (int r = 0; r < s->nres; r++) {
    s->res_busy[r] = sim_net_res_busy(s->net, r, s->end);
    s->res_bytes[r] = 0;
  }
  for (int c = 0; c < s->nconn; c++)
    for (int k = 0; k < s->cinfo[c].route_len; k++)
      s->res_bytes[s->routes[s->cinfo[c].route_off + k]] += s->cinfo[c].bytes;
  for (int w = 0; w < s->nwthr * WK_NCLASSES; w++) s->res_bytes[s->wpath[2 * w + 1]] += s->wbytes[w];
  int calls = s->o.calls > 1 ? s->o.calls : 1;
  res->time = s->end / calls;
  res->first = s->first_end;
  res->events = s->events;
  res->steps = s->steps;
  res->flows = sim_net_started(s->net);
  res->recomputes = sim_net_recomputes(s->net);
  res->peak_flows = sim_net_peak(s->net);
}

/* Some program did not finish: names the first one and what it waits for. */
static void deadlock_message(const sim_t *s, char *err, size_t errlen) {
  const plan_t *p = s->p;
  for (int th = 0; th < s->nthr; th++) {
    const sim_thr_t *T = &s->thr[th];
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
}

chorus_result_t sim_run(sim_t *s, size_t count, chorus_dtype_t dt, sim_result_t *res, char *err, size_t errlen) {
  memset(res, 0, sizeof *res);
  if (s->p->nhubs && !topo_proto_runs_hubs(&s->t->proto[s->o.proto])) {
    snprintf(err, errlen,
             "algorithm %s reduces in a switch (hubs), which %s runs under no protocol but those that give "
             "hub_latency (NCCL runs NVLS on Simple alone), not %s",
             s->p->algo, s->t->path, topo_proto_name((topo_proto_id_t)s->o.proto));
    return chorus_invalid_argument;
  }
  TRY(sim_geometry(s, count, dt, err, errlen));
  s->eff = s->t->proto[s->o.proto].efficiency;
  size_memories(s, count);
  TRY(reset_network(s));
  reset_state(s);
  if (s->o.trace) trace_header(s);
  start_threads(s);
  TRY(set_up_queues(s));
  start_workers(s);
  event_loop(s);
  if (s->o.trace) fprintf(s->o.trace, "\n]}\n");
  collect(s, res);
  /* The protocol's fixed cost of a call, outside the replay. */
  double call = topo_proto_call_cost(&s->t->proto[s->o.proto], s->p->nhubs > 0);
  res->time += call;
  res->first += call;
  if (s->fault != chorus_success) {
    snprintf(err, errlen, "out of memory during the simulation");
    return s->fault;
  }
  if (s->done_threads < s->nthr) {
    deadlock_message(s, err, errlen);
    return chorus_internal_error;
  }
  return chorus_success;
}

void sim_res_stats(const sim_t *s, int res, double *bytes, double *busy) {
  *bytes = s->res_bytes[res];
  *busy = s->res_busy[res];
}

const topo_t *sim_topo(const sim_t *s) { return s->t; }

void sim_set_trace(sim_t *s, FILE *trace) { s->o.trace = trace; }

void sim_set_proto(sim_t *s, int proto) {
  if (proto >= 0 && proto < TOPO_NUM_PROTOS) s->o.proto = proto;
}

const sim_span_t *sim_spans(const sim_t *s, size_t *n) {
  *n = s->nspans;
  return s->spans;
}
