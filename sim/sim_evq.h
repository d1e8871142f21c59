/* sim_evq.h -- the simulator's event queue: events in exact (time, sequence
 * number) order, the order that makes a replay byte-identical run after run.
 *
 * Most events come a fixed delay after now (a route's latency, an op's
 * overhead, the reduction of a step of a given size, a step alone on its
 * route): one FIFO per distinct delay holds them already in order, since now
 * only grows and sequence numbers only grow. The rest (a step's arrival seen
 * by its receiver before it happened: its time is the step's departure plus
 * the route's latency, in no particular order) go to a calendar when one is
 * set up (sim_evq_calendar): buckets of a fixed width of time in a ring,
 * each kept sorted, found through a bitmap, so a push or a pop costs a few
 * steps whatever the number pending; an event outside the ring's span goes
 * to a binary heap. Each source's first event is kept as a key of two
 * unsigned words that order like (time, seq), and a tournament over the
 * sources (a winner tree of SIM_EVQ_SRCS leaves) keeps which one is first:
 * a source whose first event comes later replays its four matches, one
 * whose first comes earlier only those it wins. Every structure is exact in
 * (time, sequence) order, so which one holds an event never changes the
 * order. Functions are inline: the queue sits on every event's path, in
 * sim.c and in sim_net.c; what only grows memory is kept out of line. */
#ifndef CHORUS_SIM_EVQ_H
#define CHORUS_SIM_EVQ_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double t;
  uint64_t seq;
  int32_t id, kind;
} sim_ev_t;

/* Distinct delays with a FIFO of their own; further delays use the heap. */
#define SIM_EVQ_FIFOS 14
/* Sources: the heap, the calendar, then the FIFOs. */
#define SIM_EVQ_HEAP 0
#define SIM_EVQ_CAL 1
#define SIM_EVQ_SRCS (2 + SIM_EVQ_FIFOS)

/* (time, seq) as two words compared unsigned: hi from the time's bits
 * (non-negative times order as their bits; the mapping orders negative ones
 * too), lo the sequence number. */
typedef struct {
  uint64_t hi, lo;
} sim_evq_key_t;

static inline sim_evq_key_t sim_evq_key(double t, uint64_t seq) {
  double z = t + 0.0; /* -0 as +0: they are equal times */
  uint64_t u;
  memcpy(&u, &z, sizeof u);
  sim_evq_key_t k = {u >> 63 ? ~u : u | ((uint64_t)1 << 63), seq};
  return k;
}

static inline int sim_evq_key_lt(sim_evq_key_t a, sim_evq_key_t b) {
  return (a.hi < b.hi) | ((a.hi == b.hi) & (a.lo < b.lo));
}

static const sim_evq_key_t sim_evq_none = {UINT64_MAX, UINT64_MAX};

static inline int sim_ev_before(const sim_ev_t *a, const sim_ev_t *b) {
  return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

typedef struct {
  sim_ev_t *q; /* ring of cap (a power of two) entries */
  size_t head, n, cap;
} sim_evq_fifo_t;

/* A calendar entry: buckets are singly linked lists in (time, seq) order. */
typedef struct {
  sim_ev_t e;
  int32_t next;
  uint32_t bucket;
} sim_evq_node_t;

typedef struct {
  sim_evq_key_t key[SIM_EVQ_SRCS]; /* each source's first event; sim_evq_none when empty */
  uint8_t win[2 * SIM_EVQ_SRCS];   /* the tournament: win[1] is the first source */
  int nsrc;                        /* sources in use: 2 + FIFOs */
  int last;                        /* the FIFO sim_evq_after used last */
  size_t count;
  double delay[SIM_EVQ_FIFOS];
  sim_evq_fifo_t fifo[SIM_EVQ_FIFOS];
  sim_ev_t *heap;
  size_t nheap, heapcap;
  /* the calendar: bucket i holds the events of times t with
   * (uint64_t)(t * inv_w) == i, for i in cur .. cur + nb - 1 */
  double inv_w; /* 0: no calendar */
  uint64_t cur;
  uint32_t nb;
  int32_t calmin; /* the calendar's first node, -1 when empty */
  int32_t *bhead, *btail;
  uint64_t *bits;
  sim_evq_node_t *pool;
  int32_t npool, poolcap, freelist;
  size_t ncal;
} sim_evq_t;

/* Empty the queue, keeping its memory (and its calendar). */
static inline void sim_evq_clear(sim_evq_t *q) {
  if (q->ncal) {
    for (uint32_t i = 0; i < q->nb; i++)
      q->bhead[i] = -1;
    memset(q->bits, 0, sizeof *q->bits * (q->nb / 64));
  }
  q->ncal = 0;
  q->npool = 0;
  q->freelist = -1;
  q->calmin = -1;
  q->cur = 0;
  q->nheap = 0;
  q->count = 0;
  q->last = 0;
  q->nsrc = 2;
  for (int i = 0; i < SIM_EVQ_SRCS; i++)
    q->key[i] = sim_evq_none, q->win[SIM_EVQ_SRCS + i] = (uint8_t)i;
  for (int i = SIM_EVQ_SRCS - 1; i >= 1; i--)
    q->win[i] = q->win[2 * i];
  for (int i = 0; i < SIM_EVQ_FIFOS; i++)
    q->fifo[i].head = q->fifo[i].n = 0;
}

static inline void sim_evq_init(sim_evq_t *q) {
  memset(q, 0, sizeof *q);
  sim_evq_clear(q);
}

static inline void sim_evq_fini(sim_evq_t *q) {
  free(q->heap);
  free(q->bhead), free(q->btail), free(q->bits), free(q->pool);
  for (int i = 0; i < SIM_EVQ_FIFOS; i++)
    free(q->fifo[i].q);
  sim_evq_init(q);
}

/* Set up (or, width <= 0, remove) the calendar, on an empty queue: nb
 * buckets (a power of two, at least 64) of `width` seconds. A width near
 * the spread of pending events' times divided by their number keeps a
 * bucket to about one event. 0, or -1 when out of memory (the queue then
 * works without). */
static inline int sim_evq_calendar(sim_evq_t *q, double width, uint32_t nb) {
  free(q->bhead), free(q->btail), free(q->bits);
  q->bhead = q->btail = NULL;
  q->bits = NULL;
  q->inv_w = 0;
  q->nb = 0;
  q->ncal = 0;
  sim_evq_clear(q);
  if (!(width > 0) || nb < 64 || (nb & (nb - 1))) return 0;
  q->bhead = (int32_t *)malloc(sizeof *q->bhead * nb);
  q->btail = (int32_t *)malloc(sizeof *q->btail * nb);
  q->bits = (uint64_t *)calloc(nb / 64, sizeof *q->bits);
  if (!q->bhead || !q->btail || !q->bits) {
    free(q->bhead), free(q->btail), free(q->bits);
    q->bhead = q->btail = NULL;
    q->bits = NULL;
    return -1;
  }
  for (uint32_t i = 0; i < nb; i++)
    q->bhead[i] = -1;
  q->nb = nb;
  q->inv_w = 1 / width;
  return 0;
}

/* Source src's first event changed: replay its matches up the tree, each
 * against the winner of the sibling subtree (read from memory, independent
 * of the matches below, so the reads overlap). Keys never tie but empty
 * sources, whose order does not matter. */
static inline void sim_evq_replay(sim_evq_t *q, int src) {
  unsigned w = (unsigned)src;
  sim_evq_key_t k = q->key[src];
  for (unsigned i = SIM_EVQ_SRCS + (unsigned)src; i > 1; i >>= 1) {
    unsigned o = q->win[i ^ 1];
    sim_evq_key_t ko = q->key[o];
    if (sim_evq_key_lt(ko, k)) w = o, k = ko;
    q->win[i >> 1] = (uint8_t)w;
  }
}

/* Source src's first event is now k, earlier than before (or src was
 * empty): it wins its matches up to the first it loses, and no match above
 * that one changes. */
static inline void sim_evq_lower(sim_evq_t *q, int src, sim_evq_key_t k) {
  q->key[src] = k;
  for (int i = (SIM_EVQ_SRCS + src) >> 1; i >= 1; i >>= 1) {
    int w = q->win[i];
    if (w != src && !sim_evq_key_lt(k, q->key[w])) break;
    q->win[i] = (uint8_t)src;
  }
}

static __attribute__((noinline, unused)) int sim_evq_grow(void **p, size_t *cap, size_t elem, size_t first) {
  size_t c = *cap ? *cap * 2 : first;
  void *e = realloc(*p, elem * c);
  if (!e) return -1;
  *p = e;
  *cap = c;
  return 0;
}

static inline int sim_evq_heap_push(sim_evq_t *q, double t, uint64_t seq, int32_t id, int32_t kind) {
  if (q->nheap == q->heapcap && sim_evq_grow((void **)&q->heap, &q->heapcap, sizeof *q->heap, 1024)) return -1;
  size_t i = q->nheap++;
  sim_ev_t x = {t, seq, id, kind};
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!sim_ev_before(&x, &q->heap[p])) break;
    q->heap[i] = q->heap[p];
    i = p;
  }
  q->heap[i] = x;
  q->count++;
  if (i == 0) sim_evq_lower(q, SIM_EVQ_HEAP, sim_evq_key(t, seq));
  return 0;
}

static inline sim_ev_t sim_evq_heap_pop(sim_evq_t *q) {
  sim_ev_t top = q->heap[0], x = q->heap[--q->nheap];
  size_t i = 0, n = q->nheap;
  for (;;) {
    size_t l = 2 * i + 1, m = i;
    const sim_ev_t *best = &x;
    if (l < n && sim_ev_before(&q->heap[l], best)) m = l, best = &q->heap[l];
    if (l + 1 < n && sim_ev_before(&q->heap[l + 1], best)) m = l + 1;
    if (m == i) break;
    q->heap[i] = q->heap[m];
    i = m;
  }
  if (n) q->heap[i] = x;
  q->key[SIM_EVQ_HEAP] = n ? sim_evq_key(q->heap[0].t, q->heap[0].seq) : sim_evq_none;
  return top;
}

/* The calendar's first node: the head of the first bucket from cur (the
 * calendar is not empty). Moves cur there: nothing in it lies before. */
static inline int32_t sim_evq_cal_first(sim_evq_t *q) {
  uint32_t mask = q->nb - 1, p = (uint32_t)(q->cur & mask), nw = q->nb / 64;
  uint32_t w = p >> 6;
  uint64_t word = q->bits[w] & (~(uint64_t)0 << (p & 63));
  while (!word) {
    w = (w + 1) & (nw - 1);
    word = q->bits[w];
  }
  uint32_t b = (w << 6) | (uint32_t)__builtin_ctzll(word);
  q->cur += (b - p) & mask;
  return q->bhead[b];
}

/* Into the calendar when t falls in its span, else the heap. */
static inline int sim_evq_cal_push(sim_evq_t *q, double t, uint64_t seq, int32_t id, int32_t kind) {
  double x = t * q->inv_w;
  if (!(x >= 0 && x < 4e18)) return sim_evq_heap_push(q, t, seq, id, kind);
  uint64_t idx = (uint64_t)x;
  if (idx < q->cur || idx - q->cur >= q->nb) return sim_evq_heap_push(q, t, seq, id, kind);
  int32_t n = q->freelist;
  if (n >= 0) {
    q->freelist = q->pool[n].next;
  } else {
    if (q->npool == q->poolcap) {
      size_t c = (size_t)q->poolcap;
      if (sim_evq_grow((void **)&q->pool, &c, sizeof *q->pool, 1024)) return -1;
      q->poolcap = (int32_t)c;
    }
    n = q->npool++;
  }
  uint32_t b = (uint32_t)(idx & (q->nb - 1));
  sim_evq_node_t *nd = &q->pool[n];
  nd->e = (sim_ev_t){t, seq, id, kind};
  nd->bucket = b;
  int32_t h = q->bhead[b];
  if (h < 0) {
    nd->next = -1;
    q->bhead[b] = q->btail[b] = n;
    q->bits[b >> 6] |= (uint64_t)1 << (b & 63);
  } else if (!sim_ev_before(&nd->e, &q->pool[q->btail[b]].e)) {
    /* The common case, and the only one among equal times: at the end. */
    nd->next = -1;
    q->pool[q->btail[b]].next = n;
    q->btail[b] = n;
  } else if (sim_ev_before(&nd->e, &q->pool[h].e)) {
    nd->next = h;
    q->bhead[b] = n;
  } else {
    int32_t p = h;
    while (!sim_ev_before(&nd->e, &q->pool[q->pool[p].next].e))
      p = q->pool[p].next;
    nd->next = q->pool[p].next;
    q->pool[p].next = n;
  }
  q->count++;
  if (q->ncal++ == 0 || sim_ev_before(&nd->e, &q->pool[q->calmin].e)) {
    q->calmin = n;
    sim_evq_lower(q, SIM_EVQ_CAL, sim_evq_key(t, seq));
  }
  return 0;
}

static inline sim_ev_t sim_evq_cal_pop(sim_evq_t *q) {
  int32_t n = q->calmin;
  sim_evq_node_t *nd = &q->pool[n];
  uint32_t b = nd->bucket;
  if ((q->bhead[b] = nd->next) < 0) q->bits[b >> 6] &= ~((uint64_t)1 << (b & 63));
  nd->next = q->freelist;
  q->freelist = n;
  if (--q->ncal) {
    q->calmin = sim_evq_cal_first(q);
    const sim_ev_t *f = &q->pool[q->calmin].e;
    q->key[SIM_EVQ_CAL] = sim_evq_key(f->t, f->seq);
  } else {
    q->calmin = -1;
    q->key[SIM_EVQ_CAL] = sim_evq_none;
  }
  return nd->e;
}

/* An event at time t. 0, or -1 when out of memory. */
static inline int sim_evq_push(sim_evq_t *q, double t, uint64_t seq, int32_t id, int32_t kind) {
  if (q->inv_w > 0) return sim_evq_cal_push(q, t, seq, id, kind);
  return sim_evq_heap_push(q, t, seq, id, kind);
}

/* The FIFO of events `delay` after now, made on first use; -1 when every
 * FIFO holds another delay. A caller may keep the number until the queue is
 * cleared. */
static inline int sim_evq_fifo(sim_evq_t *q, double delay) {
  int f = q->last;
  if (f < q->nsrc - 2 && q->delay[f] == delay) return f;
  for (f = 0; f < q->nsrc - 2; f++)
    if (q->delay[f] == delay) return q->last = f;
  if (f == SIM_EVQ_FIFOS) return -1;
  q->delay[f] = delay;
  q->fifo[f].head = q->fifo[f].n = 0;
  q->key[2 + f] = sim_evq_none;
  q->nsrc++;
  return q->last = f;
}

static __attribute__((noinline, unused)) int sim_evq_fifo_grow(sim_evq_fifo_t *r) {
  size_t c = r->cap ? r->cap * 2 : 256;
  sim_ev_t *e = (sim_ev_t *)malloc(sizeof *e * c);
  if (!e) return -1;
  for (size_t i = 0; i < r->n; i++)
    e[i] = r->q[(r->head + i) & (r->cap - 1)];
  free(r->q);
  r->q = e;
  r->cap = c;
  r->head = 0;
  return 0;
}

/* An event in FIFO f (from sim_evq_fifo), at now + its delay. */
static inline int sim_evq_after_in(sim_evq_t *q, int f, double now, uint64_t seq, int32_t id, int32_t kind) {
  sim_evq_fifo_t *r = &q->fifo[f];
  if (r->n == r->cap && sim_evq_fifo_grow(r)) return -1;
  sim_ev_t x = {now + q->delay[f], seq, id, kind};
  r->q[(r->head + r->n) & (r->cap - 1)] = x;
  q->count++;
  if (r->n++ == 0) sim_evq_lower(q, 2 + f, sim_evq_key(x.t, seq));
  return 0;
}

/* An event `delay` after now (time now + delay, computed so). */
static inline int sim_evq_after(sim_evq_t *q, double now, double delay, uint64_t seq, int32_t id, int32_t kind) {
  int f = sim_evq_fifo(q, delay);
  if (f < 0) return sim_evq_push(q, now + delay, seq, id, kind);
  return sim_evq_after_in(q, f, now, seq, id, kind);
}

/* The first event, or NULL when none. */
static inline const sim_ev_t *sim_evq_peek(const sim_evq_t *q) {
  if (!q->count) return NULL;
  int w = q->win[1];
  if (w == SIM_EVQ_HEAP) return &q->heap[0];
  if (w == SIM_EVQ_CAL) return &q->pool[q->calmin].e;
  const sim_evq_fifo_t *r = &q->fifo[w - 2];
  return &r->q[r->head];
}

/* Take the first event (the queue must not be empty). */
static inline sim_ev_t sim_evq_pop(sim_evq_t *q) {
  int w = q->win[1];
  sim_ev_t e;
  q->count--;
  if (w == SIM_EVQ_HEAP) {
    e = sim_evq_heap_pop(q);
  } else if (w == SIM_EVQ_CAL) {
    e = sim_evq_cal_pop(q);
  } else {
    sim_evq_fifo_t *r = &q->fifo[w - 2];
    e = r->q[r->head];
    r->head = (r->head + 1) & (r->cap - 1);
    if (--r->n)
      q->key[w] = sim_evq_key(r->q[r->head].t, r->q[r->head].seq);
    else
      q->key[w] = sim_evq_none;
  }
  sim_evq_replay(q, w);
  return e;
}

#endif
