/* verify.c -- the verifier (verify.h): every rank's program runs symbolically
 * in synchronous rounds under the engine's flow control, and what the outputs
 * hold is checked against the collective's postcondition. explain.c prints
 * the same rounds for a person to follow. */
#include "verify.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "verify_run.h"

/* ---------------------------------------------------------------- pool */

static void pool_init(vpool_t *vp, int nranks) {
  memset(vp, 0, sizeof *vp);
  vp->words = ((size_t)nranks + 63) / 64;
  vp->top = 1;
}

/* Forget every value, keeping the memory for the next run. */
static void pool_reset(vpool_t *vp) {
  vp->top = 1;
  vp->free_head = 0;
  vp->live = vp->peak = 0;
}

static void pool_fini(vpool_t *vp) {
  free(vp->pos);
  free(vp->count);
  free(vp->ref);
  free(vp->bits);
  memset(vp, 0, sizeof *vp);
}

static int pool_grow(vpool_t *vp) {
  int64_t cap = vp->cap ? (int64_t)vp->cap * 2 : 1024;
  if (cap > INT32_MAX) return -1;
  int32_t *pos = realloc(vp->pos, (size_t)cap * sizeof *pos);
  if (!pos) return -1;
  vp->pos = pos;
  int32_t *count = realloc(vp->count, (size_t)cap * sizeof *count);
  if (!count) return -1;
  vp->count = count;
  int32_t *ref = realloc(vp->ref, (size_t)cap * sizeof *ref);
  if (!ref) return -1;
  vp->ref = ref;
  uint64_t *bits = realloc(vp->bits, (size_t)cap * vp->words * sizeof *bits);
  if (!bits) return -1;
  vp->bits = bits;
  vp->cap = (int32_t)cap;
  return 0;
}

/* A new value with one reference, or 0 when memory ran out. */
static int32_t pool_alloc(vpool_t *vp) {
  int32_t i = vp->free_head;
  if (i) {
    vp->free_head = vp->ref[i];
  } else {
    if (vp->top >= vp->cap && pool_grow(vp)) return 0;
    i = vp->top++;
  }
  vp->ref[i] = 1;
  if (++vp->live > vp->peak) vp->peak = vp->live;
  return i;
}

static inline void val_ref(vpool_t *vp, vval_t v) {
  if (v > 0) vp->ref[v]++;
}

static inline void val_unref(vpool_t *vp, vval_t v) {
  if (v > 0 && --vp->ref[v] == 0) {
    vp->ref[v] = vp->free_head;
    vp->free_head = (int32_t)v;
    vp->live--;
  }
}

static inline vval_t val_input(const vrun_t *R, int rank, int pos) {
  return -1 - ((int64_t)rank * R->in_chunks + pos);
}


/* The one rank of an input handle (v < 0). */
static inline int val_origin(const vrun_t *R, vval_t v) {
  return (int)((-1 - v) / R->in_chunks);
}


static inline const uint64_t *val_bits(const vrun_t *R, vval_t v) {
  return R->pool.bits + (size_t)v * R->pool.words;
}

static int val_has(const vrun_t *R, vval_t v, int rank) {
  if (v < 0) return val_origin(R, v) == rank;
  return (int)(val_bits(R, v)[rank / 64] >> (rank % 64) & 1);
}

/* The lowest rank both values hold, or -1 when their sets are disjoint. */
static int val_overlap(const vrun_t *R, vval_t a, vval_t b) {
  if (a < 0 || b < 0) {
    vval_t one = a < 0 ? a : b, other = a < 0 ? b : a;
    int r = val_origin(R, one);
    return val_has(R, other, r) ? r : -1;
  }
  const uint64_t *x = val_bits(R, a), *y = val_bits(R, b);
  for (size_t w = 0; w < R->pool.words; w++)
    if (x[w] & y[w]) return (int)(w * 64) + __builtin_ctzll(x[w] & y[w]);
  return -1;
}

/* The lowest rank the value lacks, or -1 when it holds all of them. */
static int val_missing(const vrun_t *R, vval_t v) {
  if (v < 0) return val_origin(R, v) == 0 ? (R->n > 1 ? 1 : -1) : 0;
  const uint64_t *x = val_bits(R, v);
  for (size_t w = 0; w < R->pool.words; w++) {
    uint64_t want = (size_t)R->n >= (w + 1) * 64 ? ~0ULL : (1ULL << (R->n % 64)) - 1;
    if ((x[w] & want) != want) return (int)(w * 64) + __builtin_ctzll(~x[w] & want);
  }
  return -1;
}

/* a (+) b, already checked to be of one position and disjoint: a new value,
 * or 0 when memory ran out. */
static vval_t val_reduce(vrun_t *R, vval_t a, vval_t b) {
  vpool_t *vp = &R->pool;
  int32_t i = pool_alloc(vp);
  if (!i) return 0;
  uint64_t *d = vp->bits + (size_t)i * vp->words;
  if (a > 0) {
    memcpy(d, val_bits(R, a), vp->words * sizeof *d);
  } else {
    memset(d, 0, vp->words * sizeof *d);
    d[val_origin(R, a) / 64] |= 1ULL << (val_origin(R, a) % 64);
  }
  if (b > 0) {
    const uint64_t *s = val_bits(R, b);
    for (size_t w = 0; w < vp->words; w++)
      d[w] |= s[w];
  } else {
    d[val_origin(R, b) / 64] |= 1ULL << (val_origin(R, b) % 64);
  }
  vp->pos[i] = val_pos(R, a);
  vp->count[i] = val_count(R, a) + val_count(R, b);
  return i;
}

/* The value's ranks as ranges ("0,2-3"), cut short with "..." when they
 * do not fit. */
void vrun_ranks_text(const vrun_t *R, vval_t v, char *buf, size_t len) {
  size_t used = 0;
  buf[0] = 0;
  for (int r = 0; r < R->n; r++) {
    if (!val_has(R, v, r)) continue;
    int end = r;
    while (end + 1 < R->n && val_has(R, v, end + 1))
      end++;
    char piece[32];
    int w = end > r ? snprintf(piece, sizeof piece, "%s%d-%d", used ? "," : "", r, end)
                    : snprintf(piece, sizeof piece, "%s%d", used ? "," : "", r);
    if (used + (size_t)w + 4 > len) {
      snprintf(buf + used, len - used, "...");
      return;
    }
    memcpy(buf + used, piece, (size_t)w + 1);
    used += (size_t)w;
    r = end;
  }
}

/* "rank 1", "ranks 0-2". */
static void val_who(const vrun_t *R, vval_t v, char *buf, size_t len) {
  char set[256];
  vrun_ranks_text(R, v, set, sizeof set);
  snprintf(buf, len, "rank%s %s", val_count(R, v) > 1 ? "s" : "", set);
}

/* "in[3] of rank 1", "in[3] of ranks 0-2". */
static void val_describe(const vrun_t *R, vval_t v, char *buf, size_t len) {
  char who[280];
  val_who(R, v, who, sizeof who);
  snprintf(buf, len, "in[%d] of %s", val_pos(R, v), who);
}

/* ---------------------------------------------------------------- connections */

/* Zeroed memory for n items of `size` bytes. The slots and the connection
 * table are touched all over in every round, so large ones are asked for
 * huge pages: far fewer TLB misses and first-touch faults (DOMAIN.md: about
 * 12 us a page here). Freed with free(). */
static void *big_calloc(size_t n, size_t size) {
  if (n > SIZE_MAX / size - VERIFY_HUGE) return NULL;
  size_t bytes = n * size;
  if (bytes < VERIFY_HUGE) return calloc(n, size);
  void *m = NULL;
  bytes = (bytes + VERIFY_HUGE - 1) & ~(size_t)(VERIFY_HUGE - 1);
  if (posix_memalign(&m, VERIFY_HUGE, bytes)) return NULL;
#ifdef MADV_HUGEPAGE
  madvise(m, bytes, MADV_HUGEPAGE); /* advice only: without it, small pages */
#endif
  memset(m, 0, bytes);
  return m;
}

static inline uint64_t conn_key(const vrun_t *R, int sender, int receiver, int ch) {
  return ((uint64_t)sender * (uint64_t)R->np + (uint64_t)receiver) * (uint64_t)R->nch + (uint64_t)ch;
}

/* splitmix64's finaliser: keys of one plan form arithmetic progressions
 * (rank * n + rank + 1, ...), which weaker mixes pile into clusters. */
static inline size_t conn_hash(uint64_t key, size_t mask) {
  uint64_t x = key + 1;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return (size_t)(x ^ (x >> 31)) & mask;
}

static void conns_fini(vconns_t *cs) {
  free(cs->table);
  free(cs->key);
  free(cs->head);
  free(cs->len);
  free(cs->val);
  free(cs->op);
  memset(cs, 0, sizeof *cs);
}

/* Double the table, or make it of `size` entries when there is none. */
static int conns_rehash(vconns_t *cs, size_t size) {
  if (cs->tmask) size = (cs->tmask + 1) * 2;
  vtabent_t *table = big_calloc(size, sizeof *table);
  if (!table) return -1;
  for (size_t q = 0; q < cs->nq; q++) {
    size_t h = conn_hash(cs->key[q], size - 1);
    while (table[h].key)
      h = (h + 1) & (size - 1);
    table[h] = (vtabent_t){cs->key[q] + 1, (int64_t)q};
  }
  free(cs->table);
  cs->table = table;
  cs->tmask = size - 1;
  return 0;
}

static int conns_grow_queues(vconns_t *cs) {
  size_t cap = cs->qcap ? cs->qcap * 2 : 256, s = (size_t)cs->slots;
  uint64_t *key = realloc(cs->key, cap * sizeof *key);
  if (!key) return -1;
  cs->key = key;
  int32_t *head = realloc(cs->head, cap * sizeof *head);
  if (!head) return -1;
  cs->head = head;
  int32_t *len = realloc(cs->len, cap * sizeof *len);
  if (!len) return -1;
  cs->len = len;
  vval_t *val = realloc(cs->val, cap * s * sizeof *val);
  if (!val) return -1;
  cs->val = val;
  uint32_t *op = realloc(cs->op, cap * s * sizeof *op);
  if (!op) return -1;
  cs->op = op;
  cs->qcap = cap;
  return 0;
}

/* The queue of a connection, made empty on first use; -1 when memory ran
 * out. Making a queue changes nothing any op sees, so the read-only phase of
 * a round may call it. */
static int32_t conns_get(vconns_t *cs, uint64_t key) {
  if ((cs->tused + 1) * 2 > cs->tmask + 1 && conns_rehash(cs, 1024)) return -1;
  size_t h = conn_hash(key, cs->tmask);
  for (; cs->table[h].key; h = (h + 1) & cs->tmask)
    if (cs->table[h].key == key + 1) return (int32_t)cs->table[h].q;
  if (cs->nq == cs->qcap && conns_grow_queues(cs)) return -1;
  int32_t q = (int32_t)cs->nq++;
  cs->key[q] = key;
  cs->head[q] = 0;
  cs->len[q] = 0;
  cs->table[h] = (vtabent_t){key + 1, q};
  cs->tused++;
  return q;
}

static inline vval_t conn_peek(const vconns_t *cs, int32_t q) {
  return cs->val[(size_t)q * (size_t)cs->slots + (size_t)cs->head[q]];
}

/* Takes over the caller's reference to v. */
static inline void conn_push(vconns_t *cs, int32_t q, vval_t v, uint32_t op) {
  size_t at = (size_t)q * (size_t)cs->slots + (size_t)((cs->head[q] + cs->len[q]) % cs->slots);
  cs->val[at] = v;
  cs->op[at] = op;
  cs->len[q]++;
}

/* Hands the queue's reference to the caller. */
static inline vval_t conn_pop(vconns_t *cs, int32_t q) {
  vval_t v = conn_peek(cs, q);
  cs->head[q] = (cs->head[q] + 1) % cs->slots;
  cs->len[q]--;
  return v;
}

/* ---------------------------------------------------------------- messages */

static void run_prefix(const vrun_t *R, char *buf, size_t len) {
  const plan_t *p = R->p;
  char root[32] = "";
  if (plan_coll_rooted(p->coll)) snprintf(root, sizeof root, " root=%d", p->root);
  snprintf(buf, len, "%s %s nranks=%d nodes=%d%s%s: ", p->algo[0] ? p->algo : "unnamed", chorus_coll_name(p->coll),
           p->nranks, p->shape.nnodes, root, R->inplace ? " in place" : "");
}

/* "rank 0 channel 1 op 3 (ring.lua:7, send to 1 in[2])"; brief: "ch". */
static void op_where(const plan_t *p, int pi, uint32_t opi, int brief, char *buf, size_t len) {
  const plan_op_t *op = &p->ops[p->progs[pi].first + opi];
  char text[160];
  plan_op_format(p, op, text, sizeof text);
  int rank = pi / p->nchannels, ch = pi % p->nchannels;
  const char *word = brief ? "ch" : "channel", *who = plan_is_hub(p, rank) ? "hub" : "rank";
  if (plan_is_hub(p, rank)) rank -= p->nranks;
  if (op->line > 0 && op->file < p->nfiles && p->files[op->file])
    snprintf(buf, len, "%s %d %s %d op %u (%s:%d, %s)", who, rank, word, ch, opi, plan_file_name(p, op->file),
             (int)op->line, text);
  else
    snprintf(buf, len, "%s %d %s %d op %u (%s)", who, rank, word, ch, opi, text);
}

/* Record the failure: the run's prefix, the op when pi >= 0, the detail. */
static chorus_result_t run_vfail(vrun_t *R, int pi, uint32_t opi, const char *fmt, va_list ap) {
  char prefix[240], where[320] = "", detail[1400];
  vsnprintf(detail, sizeof detail, fmt, ap);
  run_prefix(R, prefix, sizeof prefix);
  if (pi >= 0) op_where(R->p, pi, opi, 0, where, sizeof where);
  snprintf(R->res->msg, sizeof R->res->msg, "%s%s%s%s", prefix, where, pi >= 0 ? ": " : "", detail);
  R->res->rank = pi >= 0 ? pi / R->nch : -1;
  R->res->channel = pi >= 0 ? pi % R->nch : -1;
  R->res->op = pi >= 0 ? (int)opi : -1;
  return chorus_verify_failed;
}

chorus_result_t vrun_fail(vrun_t *R, int pi, uint32_t opi, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  chorus_result_t r = run_vfail(R, pi, opi, fmt, ap);
  va_end(ap);
  return r;
}

/* ---------------------------------------------------------------- the plan's shape */

static int buf_chunks(const plan_t *p, int b) {
  if (b == PLAN_BUF_INPUT) return p->in_units * p->nchunks;
  if (b == PLAN_BUF_OUTPUT) return p->out_units * p->nchunks;
  return p->scratch_chunks;
}

/* The plan's header, before any op is looked at: a C-built plan may hold
 * anything. */
static chorus_result_t check_header(vrun_t *R) {
  const plan_t *p = R->p;
  int in_units, out_units;
  if ((unsigned)p->coll >= chorus_num_collectives) return vrun_fail(R, -1, 0, "collective %d is unknown", (int)p->coll);
  plan_coll_units(p->coll, p->nranks, &in_units, &out_units);
  if (p->nranks < 1 || p->nranks > PLAN_MAX_RANKS || p->nchannels < 1 || p->nchannels > PLAN_MAX_CHANNELS)
    return vrun_fail(R, -1, 0, "%d ranks and %d channels: out of range", p->nranks, p->nchannels);
  if (p->nchunks < 1 || p->scratch_chunks < 0 || (int64_t)p->nchunks * p->nranks > INT32_MAX)
    return vrun_fail(R, -1, 0, "%d chunks per unit and %d scratch chunks: out of range", p->nchunks, p->scratch_chunks);
  if (p->in_units != in_units || p->out_units != out_units)
    return vrun_fail(R, -1, 0, "the plan has %d input and %d output units; %s on %d ranks has %d and %d", p->in_units,
                    p->out_units, chorus_coll_name(p->coll), p->nranks, in_units, out_units);
  if (p->root < 0 || p->root >= p->nranks) return vrun_fail(R, -1, 0, "root %d out of range", p->root);
  if (p->nhubs < 0 || p->nhubs > PLAN_MAX_HUBS) return vrun_fail(R, -1, 0, "%d hubs: out of range", p->nhubs);
  if (!p->progs) return vrun_fail(R, -1, 0, "the plan has no programs");
  for (size_t pi = 0; pi < (size_t)plan_nparts(p) * p->nchannels; pi++)
    if ((uint64_t)p->progs[pi].first + p->progs[pi].count > p->nops)
      return vrun_fail(R, -1, 0, "rank %d channel %d: program runs past the plan's %zu ops", (int)(pi / p->nchannels),
                      (int)(pi % p->nchannels), p->nops);
  return chorus_success;
}

static chorus_result_t check_peer(vrun_t *R, int pi, uint32_t opi, const char *what, int peer) {
  int rank = pi / R->nch;
  if (peer < 0 || peer >= R->np) {
    if (R->np > R->n)
      return vrun_fail(R, pi, opi, "%s peer %d out of range (nranks %d and %d hubs, ranks count from 0)", what, peer,
                       R->n, R->np - R->n);
    return vrun_fail(R, pi, opi, "%s peer %d out of range (nranks %d, ranks count from 0)", what, peer, R->n);
  }
  if (peer == rank) return vrun_fail(R, pi, opi, "%s peer %d is this rank itself", what, peer);
  return chorus_success;
}

static chorus_result_t check_ref(vrun_t *R, int pi, uint32_t opi, int b, int c, int writes) {
  const plan_t *p = R->p;
  if (b >= PLAN_NUM_BUFS) return vrun_fail(R, pi, opi, "buffer %d is not in, out or scratch", b);
  int n = buf_chunks(p, b), rank = pi / R->nch;
  if (c < 0 || c >= n)
    return vrun_fail(R, pi, opi, "chunk %d out of range for %s (%d chunks, counting from 0)", c,
                    plan_buf_name((plan_buf_t)b), n);
  if (writes && b == PLAN_BUF_INPUT)
    return vrun_fail(R, pi, opi, "writes in[%d]: IN is read-only; write OUT or SCRATCH", c);
  if (b != PLAN_BUF_SCRATCH && rank >= R->n)
    return vrun_fail(R, pi, opi, "a hub holds no %s buffer, only SCRATCH", plan_buf_name((plan_buf_t)b));
  if (p->coll == chorus_reduce && b == PLAN_BUF_OUTPUT && rank != p->root)
    return vrun_fail(R, pi, opi, "touches out[%d], but in reduce only the root (rank %d) has an output buffer", c,
                    p->root);
  return chorus_success;
}

/* What can be told from one op alone: code, peers, buffers and chunks,
 * with the words for the first thing wrong. */
static chorus_result_t check_op(vrun_t *R, int pi, uint32_t opi) {
  const plan_op_t *op = &R->p->ops[R->p->progs[pi].first + opi];
  if (op->code >= PLAN_NUM_OPS) return vrun_fail(R, pi, opi, "op code %d is not an op", op->code);
  unsigned f = R->opf[op->code];
  chorus_result_t r = chorus_success;
  if (f & OPF_RECV) r = check_peer(R, pi, opi, "recv", op->recv_peer);
  if (!r && (f & OPF_SEND)) r = check_peer(R, pi, opi, "send", op->send_peer);
  if (!r && (f & OPF_SRC)) r = check_ref(R, pi, opi, op->src_buf, op->src_chunk, 0);
  if (!r && (f & OPF_DST)) r = check_ref(R, pi, opi, op->dst_buf, op->dst_chunk, 1);
  return r;
}

static inline int ref_ok(const vrun_t *R, int rank, int b, int c, int writes) {
  if (b >= PLAN_NUM_BUFS || c < 0 || c >= R->bufn[b] || (writes && b == PLAN_BUF_INPUT)) return 0;
  if (b != PLAN_BUF_SCRATCH && rank >= R->n) return 0; /* a hub */
  return !(R->p->coll == chorus_reduce && b == PLAN_BUF_OUTPUT && rank != R->p->root);
}

/* check_op's verdict without its words: the fast path over millions of ops. */
static inline int op_ok(const vrun_t *R, int rank, const plan_op_t *op) {
  if (op->code >= PLAN_NUM_OPS) return 0;
  unsigned f = R->opf[op->code];
  if ((f & OPF_RECV) && ((unsigned)op->recv_peer >= (unsigned)R->np || op->recv_peer == rank)) return 0;
  if ((f & OPF_SEND) && ((unsigned)op->send_peer >= (unsigned)R->np || op->send_peer == rank)) return 0;
  if ((f & OPF_SRC) && !ref_ok(R, rank, op->src_buf, op->src_chunk, 0)) return 0;
  return !(f & OPF_DST) || ref_ok(R, rank, op->dst_buf, op->dst_chunk, 1);
}

/* ---------------------------------------------------------------- the run */

void vrun_fini(vrun_t *R) {
  pool_fini(&R->pool);
  conns_fini(&R->conns);
  free(R->mem);
  free(R->prog);
  free(R->cur);
  free(R->next);
  free(R->fire);
  free(R->cells);
  free(R->lines);
}

/* The run's dimensions, from a header check_header passed; its memory
 * comes with run_setup. */
static void run_init(vrun_t *R, const plan_t *p, int slots) {
  R->conns.slots = slots;
  R->n = p->nranks;
  R->np = plan_nparts(p);
  R->nch = p->nchannels;
  R->k = p->nchunks;
  R->in_chunks = p->in_units * p->nchunks;
  R->out_chunks = p->out_units * p->nchunks;
  R->nprogs = (size_t)R->np * (size_t)p->nchannels;
  R->fault_pi = -1;
  for (int b = 0; b < PLAN_NUM_BUFS; b++)
    R->bufn[b] = buf_chunks(p, b);
  for (int c = 0; c < PLAN_NUM_OPS; c++)
    R->opf[c] = (uint8_t)((plan_op_receives((plan_opcode_t)c) ? OPF_RECV : 0) |
                          (plan_op_sends((plan_opcode_t)c) ? OPF_SEND : 0) |
                          (plan_op_reads_src((plan_opcode_t)c) ? OPF_SRC : 0) |
                          (plan_op_writes_dst((plan_opcode_t)c) ? OPF_DST : 0));
}

/* Where chunk c of buffer b of program pi lives: an index into R->mem, or
 * SIZE_MAX for an input chunk without a slot. */
static inline size_t slot_of(const vrun_t *R, int pi, int b, int c) {
  const vmap_t *m = &R->map[b];
  if (R->root_alias && b == PLAN_BUF_INPUT && prog_rank(R, pi) == R->p->root) m = &R->root_in;
  if (m->off < 0) return SIZE_MAX;
  size_t at = (size_t)pi * R->stride + (size_t)m->off + (size_t)c;
  return m->by_rank ? at + (size_t)prog_rank(R, pi) * (size_t)R->k : at;
}

/* Out of place nothing writes the input, so its values are computed rather
 * than stored. In place the input and the output are one memory, as the
 * engine's API has it (chorus.h): both names reach one slot, and a write
 * through OUT changes what IN reads. Only in place reducescatter needs the
 * input's own slots (its output lies inside the input). */
static void run_map(vrun_t *R) {
  chorus_coll_t coll = R->p->coll;
  R->root_alias = 0;
  R->store_in = R->inplace && coll == chorus_reducescatter;
  int64_t out0 = R->store_in ? R->in_chunks : 0;
  R->stride = (size_t)out0 + (size_t)R->out_chunks + (size_t)R->p->scratch_chunks;
  R->map[PLAN_BUF_INPUT] = (vmap_t){R->store_in ? 0 : -1, 0};
  R->map[PLAN_BUF_OUTPUT] = (vmap_t){out0, 0};
  R->map[PLAN_BUF_SCRATCH] = (vmap_t){out0 + R->out_chunks, 0};
  if (!R->inplace) return;
  if (coll == chorus_allreduce || coll == chorus_broadcast) R->map[PLAN_BUF_INPUT] = (vmap_t){out0, 0};
  if (coll == chorus_allgather) R->map[PLAN_BUF_INPUT] = (vmap_t){out0, 1};
  if (coll == chorus_reducescatter) R->map[PLAN_BUF_OUTPUT] = (vmap_t){0, 1};
  if (coll == chorus_reduce) {
    R->root_in = (vmap_t){out0, 0};
    R->root_alias = 1;
  }
}

/* The initial value of input chunk c of a rank: its own data, except in
 * broadcast, where only the root's input holds any. */
static vval_t input_value(const vrun_t *R, int rank, int c) {
  if (R->p->coll == chorus_broadcast && rank != R->p->root) return 0;
  return val_input(R, rank, c);
}

vval_t vrun_slot_read(const vrun_t *R, int pi, int b, int c) {
  size_t s = slot_of(R, pi, b, c);
  return s == SIZE_MAX ? input_value(R, prog_rank(R, pi), c) : R->mem[s];
}

/* Write v (the caller keeps its own reference) into slot s. */
static void slot_write(vrun_t *R, size_t s, vval_t v) {
  val_ref(&R->pool, v);
  val_unref(&R->pool, R->mem[s]);
  R->mem[s] = v;
}

/* The run's memory, sized for every run to come (R->need_in: one of them
 * stores the input). A second run reuses it: its pages are already touched,
 * and first touch is what a fresh allocation of this size costs most. */
static chorus_result_t run_alloc(vrun_t *R) {
  size_t in = R->need_in ? (size_t)R->in_chunks : 0;
  size_t per = in + (size_t)R->out_chunks + (size_t)R->p->scratch_chunks;
  if (per && R->nprogs > (SIZE_MAX / sizeof(vval_t) - 1) / per) return chorus_out_of_memory;
  R->mem_len = per * R->nprogs + 1;
  R->mem = big_calloc(R->mem_len, sizeof *R->mem);
  R->prog = malloc(R->nprogs * sizeof *R->prog);
  for (size_t pi = 0; R->prog && pi < R->nprogs; pi++)
    R->prog[pi] = (vprog_t){.rpeer = -1, .speer = -1};
  R->cur = malloc(R->nprogs * sizeof *R->cur);
  R->next = malloc(R->nprogs * sizeof *R->next);
  R->fire = malloc(R->nprogs * sizeof *R->fire);
  if (!R->mem || !R->prog || !R->cur || !R->next || !R->fire) return chorus_out_of_memory;
  pool_init(&R->pool, R->n);
  /* Most programs talk to one or two peers each way: room for that up
   * front spares the table its rehashes. */
  size_t size = 1024;
  while (size < 4 * R->nprogs && size < ((size_t)1 << 30))
    size *= 2;
  if (conns_rehash(&R->conns, size)) return chorus_out_of_memory;
  return chorus_success;
}

/* Start a run: inputs in place, every program at its first op and queued
 * for round 1. The connections of an earlier run are kept (it passed, so
 * they are empty), and so are the programs' caches of them. */
static chorus_result_t run_setup(vrun_t *R) {
  if (!R->mem && run_alloc(R)) return chorus_out_of_memory;
  if (R->used) memset(R->mem, 0, R->mem_len * sizeof *R->mem);
  R->used = 1;
  run_map(R);
  pool_reset(&R->pool);
  R->round = R->rounds = 0;
  R->ncur = R->nnext = R->finished = 0;
  R->fault_pi = -1;
  for (size_t pi = 0; pi < R->nprogs; pi++) {
    vprog_t *g = &R->prog[pi];
    g->pc = 0;
    g->stamp = 0;
    for (int c = 0; prog_rank(R, (int)pi) < R->n && c < R->in_chunks && slot_of(R, (int)pi, PLAN_BUF_INPUT, 0) != SIZE_MAX; c++)
      R->mem[slot_of(R, (int)pi, PLAN_BUF_INPUT, c)] = input_value(R, prog_rank(R, (int)pi), c);
    if (R->p->progs[pi].count == 0) {
      R->finished++;
    } else {
      g->stamp = 1;
      R->cur[R->ncur++] = (int32_t)pi;
    }
  }
  return chorus_success;
}

static inline const plan_op_t *run_op(const vrun_t *R, int pi) {
  return &R->p->ops[R->p->progs[pi].first + R->prog[pi].pc];
}

/* The queue an op of program pi receives from (sender -> this rank) or sends
 * to (this rank -> receiver), through the program's cache. */
static int32_t run_queue(vrun_t *R, int pi, int peer, int sends) {
  vprog_t *g = &R->prog[pi];
  int32_t *cpeer = sends ? &g->speer : &g->rpeer, *cq = sends ? &g->sq : &g->rq;
  if (*cpeer == peer) return *cq;
  int rank = pi / R->nch, ch = pi % R->nch;
  int32_t q = conns_get(&R->conns, sends ? conn_key(R, rank, peer, ch) : conn_key(R, peer, rank, ch));
  if (q >= 0) {
    *cpeer = peer;
    *cq = q;
  }
  return q;
}

/* Record a fault of the next op of program pi found in the read-only
 * phase, keeping the lowest program's: the first fault in (round, rank,
 * channel) order. Returns 0, the op's verdict (it does not fire). */
static int run_fault(vrun_t *R, int pi, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int run_fault(vrun_t *R, int pi, const char *fmt, ...) {
  if (R->fault_pi >= 0 && R->fault_pi < pi) return 0;
  va_list ap;
  va_start(ap, fmt);
  run_vfail(R, pi, R->prog[pi].pc, fmt, ap);
  va_end(ap);
  R->fault_pi = pi;
  return 0;
}

/* An op is checked when a run first reaches it: the op is at hand then, and
 * its fault takes its place in round order. A run that passes has reached
 * every op. */
static int fault_malformed(vrun_t *R, int pi) {
  if (R->fault_pi >= 0 && R->fault_pi < pi) return 0;
  check_op(R, pi, R->prog[pi].pc);
  R->fault_pi = pi;
  return 0;
}

static int fault_unwritten(vrun_t *R, int pi, const plan_op_t *op) {
  const plan_t *p = R->p;
  if (op->src_buf == PLAN_BUF_INPUT && p->coll == chorus_broadcast && pi / R->nch != p->root)
    return run_fault(R, pi, "reads in[%d], which holds no data: in broadcast only the root's input (rank %d) does",
                     (int)op->src_chunk, p->root);
  return run_fault(R, pi, "reads %s[%d] before anything wrote it", plan_buf_name((plan_buf_t)op->src_buf),
                   (int)op->src_chunk);
}

/* Whether src (+) in may be formed: one position, disjoint rank sets. */
static int check_reduce(vrun_t *R, int pi, const plan_op_t *op, vval_t src, vval_t in) {
  char a[320], b[320];
  if (val_pos(R, src) != val_pos(R, in)) {
    val_describe(R, src, a, sizeof a);
    val_describe(R, in, b, sizeof b);
    return run_fault(R, pi, "reduces %s (its %s[%d]) with %s (received from rank %d): different positions", a,
                     plan_buf_name((plan_buf_t)op->src_buf), (int)op->src_chunk, b, (int)op->recv_peer);
  }
  int dup = val_overlap(R, src, in);
  if (dup >= 0) {
    val_who(R, src, a, sizeof a);
    val_who(R, in, b, sizeof b);
    return run_fault(
        R, pi, "double-counts the contribution of rank %d: its %s[%d] holds %s and the message from rank %d holds %s",
        dup, plan_buf_name((plan_buf_t)op->src_buf), (int)op->src_chunk, a, (int)op->recv_peer, b);
  }
  return 1;
}

/* The read-only phase: whether the next op of program pi can fire this
 * round, judged on the state at the round's start. Returns 1 when it was put
 * on the fire list, 0 when it is blocked or faulty (R->fault_pi), -1 when
 * memory ran out. */
static int run_examine(vrun_t *R, int pi) {
  if (R->prog[pi].pc == R->p->progs[pi].count) return 0;
  const plan_op_t *op = run_op(R, pi);
  if (!op_ok(R, prog_rank(R, pi), op)) return fault_malformed(R, pi);
  unsigned f = R->opf[op->code];
  vval_t src = 0;
  int32_t rq = -1, sq = -1;
  if (f & OPF_SRC) {
    src = vrun_slot_read(R, pi, op->src_buf, op->src_chunk);
    if (!src) return fault_unwritten(R, pi, op);
  }
  if (f & OPF_RECV) {
    rq = run_queue(R, pi, op->recv_peer, 0);
    if (rq < 0) return -1;
    if (R->conns.len[rq] == 0) return 0;
    if ((f & OPF_SRC) && !check_reduce(R, pi, op, src, conn_peek(&R->conns, rq))) return 0;
  }
  if (f & OPF_SEND) {
    sq = run_queue(R, pi, op->send_peer, 1);
    if (sq < 0) return -1;
    if (R->conns.len[sq] >= R->conns.slots) return 0;
  }
  vfire_t *fr = &R->fire[R->nfire++];
  int ch = R->nch == 1 ? 0 : pi % R->nch;
  *fr = (vfire_t){.src = src, .pi = pi, .rq = rq, .sq = sq, .f = f};
  fr->from = (f & OPF_RECV) ? op->recv_peer * R->nch + ch : -1;
  fr->to = (f & OPF_SEND) ? op->send_peer * R->nch + ch : -1;
  /* It fires after the whole read-only phase: fetch its slot meanwhile. */
  if (f & OPF_DST) {
    fr->dst = slot_of(R, pi, op->dst_buf, op->dst_chunk);
    __builtin_prefetch(&R->mem[fr->dst], 1);
  }
  return 1;
}

/* Queue program pi for the next round, once. */
static void run_wake(vrun_t *R, int pi) {
  vprog_t *g = &R->prog[pi];
  if (g->stamp == R->round + 1 || g->pc == R->p->progs[pi].count) return;
  g->stamp = R->round + 1;
  R->next[R->nnext++] = pi;
}


/* Fire one op decided on this round. Ops fired in one round cannot see each
 * other: each touches only its own rank's slots, and queues gain at the tail
 * what receivers take from a head that was there at the round's start. */
static chorus_result_t run_fire(vrun_t *R, const vfire_t *fr) {
  int pi = fr->pi;
  unsigned f = fr->f;
  /* Only this program writes its slots, so src is still what the
   * read-only phase found. */
  vval_t src = fr->src, v;
  if ((f & OPF_RECV) && (f & OPF_SRC)) {
    vval_t in = conn_pop(&R->conns, fr->rq);
    v = val_reduce(R, src, in);
    val_unref(&R->pool, in);
    if (!v) return chorus_out_of_memory;
  } else if (f & OPF_RECV) {
    v = conn_pop(&R->conns, fr->rq);
  } else {
    v = src;
    val_ref(&R->pool, v);
  }
  /* Here this op holds one reference to v: the slot takes its own, the
   * queue takes this one. */
  if (f & OPF_DST) slot_write(R, fr->dst, v);
  if (R->trace) explain_op(R, pi, run_op(R, pi), v);
  if (f & OPF_SEND)
    conn_push(&R->conns, fr->sq, v, R->prog[pi].pc);
  else
    val_unref(&R->pool, v);
  if (++R->prog[pi].pc == R->p->progs[pi].count) R->finished++;
  run_wake(R, pi);
  if (f & OPF_RECV) run_wake(R, fr->from);
  if (f & OPF_SEND) run_wake(R, fr->to);
  return chorus_success;
}

static int cmp_fire(const void *a, const void *b) {
  const vfire_t *x = a, *y = b;
  return (x->pi > y->pi) - (x->pi < y->pi);
}


/* Synchronous rounds, event-driven: a round examines only the programs that
 * fired in the last one or whose connections changed, so the cost follows
 * the ops, not rounds times ranks. Stops when nothing can fire. */
static chorus_result_t run_rounds(vrun_t *R) {
  while (R->ncur) {
    R->round++;
    R->nfire = 0;
    for (size_t i = 0; i < R->ncur; i++) {
      /* A round visits programs far apart in the op array: each next op is
       * a cache miss unless asked for ahead. */
      if (i + VERIFY_PREFETCH < R->ncur) __builtin_prefetch(run_op(R, R->cur[i + VERIFY_PREFETCH]));
      if (run_examine(R, R->cur[i]) < 0) return chorus_out_of_memory;
    }
    if (R->fault_pi >= 0) return chorus_verify_failed;
    if (!R->nfire) break;
    R->nnext = 0;
    if (R->trace) {
      qsort(R->fire, R->nfire, sizeof *R->fire, cmp_fire);
      explain_round_start(R);
    }
    for (size_t i = 0; i < R->nfire; i++) {
      chorus_result_t r = run_fire(R, &R->fire[i]);
      if (r) return r;
    }
    R->rounds = R->round;
    if (R->trace) explain_round_end(R);
    int32_t *t = R->cur;
    R->cur = R->next;
    R->next = t;
    R->ncur = R->nnext;
  }
  return chorus_success;
}

/* ---------------------------------------------------------------- after the run */

/* The rank a blocked program waits for: its sender when its message has not
 * come (*sends = 0), else its receiver, whose connection is full. */
static int blocked_on(vrun_t *R, int pi, int *sends) {
  const plan_op_t *op = run_op(R, pi);
  unsigned f = R->opf[op->code];
  *sends = 0;
  if (f & OPF_RECV) {
    int32_t q = conns_get(&R->conns, conn_key(R, op->recv_peer, pi / R->nch, pi % R->nch));
    if (q < 0 || R->conns.len[q] == 0) return op->recv_peer;
  }
  *sends = 1;
  return op->send_peer;
}

static chorus_result_t report_cycle(vrun_t *R, const int32_t *cyc, size_t len, int any_send) {
  char text[1400], where[320];
  size_t used = (size_t)snprintf(text, sizeof text, "deadlock: ");
  /* A long cycle is cut: its start and how many more programs it holds. */
  size_t shown = len > 8 ? 6 : len;
  for (size_t i = 0; i < shown && used < sizeof text; i++) {
    op_where(R->p, cyc[i], R->prog[cyc[i]].pc, 1, where, sizeof where);
    used += (size_t)snprintf(text + used, sizeof text - used, "%s waits for ", where);
  }
  if (shown < len && used < sizeof text)
    used += (size_t)snprintf(text + used, sizeof text - used, "... (%zu more in the cycle) ... ", len - shown);
  if (used < sizeof text) used += (size_t)snprintf(text + used, sizeof text - used, "rank %d", cyc[0] / R->nch);
  if (any_send && used < sizeof text)
    snprintf(text + used, sizeof text - used, " (a send waits while its connection holds %d chunks not yet received)",
             R->conns.slots);
  vrun_fail(R, -1, 0, "%s", text);
  R->res->rank = cyc[0] / R->nch;
  R->res->channel = cyc[0] % R->nch;
  R->res->op = (int)R->prog[cyc[0]].pc;
  return chorus_verify_failed;
}

/* Nothing can fire and some program is unfinished: follow who waits for
 * whom from the first blocked program until a program repeats (a cycle) or
 * the chain reaches one that finished (a receive no one sends, or a send no
 * one receives). */
static chorus_result_t report_deadlock(vrun_t *R) {
  size_t start = 0;
  while (R->prog[start].pc == R->p->progs[start].count)
    start++;
  int32_t *seen = calloc(R->nprogs, sizeof *seen), *chain = malloc(R->nprogs * sizeof *chain);
  chorus_result_t r = chorus_out_of_memory;
  if (!seen || !chain) goto cleanup;
  size_t len = 0;
  for (int pi = (int)start;;) {
    seen[pi] = (int32_t)++len;
    chain[len - 1] = pi;
    int sends, peer = blocked_on(R, pi, &sends), next = peer * R->nch + pi % R->nch;
    if (R->prog[next].pc == R->p->progs[next].count) {
      if (sends)
        r = vrun_fail(R, pi, R->prog[pi].pc,
                     "send to rank %d, which finished without receiving it (the connection's %d slots are full)", peer,
                     R->conns.slots);
      else
        r = vrun_fail(R, pi, R->prog[pi].pc, "recv from rank %d, which finished without sending it", peer);
      goto cleanup;
    }
    if (seen[next]) {
      /* Whether a send waits is told for the cycle, not the lead-in. */
      int any_send = 0;
      for (size_t i = (size_t)seen[next] - 1; i < len; i++) {
        int s;
        blocked_on(R, chain[i], &s);
        any_send |= s;
      }
      r = report_cycle(R, chain + seen[next] - 1, len - (size_t)(seen[next] - 1), any_send);
      goto cleanup;
    }
    pi = next;
  }
cleanup:
  free(seen);
  free(chain);
  return r;
}

/* The chunk an op sends, as the message names it. */
static void sent_ref(const plan_op_t *op, char *buf, size_t len) {
  int src = op->code == PLAN_OP_SEND || op->code == PLAN_OP_RECV_REDUCE_SEND;
  snprintf(buf, len, "%s[%d]", plan_buf_name((plan_buf_t)(src ? op->src_buf : op->dst_buf)),
           (int)(src ? op->src_chunk : op->dst_chunk));
}

/* Every program finished: a message still queued was never received. The
 * first by sender, channel and op is named. */
static chorus_result_t check_leftovers(vrun_t *R) {
  const vconns_t *cs = &R->conns;
  int best_pi = -1;
  uint32_t best_op = 0;
  int best_to = 0;
  for (size_t q = 0; q < cs->nq; q++) {
    if (!cs->len[q]) continue;
    uint64_t key = cs->key[q];
    int ch = (int)(key % (uint64_t)R->nch), to = (int)(key / (uint64_t)R->nch % (uint64_t)R->np);
    int from = (int)(key / (uint64_t)R->nch / (uint64_t)R->np), pi = from * R->nch + ch;
    uint32_t op = cs->op[q * (size_t)cs->slots + (size_t)cs->head[q]];
    if (best_pi < 0 || pi < best_pi || (pi == best_pi && op < best_op)) {
      best_pi = pi;
      best_op = op;
      best_to = to;
    }
  }
  if (best_pi < 0) return chorus_success;
  char ref[48];
  sent_ref(&R->p->ops[R->p->progs[best_pi].first + best_op], ref, sizeof ref);
  return vrun_fail(R, best_pi, best_op, "sends %s to rank %d, which never receives it", ref, best_to);
}

/* The postcondition at output chunk o of a rank: the input position it must
 * hold, and the one rank it comes from (-1: the reduction of all ranks). */
static void expect_at(const vrun_t *R, int rank, int o, int *pos, int *from) {
  int k = R->k;
  switch (R->p->coll) {
  case chorus_broadcast:
    *pos = o, *from = R->p->root;
    break;
  case chorus_allgather:
    *pos = o % k, *from = o / k;
    break;
  case chorus_reducescatter:
    *pos = rank * k + o, *from = -1;
    break;
  case chorus_alltoall:
    *pos = rank * k + o % k, *from = o / k;
    break;
  default: /* allreduce, reduce */
    *pos = o, *from = -1;
    break;
  }
}

/* The last op of program pi that writes output chunk o, or -1: programs
 * run in order, so it is the op whose value the chunk ends with. Searched
 * only once a chunk is wrong, so the runs keep no writer per slot. */
static int64_t last_writer(const vrun_t *R, int pi, int o) {
  const plan_t *p = R->p;
  const plan_op_t *ops = p->ops + p->progs[pi].first;
  for (int64_t i = (int64_t)p->progs[pi].count - 1; i >= 0; i--)
    if (ops[i].code < PLAN_NUM_OPS && (R->opf[ops[i].code] & OPF_DST) && ops[i].dst_buf == PLAN_BUF_OUTPUT &&
        ops[i].dst_chunk == o)
      return i;
  return -1;
}

/* A wrong output chunk: the program's rank and channel, the op that wrote
 * the chunk last (its index, script line and text), and what was expected
 * against what was found. */
static chorus_result_t output_fail(vrun_t *R, int pi, int o, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static chorus_result_t output_fail(vrun_t *R, int pi, int o, const char *fmt, ...) {
  char detail[1200], where[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(detail, sizeof detail, fmt, ap);
  va_end(ap);
  int64_t w = last_writer(R, pi, o);
  if (w >= 0) {
    op_where(R->p, pi, (uint32_t)w, 0, where, sizeof where);
    /* "rank 0 channel 1 op 3 (...)" without its rank and channel, which the
     * message names first. */
    const char *opi = strstr(where, " op ");
    vrun_fail(R, -1, 0, "rank %d channel %d output chunk %d %s; written last by%s", pi / R->nch, pi % R->nch, o, detail,
             opi ? opi : where);
  } else {
    vrun_fail(R, -1, 0, "rank %d channel %d output chunk %d %s; no op of this rank and channel writes it", pi / R->nch,
             pi % R->nch, o, detail);
  }
  R->res->rank = pi / R->nch;
  R->res->channel = pi % R->nch;
  R->res->op = (int)w;
  return chorus_verify_failed;
}

static chorus_result_t check_chunk(vrun_t *R, int pi, int o) {
  int rank = pi / R->nch, pos, from;
  expect_at(R, rank, o, &pos, &from);
  vval_t v = vrun_slot_read(R, pi, PLAN_BUF_OUTPUT, o);
  char set[320];
  if (!v) return output_fail(R, pi, o, "was never written");
  if (val_pos(R, v) != pos)
    return output_fail(R, pi, o, "holds the data of position in[%d], expected in[%d]", val_pos(R, v), pos);
  if (from < 0 && val_count(R, v) != R->n) {
    vrun_ranks_text(R, v, set, sizeof set);
    return output_fail(R, pi, o, "lacks the contribution of rank %d (holds %s)", val_missing(R, v), set);
  }
  if (from >= 0 && v > 0) {
    vrun_ranks_text(R, v, set, sizeof set);
    return output_fail(R, pi, o, "holds a reduction of ranks %s, expected rank %d's data", set, from);
  }
  if (from >= 0 && val_origin(R, v) != from)
    return output_fail(R, pi, o, "holds rank %d's data, expected rank %d's", val_origin(R, v), from);
  return chorus_success;
}

static chorus_result_t check_outputs(vrun_t *R) {
  for (int pi = 0; pi < R->n * R->nch; pi++) { /* hubs have no output */
    if (R->p->coll == chorus_reduce && pi / R->nch != R->p->root) continue;
    for (int o = 0; o < R->out_chunks; o++) {
      chorus_result_t r = check_chunk(R, pi, o);
      if (r) return r;
    }
  }
  return chorus_success;
}

/* One whole run: set up, rounds, and the checks after them. The plan's
 * header was checked; its ops are checked as the rounds reach them. */
chorus_result_t vrun_all(vrun_t *R) {
  chorus_result_t r = run_setup(R);
  if (!r) r = run_rounds(R);
  if (!r && R->finished < R->nprogs) r = report_deadlock(R);
  if (!r) r = check_leftovers(R);
  if (!r) r = check_outputs(R);
  if (r == chorus_out_of_memory) vrun_fail(R, -1, 0, "out of memory while verifying");
  if (R->pool.peak > R->res->peak_values) R->res->peak_values = R->pool.peak;
  return r;
}

void vrun_res_init(verify_result_t *res) {
  res->msg[0] = 0;
  res->rank = res->channel = res->op = -1;
  res->rounds = 0;
  res->peak_values = 0;
}

/* The header check, then a run ready to set up; slots as given. */
chorus_result_t vrun_open(vrun_t *R, const plan_t *p, verify_result_t *res, int slots) {
  memset(R, 0, sizeof *R);
  R->p = p;
  R->res = res;
  chorus_result_t r = check_header(R);
  if (!r) run_init(R, p, slots);
  return r;
}

chorus_result_t verify_plan(const plan_t *p, const verify_opts_t *opts, verify_result_t *res) {
  verify_result_t local;
  if (!res) res = &local;
  vrun_res_init(res);
  if (!p) return chorus_invalid_argument;
  int slots = opts && opts->slots ? opts->slots : p->window, mode = opts ? opts->inplace : 0;
  if (slots < 1 || slots > VERIFY_MAX_SLOTS || mode < -1 || mode > 2) {
    snprintf(res->msg, sizeof res->msg, "verify: slots %d (1 to %d) or in-place mode %d (-1 to 2) out of range", slots,
             VERIFY_MAX_SLOTS, mode);
    return chorus_invalid_argument;
  }
  /* alltoall has no in-place form (chorus.h), so asking for only that run
   * asks for nothing. */
  if (mode == 1 && p->coll == chorus_alltoall) {
    snprintf(res->msg, sizeof res->msg, "verify: alltoall has no in-place form; verify it out of place");
    return chorus_invalid_argument;
  }
  vrun_t R;
  chorus_result_t r = vrun_open(&R, p, res, slots);
  R.need_in = mode != 2 && p->coll == chorus_reducescatter;
  long rounds = 0;
  for (int inplace = 0; inplace < 2 && !r; inplace++) {
    if ((inplace && (mode == 2 || p->coll == chorus_alltoall)) || (!inplace && mode == 1)) continue;
    R.inplace = inplace;
    r = vrun_all(&R);
    if (!inplace || mode == 1) rounds = R.rounds;
  }
  vrun_fini(&R);
  res->rounds = rounds;
  return r;
}
