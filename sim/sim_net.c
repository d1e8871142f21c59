/* sim_net.c -- max-min fair sharing of resources among flows, recomputed
 * incrementally: a start or an end re-shares only the connected component of
 * flows and resources it touches (deferred, once for all the changes of one
 * instant: sim_net_defer), and a flow alone on its path skips the
 * component walk entirely (the common case of a pipelined ring). Completion
 * times live in an indexed min-heap, updated in place when a rate changes.
 * Flows of exclusive routes (sim_net.h) skip all of it: no resource lists, no
 * walk, and their ends go to FIFOs of fixed delays (sim_evq.h). */
#include "sim_net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_evq.h"

#define LPOS_INLINE 12

typedef struct {
  const int32_t *path;
  int32_t *lpos_heap; /* positions when the path is longer than LPOS_INLINE */
  int32_t lpos_in[LPOS_INLINE];
  int len, lpos_cap;
  int user;
  int heap; /* index in the heap, -1 when free */
  uint32_t mark;
  int fixed;
  double rem, rate, t_upd, finish, newrate;
  uint64_t seq;
} flow_t;

/* A flow's positions live in the flow while the path is short; the flow
 * table may move, so this is computed on every use, never stored. */
#define LPOS(f) ((f)->lpos_cap > LPOS_INLINE ? (f)->lpos_heap : (f)->lpos_in)

/* One cache line: the flow list lives inline while it holds at most two. */
typedef struct {
  double cap; /* INFINITY when unlimited */
  double rem, busy, busy_since;
  int32_t *flows; /* flows_in or heap memory */
  int32_t nflows, fcap, cnt;
  uint32_t mark;
  int32_t flows_in[2];
} res_t;

typedef struct {
  double finish;
  uint64_t seq;
  int32_t id;
} hkey_t;

/* A resource's share in the progressive filling, and its index in cres. */
typedef struct {
  double share;
  int i;
} rkey_t;

/* A registered route. An exclusive one keeps the busy time that each of its
 * resources would have, since they are busy exactly while its flow runs. */
typedef struct {
  double cap; /* the least capacity on the path */
  double busy, busy_since;
  double qd; /* the delay of FIFO qf of the queue (a step of one size) */
  int32_t excl, active, user;
  int32_t len, qf;
  const int32_t *path;
} route_t;

struct sim_net {
  res_t *res;
  int nres;
  flow_t *flows;
  int nflow_slots, flow_cap;
  int *free_ids;
  int nfree;
  hkey_t *heap; /* flows ordered by (finish, seq), keys kept in the heap */
  int nheap;
  uint32_t epoch;
  uint64_t seq, started, recomputes;
  int peak;
  route_t *routes;
  int nroutes, routes_cap;
  int sealed;          /* routes classified: a flow has started */
  int free_paths;      /* sim_net_start was used */
  int32_t *res_route;  /* per resource: the exclusive route crossing it, -1 none */
  sim_evq_t alone;     /* ends of the exclusive routes' flows: (finish, seq, route, user) */
  sim_evq_t *q;        /* where they go: &alone, or the caller's queue (sim_net_use_queue) */
  int32_t qkind;       /* their kind there */
  sim_net_head_t head; /* the heap's first */
  int nactive;
  /* scratch for the component walk */
  int *cflows, *cres, *stack;
  int cflows_cap, cres_cap, stack_cap;
  rkey_t *rheap; /* the progressive filling's heap of resources */
  int rheap_cap;
  /* Deferred re-sharing (sim_net_defer): the resources whose flows changed
   * since the last one, each once (pend_mark), all at time pend_t. */
  int defer;
  int *pend;
  int npend, pend_cap;
  uint8_t *pend_mark;
  double pend_t;
};

static inline int before(const hkey_t *x, const hkey_t *y) {
  return x->finish < y->finish || (x->finish == y->finish && x->seq < y->seq);
}

static void heap_up(sim_net_t *n, int i) {
  hkey_t x = n->heap[i];
  while (i > 0) {
    int p = (i - 1) / 2;
    if (!before(&x, &n->heap[p])) break;
    n->heap[i] = n->heap[p];
    n->flows[n->heap[i].id].heap = i;
    i = p;
  }
  n->heap[i] = x;
  n->flows[x.id].heap = i;
}

static void heap_down(sim_net_t *n, int i) {
  hkey_t x = n->heap[i];
  for (;;) {
    int l = 2 * i + 1, m = -1;
    const hkey_t *best = &x;
    if (l < n->nheap && before(&n->heap[l], best)) m = l, best = &n->heap[l];
    if (l + 1 < n->nheap && before(&n->heap[l + 1], best)) m = l + 1;
    if (m < 0) break;
    n->heap[i] = n->heap[m];
    n->flows[n->heap[i].id].heap = i;
    i = m;
  }
  n->heap[i] = x;
  n->flows[x.id].heap = i;
}

static void heap_fix(sim_net_t *n, int id) {
  int i = n->flows[id].heap;
  n->heap[i].finish = n->flows[id].finish;
  heap_up(n, i);
  heap_down(n, n->flows[id].heap);
}

chorus_result_t sim_net_create(sim_net_t **out, int nres, const double *cap) {
  *out = NULL;
  sim_net_t *n = calloc(1, sizeof *n);
  if (!n || !(n->res = calloc(nres > 0 ? nres : 1, sizeof *n->res))) {
    free(n);
    return chorus_out_of_memory;
  }
  n->nres = nres;
  sim_evq_init(&n->alone);
  n->q = &n->alone;
  n->head = (sim_net_head_t){INFINITY, UINT64_MAX};
  for (int i = 0; i < nres; i++) {
    n->res[i].cap = cap[i] > 0 ? cap[i] : INFINITY;
    n->res[i].flows = n->res[i].flows_in;
    n->res[i].fcap = 2;
  }
  *out = n;
  return chorus_success;
}

void sim_net_destroy(sim_net_t *n) {
  if (!n) return;
  for (int i = 0; i < n->nres; i++)
    if (n->res[i].flows != n->res[i].flows_in) free(n->res[i].flows);
  for (int i = 0; i < n->nflow_slots; i++)
    free(n->flows[i].lpos_heap);
  free(n->res);
  free(n->flows);
  free(n->free_ids);
  free(n->heap);
  free(n->cflows);
  free(n->cres);
  free(n->stack);
  free(n->routes);
  free(n->res_route);
  free(n->pend);
  free(n->pend_mark);
  free(n->rheap);
  sim_evq_fini(&n->alone);
  free(n);
}

static int ensure(void **p, int *cap, int need, size_t elem) {
  if (need <= *cap) return 0;
  int c = *cap ? *cap : 16;
  while (c < need) c *= 2;
  void *q = realloc(*p, elem * c);
  if (!q) return -1;
  *p = q;
  *cap = c;
  return 0;
}

/* Bring a flow's remaining bytes to `now` at its current rate. */
static inline void settle(flow_t *f, double now) {
  if (isfinite(f->rate) && f->rate > 0 && now > f->t_upd) {
    f->rem -= f->rate * (now - f->t_upd);
    if (f->rem < 0) f->rem = 0;
  }
  f->t_upd = now;
}

static void set_rate(sim_net_t *n, int id, double rate, double now) {
  flow_t *f = &n->flows[id];
  if (rate == f->rate) return;
  settle(f, now);
  f->rate = rate;
  f->finish = isinf(rate) ? now : now + f->rem / rate;
  heap_fix(n, id);
}

static inline int rkey_before(rkey_t a, rkey_t b) { return a.share < b.share || (a.share == b.share && a.i < b.i); }

static void rheap_push(rkey_t *h, int *n, rkey_t k) {
  int i = (*n)++;
  while (i > 0 && rkey_before(k, h[(i - 1) / 2])) h[i] = h[(i - 1) / 2], i = (i - 1) / 2;
  h[i] = k;
}

static rkey_t rheap_pop(rkey_t *h, int *n) {
  rkey_t top = h[0], x = h[--*n];
  int i = 0;
  for (;;) {
    int l = 2 * i + 1, m = i;
    rkey_t best = x;
    if (l < *n && rkey_before(h[l], best)) m = l, best = h[l];
    if (l + 1 < *n && rkey_before(h[l + 1], best)) m = l + 1;
    if (m == i) break;
    h[i] = h[m];
    i = m;
  }
  if (*n > 0) h[i] = x;
  return top;
}

/* Progressive filling over the component reachable from the seed resources
 * (already on n->stack, nstack of them). */
static chorus_result_t reshare(sim_net_t *n, int nstack, double now) {
  uint32_t ep = ++n->epoch;
  int nf = 0, nr = 0;
  for (int i = 0; i < nstack; i++) n->res[n->stack[i]].mark = ep;
  while (nstack > 0) {
    int r = n->stack[--nstack];
    if (ensure((void **)&n->cres, &n->cres_cap, nr + 1, sizeof(int))) return chorus_out_of_memory;
    n->cres[nr++] = r;
    res_t *rs = &n->res[r];
    for (int k = 0; k < rs->nflows; k++) {
      int id = rs->flows[k];
      flow_t *f = &n->flows[id];
      if (f->mark == ep) continue;
      f->mark = ep;
      if (ensure((void **)&n->cflows, &n->cflows_cap, nf + 1, sizeof(int))) return chorus_out_of_memory;
      n->cflows[nf++] = id;
      for (int j = 0; j < f->len; j++) {
        int m = f->path[j];
        if (n->res[m].mark == ep) continue;
        n->res[m].mark = ep;
        if (ensure((void **)&n->stack, &n->stack_cap, nstack + 1, sizeof(int))) return chorus_out_of_memory;
        n->stack[nstack++] = m;
      }
    }
  }
  if (nf == 0) return chorus_success;
  if (nf > 1) n->recomputes++;
  for (int i = 0; i < nr; i++) {
    res_t *rs = &n->res[n->cres[i]];
    rs->rem = rs->cap;
    rs->cnt = rs->nflows;
  }
  for (int i = 0; i < nf; i++) n->flows[n->cflows[i]].fixed = 0;
  /* The bottleneck first: the resource of least share (rem / cnt), the
   * first in cres among equals. A resource's share only grows as flows are
   * fixed at the least share (rem - s over cnt - 1 is at least rem / cnt when
   * s is at most rem / cnt), so a min-heap with stale keys works: a popped
   * key below the resource's share now goes back in with its share. */
  if (ensure((void **)&n->rheap, &n->rheap_cap, nr, sizeof *n->rheap)) return chorus_out_of_memory;
  int nh = 0;
  for (int i = 0; i < nr; i++) {
    res_t *rs = &n->res[n->cres[i]];
    if (rs->cnt > 0) rheap_push(n->rheap, &nh, (rkey_t){rs->cnt == 1 ? rs->rem : rs->rem / rs->cnt, i});
  }
  int left = nf;
  while (left > 0 && nh > 0) {
    rkey_t k = rheap_pop(n->rheap, &nh);
    res_t *b = &n->res[n->cres[k.i]];
    if (b->cnt <= 0) continue;
    double share = b->cnt == 1 ? b->rem : b->rem / b->cnt; /* the same value: x / 1 is exact */
    if (share != k.share) {
      rheap_push(n->rheap, &nh, (rkey_t){share, k.i});
      continue;
    }
    if (share < 0) share = 0;
    for (int j = 0; j < b->nflows; j++) {
      flow_t *f = &n->flows[b->flows[j]];
      if (f->fixed) continue;
      f->fixed = 1;
      f->newrate = share;
      left--;
      for (int q = 0; q < f->len; q++) {
        res_t *m = &n->res[f->path[q]];
        m->rem -= share;
        m->cnt--;
      }
    }
  }
  for (int i = 0; i < nf; i++) {
    int id = n->cflows[i];
    if (!n->flows[id].fixed) n->flows[id].newrate = INFINITY;
    set_rate(n, id, n->flows[id].newrate, now);
  }
  return chorus_success;
}

/* The first flow to finish, for the caller's event loop. */
static inline void update_head(sim_net_t *n) {
  n->head = n->nheap ? (sim_net_head_t){n->heap[0].finish, n->heap[0].seq} : (sim_net_head_t){INFINITY, UINT64_MAX};
}

/* Resource r's flows changed at `now` (deferred re-sharing): note it, once,
 * for sim_net_flush. */
static chorus_result_t touch(sim_net_t *n, int r, double now) {
  if (n->pend_mark[r]) return chorus_success;
  if (ensure((void **)&n->pend, &n->pend_cap, n->npend + 1, sizeof(int))) return chorus_out_of_memory;
  n->pend_mark[r] = 1;
  n->pend[n->npend++] = r;
  n->pend_t = now;
  return chorus_success;
}

chorus_result_t sim_net_flush(sim_net_t *n) {
  if (!n->npend) return chorus_success;
  if (ensure((void **)&n->stack, &n->stack_cap, n->npend, sizeof(int))) return chorus_out_of_memory;
  for (int i = 0; i < n->npend; i++) n->stack[i] = n->pend[i], n->pend_mark[n->pend[i]] = 0;
  int k = n->npend;
  n->npend = 0;
  chorus_result_t r = reshare(n, k, n->pend_t);
  update_head(n);
  return r;
}

int sim_net_pending(const sim_net_t *n) { return n->npend > 0; }

chorus_result_t sim_net_defer(sim_net_t *n) {
  if (!n->pend_mark && !(n->pend_mark = calloc(n->nres > 0 ? n->nres : 1, 1))) return chorus_out_of_memory;
  n->defer = 1;
  return chorus_success;
}

static chorus_result_t start_path(sim_net_t *n, double now, const int32_t *path, int len, double bytes, int user) {
  int id;
  if (n->nfree) {
    id = n->free_ids[--n->nfree];
  } else {
    if (ensure((void **)&n->flows, &n->flow_cap, n->nflow_slots + 1, sizeof *n->flows)) return chorus_out_of_memory;
    id = n->nflow_slots++;
    memset(&n->flows[id], 0, sizeof n->flows[id]);
    int hc = n->flow_cap;
    hkey_t *h = realloc(n->heap, sizeof *h * hc);
    int *fr = realloc(n->free_ids, sizeof *fr * hc);
    if (h) n->heap = h;
    if (fr) n->free_ids = fr;
    if (!h || !fr) return chorus_out_of_memory;
  }
  flow_t *f = &n->flows[id];
  if (f->lpos_cap < LPOS_INLINE) f->lpos_cap = LPOS_INLINE;
  if (len > f->lpos_cap) {
    int32_t *q = malloc(sizeof *q * len);
    if (!q) return chorus_out_of_memory;
    free(f->lpos_heap);
    f->lpos_heap = q;
    f->lpos_cap = len;
  }
  f->path = path;
  f->len = len;
  f->user = user;
  f->rem = bytes;
  f->t_upd = now;
  f->seq = n->seq++;
  f->mark = 0;
  n->started++;
  int alone = 1;
  double rate = INFINITY;
  for (int j = 0; j < len; j++) {
    res_t *r = &n->res[path[j]];
    if (r->nflows == r->fcap) {
      int c = r->fcap * 4;
      int32_t *q = malloc(sizeof *q * c);
      if (!q) return chorus_out_of_memory;
      memcpy(q, r->flows, sizeof *q * r->nflows);
      if (r->flows != r->flows_in) free(r->flows);
      r->flows = q;
      r->fcap = c;
    }
    if (r->nflows == 0) r->busy_since = now;
    else alone = 0;
    LPOS(f)[j] = r->nflows;
    r->flows[r->nflows++] = id;
    if (r->cap < rate) rate = r->cap;
  }
  if (alone) {
    f->rate = rate;
    f->finish = isinf(rate) ? now : now + bytes / rate;
  } else {
    /* Shared: the new flow starts at rate 0 and the component is re-shared. */
    f->rate = 0;
    f->finish = INFINITY;
  }
  n->heap[n->nheap] = (hkey_t){f->finish, f->seq, id};
  f->heap = n->nheap++;
  if (++n->nactive > n->peak) n->peak = n->nactive;
  heap_up(n, f->heap);
  chorus_result_t res = chorus_success;
  if (!alone && n->defer) {
    for (int j = 0; j < len && res == chorus_success; j++) res = touch(n, path[j], now);
  } else if (!alone) {
    for (int j = 0; j < len && res == chorus_success; j++) {
      if (ensure((void **)&n->stack, &n->stack_cap, j + 1, sizeof(int))) res = chorus_out_of_memory;
      else n->stack[j] = path[j];
    }
    if (res == chorus_success) res = reshare(n, len, now);
  }
  update_head(n);
  return res;
}

chorus_result_t sim_net_start(sim_net_t *n, double now, const int32_t *path, int len, double bytes, int user) {
  if (n->nroutes) return chorus_invalid_usage;
  n->free_paths = 1;
  return start_path(n, now, path, len, bytes, user);
}

chorus_result_t sim_net_route(sim_net_t *n, const int32_t *path, int len, int *id) {
  if (n->sealed || n->free_paths) return chorus_invalid_usage;
  if (ensure((void **)&n->routes, &n->routes_cap, n->nroutes + 1, sizeof *n->routes)) return chorus_out_of_memory;
  route_t *r = &n->routes[n->nroutes];
  memset(r, 0, sizeof *r);
  r->path = path;
  r->len = len;
  r->qf = -1;
  *id = n->nroutes++;
  return chorus_success;
}

/* Classify the routes: exclusive when every resource it crosses is crossed
 * by no other route (nor twice by itself). */
static chorus_result_t seal(sim_net_t *n) {
  int32_t *cnt = calloc(n->nres + 1, sizeof *cnt);
  n->res_route = malloc(sizeof *n->res_route * (n->nres + 1));
  if (!cnt || !n->res_route) {
    free(cnt);
    return chorus_out_of_memory;
  }
  for (int i = 0; i < n->nres; i++) n->res_route[i] = -1;
  for (int r = 0; r < n->nroutes; r++)
    for (int j = 0; j < n->routes[r].len; j++) cnt[n->routes[r].path[j]]++;
  for (int r = 0; r < n->nroutes; r++) {
    route_t *rt = &n->routes[r];
    rt->excl = 1;
    rt->cap = INFINITY;
    for (int j = 0; j < rt->len; j++) {
      if (cnt[rt->path[j]] != 1) rt->excl = 0;
      if (n->res[rt->path[j]].cap < rt->cap) rt->cap = n->res[rt->path[j]].cap;
    }
    if (rt->excl)
      for (int j = 0; j < rt->len; j++) n->res_route[rt->path[j]] = r;
  }
  free(cnt);
  n->sealed = 1;
  return chorus_success;
}

chorus_result_t sim_net_start_route(sim_net_t *n, double now, int route, double bytes, int user) {
  if (!n->sealed && seal(n) != chorus_success) return chorus_out_of_memory;
  route_t *rt = &n->routes[route];
  if (!rt->excl) return start_path(n, now, rt->path, rt->len, bytes, user);
  /* Alone, now and until it ends: the general path's rate and finish. */
  n->started++;
  rt->active = 1;
  rt->busy_since = now;
  rt->user = user;
  double d = isinf(rt->cap) ? 0 : bytes / rt->cap;
  if (rt->qf < 0 || d != rt->qd) rt->qf = sim_evq_fifo(n->q, d), rt->qd = d;
  int32_t kind = n->q == &n->alone ? user : n->qkind;
  if (rt->qf >= 0 ? sim_evq_after_in(n->q, rt->qf, now, n->seq++, route, kind)
                  : sim_evq_push(n->q, now + d, n->seq++, route, kind))
    return chorus_out_of_memory;
  if (++n->nactive > n->peak) n->peak = n->nactive;
  return chorus_success;
}

/* Whether the next end is an exclusive route's flow (else the heap's top). */
static inline const sim_ev_t *alone_first(sim_net_t *n) {
  const sim_ev_t *a = sim_evq_peek(&n->alone);
  if (!a || !n->nheap) return a;
  const hkey_t *h = &n->heap[0];
  return a->t < h->finish || (a->t == h->finish && a->seq < h->seq) ? a : NULL;
}

double sim_net_next(sim_net_t *n) {
  const sim_ev_t *a = alone_first(n);
  return a ? a->t : n->nheap ? n->heap[0].finish : INFINITY;
}

void sim_net_use_queue(sim_net_t *n, sim_evq_t *q, int32_t kind) {
  n->q = q;
  n->qkind = kind;
}

const sim_net_head_t *sim_net_shared_head(const sim_net_t *n) { return &n->head; }

int sim_net_end(sim_net_t *n, const sim_ev_t *e) {
  route_t *rt = &n->routes[e->id];
  rt->busy += e->t - rt->busy_since;
  rt->active = 0;
  n->nactive--;
  return rt->user;
}

int sim_net_pop(sim_net_t *n, double *t) {
  if (alone_first(n)) {
    sim_ev_t e = sim_evq_pop(&n->alone);
    *t = e.t;
    return sim_net_end(n, &e);
  }
  if (!n->nheap) return -1;
  n->nactive--;
  int id = n->heap[0].id;
  flow_t *f = &n->flows[id];
  double now = f->finish;
  *t = now;
  n->nheap--;
  if (n->nheap) {
    n->heap[0] = n->heap[n->nheap];
    heap_down(n, 0);
  }
  f->heap = -1;
  int nseed = 0;
  for (int j = 0; j < f->len; j++) {
    res_t *r = &n->res[f->path[j]];
    int pos = LPOS(f)[j], last = r->flows[--r->nflows];
    if (last != id) {
      r->flows[pos] = last;
      flow_t *g = &n->flows[last];
      for (int k = 0; k < g->len; k++)
        if (g->path[k] == f->path[j] && LPOS(g)[k] == r->nflows) {
          LPOS(g)[k] = pos;
          break;
        }
    }
    if (r->nflows == 0) {
      r->busy += now - r->busy_since;
    } else if (n->defer) {
      touch(n, f->path[j], now); /* out of memory: a re-sharing lost, as below */
    } else if (ensure((void **)&n->stack, &n->stack_cap, nseed + 1, sizeof(int)) == 0) {
      n->stack[nseed++] = f->path[j];
    }
  }
  n->free_ids[n->nfree++] = id;
  if (nseed) reshare(n, nseed, now);
  update_head(n);
  return f->user;
}

int sim_net_active(const sim_net_t *n) { return n->nactive; }
int sim_net_peak(const sim_net_t *n) { return n->peak; }
uint64_t sim_net_started(const sim_net_t *n) { return n->started; }
uint64_t sim_net_recomputes(const sim_net_t *n) { return n->recomputes; }

double sim_net_res_busy(const sim_net_t *n, int res, double now) {
  if (n->res_route && n->res_route[res] >= 0) {
    const route_t *rt = &n->routes[n->res_route[res]];
    return rt->busy + (rt->active ? now - rt->busy_since : 0);
  }
  const res_t *r = &n->res[res];
  return r->busy + (r->nflows ? now - r->busy_since : 0);
}

static int cmp_i32(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

chorus_result_t sim_fill_bundles(int nres, const double *cap, int nb, const int64_t *first, const int32_t *res,
                                 double *rate) {
  int64_t total = first[nb];
  /* Each bundle's resources, counted: (res, cnt), bundle by bundle; and per
   * resource the bundles through it (CSR). */
  int32_t *r_of = malloc(sizeof *r_of * (size_t)(total + 1)), *cnt = malloc(sizeof *cnt * (size_t)(total + 1));
  int64_t *bfirst = malloc(sizeof *bfirst * ((size_t)nb + 1)), *rfirst = calloc((size_t)nres + 2, sizeof *rfirst);
  int32_t *rb = malloc(sizeof *rb * (size_t)(total + 1));
  double *load = calloc((size_t)nres + 1, sizeof *load), *left = malloc(sizeof *left * ((size_t)nres + 1));
  uint8_t *frozen = calloc((size_t)nb + 1, 1);
  chorus_result_t r = chorus_success;
  if (!r_of || !cnt || !bfirst || !rfirst || !rb || !load || !left || !frozen) {
    r = chorus_out_of_memory;
    goto out;
  }
  int64_t m = 0;
  for (int b = 0; b < nb; b++) {
    int64_t a = first[b], e = first[b + 1], w = bfirst[b] = m;
    memcpy(r_of + m, res + a, sizeof *res * (size_t)(e - a));
    qsort(r_of + m, (size_t)(e - a), sizeof *r_of, cmp_i32);
    /* the sorted run r_of[m .. m + (e - a)), compressed in place */
    for (int64_t i = m; i < m + (e - a); i++) {
      if (w > bfirst[b] && r_of[w - 1] == r_of[i]) {
        cnt[w - 1]++;
      } else {
        r_of[w] = r_of[i], cnt[w] = 1, w++;
      }
    }
    m = w;
  }
  bfirst[nb] = m;
  for (int b = 0; b < nb; b++)
    for (int64_t i = bfirst[b]; i < bfirst[b + 1]; i++) {
      rfirst[r_of[i] + 2]++;
      load[r_of[i]] += cnt[i];
    }
  for (int q = 0; q < nres; q++) rfirst[q + 2] += rfirst[q + 1];
  for (int b = 0; b < nb; b++)
    for (int64_t i = bfirst[b]; i < bfirst[b + 1]; i++) rb[rfirst[r_of[i] + 1]++] = b;
  /* now the bundles through resource q are rb[rfirst[q] .. rfirst[q + 1]) */
  for (int q = 0; q < nres; q++) left[q] = cap[q];
  for (int b = 0; b < nb; b++) rate[b] = 0;
  int live = nb;
  while (live > 0) {
    double step = INFINITY;
    int full = -1;
    for (int q = 0; q < nres; q++)
      if (cap[q] > 0 && load[q] > 0 && left[q] / load[q] < step) step = left[q] / load[q], full = q;
    if (full < 0) {
      for (int b = 0; b < nb; b++)
        if (!frozen[b]) rate[b] = INFINITY;
      break;
    }
    for (int b = 0; b < nb; b++)
      if (!frozen[b]) rate[b] += step;
    for (int q = 0; q < nres; q++) left[q] -= step * load[q];
    /* Full resources stop their bundles (a relative tolerance: the
     * subtractions above round). */
    for (int q = 0; q < nres; q++) {
      if (q != full && !(cap[q] > 0 && load[q] > 0 && left[q] <= cap[q] * 1e-12)) continue;
      for (int64_t i = rfirst[q]; i < rfirst[q + 1]; i++) {
        int b = rb[i];
        if (frozen[b]) continue;
        frozen[b] = 1, live--;
        for (int64_t j = bfirst[b]; j < bfirst[b + 1]; j++) load[r_of[j]] -= cnt[j];
      }
      load[q] = 0;
    }
  }
out:
  free(r_of), free(cnt), free(bfirst), free(rfirst), free(rb), free(load), free(left), free(frozen);
  return r;
}
