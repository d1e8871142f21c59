/* verify_run.h -- internal to plan/: the verifier's symbolic run (its
 * values, connections and programs), which verify.c drives and checks and
 * explain.c prints. Nothing outside plan/ includes it. */
#ifndef CHORUS_VERIFY_RUN_H
#define CHORUS_VERIFY_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "verify.h"

/* A connection never buffers more than this many chunks, whatever a caller
 * asks: it bounds the queues' memory. */
#define VERIFY_MAX_SLOTS 4096

/* Arrays from this size on are asked for huge pages (big_calloc). */
#define VERIFY_HUGE (2u << 20)

/* How many programs ahead a round fetches the next op. */
#define VERIFY_PREFETCH 8

/* What the text explainer shows: more ranks or columns would not be read
 * (the JSON of the page shows up to EXPLAIN_JSON_RANKS and _COLS). */
#define EXPLAIN_RANKS 8
#define EXPLAIN_COLS 16
#define EXPLAIN_CELL 64
#define EXPLAIN_JSON_RANKS 64
#define EXPLAIN_JSON_COLS 256

/* ======================================================================
 * Values. A chunk slot holds a handle: 0 = unwritten; < 0 the input chunk
 * (rank r, position c) itself, encoded without allocation since most slots
 * never hold anything else; > 0 an index into a refcounted pool of reduced
 * values (a position and a bitset of ranks). Copies and messages share a
 * handle; only reductions allocate. Because a reduction of overlapping sets
 * is a fault, the bitset equals the multiset of every run that gets that far.
 * ====================================================================== */
typedef int64_t vval_t;

typedef struct {
  size_t words;      /* bitset words per value */
  int32_t *pos;      /* [cap] input position the value reduces */
  int32_t *count;    /* [cap] ranks in the set */
  int32_t *ref;      /* [cap] references; the next free index while free */
  uint64_t *bits;    /* [cap * words] */
  int32_t cap, top;  /* top: first index never used (0 is the null handle) */
  int32_t free_head; /* 0: none free */
  size_t live, peak;
} vpool_t;

/* ======================================================================
 * Connections: one FIFO per (sender, receiver, channel) in use, found
 * through an open-addressing table, since n * n * channels queues cannot be
 * allocated densely at thousands of ranks. A queue is a ring of `slots`
 * messages, each with the sender's op index to name a message never
 * received.
 * ====================================================================== */
typedef struct {
  uint64_t key; /* connection key + 1, 0 = empty */
  int64_t q;    /* its queue */
} vtabent_t;

typedef struct {
  int slots;
  vtabent_t *table; /* one probe, one cache line */
  size_t tmask, tused;
  uint64_t *key; /* [nq] connection key of each queue */
  int32_t *head, *len;
  vval_t *val;  /* [nq * slots] */
  uint32_t *op; /* [nq * slots] */
  size_t nq, qcap;
} vconns_t;

/* One (rank, channel) program: the next op, the round it is queued for, and
 * the queues its last receive and send used (most programs talk to the same
 * peers op after op, so this saves the table lookups). */
typedef struct {
  uint32_t pc;
  int32_t rpeer, rq, speer, sq;
  long stamp;
} vprog_t;

/* An op decided on in a round's read-only phase, with all its firing needs:
 * the fire phase then never goes back to the op array, whose ops of one
 * round lie on as many pages as there are programs. */
typedef struct {
  vval_t src;       /* the value it reads */
  size_t dst;       /* the slot it writes */
  int32_t pi;       /* its program */
  int32_t rq, sq;   /* the queues it takes from and adds to, or -1 */
  int32_t from, to; /* the programs of its sender and receiver, to wake */
  uint32_t f;       /* OPF_ flags */
} vfire_t;

/* Where a buffer's chunks live in a program's slots: chunk c of the rank at
 * off + c, plus rank * k when by_rank; off < 0: the input itself, whose
 * value is computed, not stored. */
typedef struct {
  int64_t off;
  int by_rank;
} vmap_t;

/* An op line of explain, gathered so that a round's op names share a column;
 * rank, channel and peers for the page (chorus explain --html). */
typedef struct {
  char text[256];
  const char *name;
  int rank, ch, to, from; /* to/from: the peer sent to / received from, -1 when none */
} explain_line_t;

/* Op code properties, looked up once from plan.c's predicates. */
enum { OPF_RECV = 1, OPF_SEND = 2, OPF_SRC = 4, OPF_DST = 8 };

typedef struct {
  const plan_t *p;
  verify_result_t *res;
  int inplace;
  int n, nch, k, in_chunks, out_chunks;
  int np;        /* participants: the n ranks and the plan's hubs (plan.h) */
  int store_in;  /* the input has slots of its own (else it is computed) */
  int need_in;   /* some run of this verification stores the input */
  size_t stride; /* slots per program */
  vmap_t map[PLAN_NUM_BUFS];
  vmap_t root_in;          /* in place reduce: the root's input, which is its output */
  int root_alias;          /* root_in applies */
  int bufn[PLAN_NUM_BUFS]; /* chunks of each buffer */
  vval_t *mem;             /* [nprogs * stride] */
  size_t mem_len;
  int used; /* mem holds an earlier run's values */
  vpool_t pool;
  vconns_t conns;
  vprog_t *prog;
  int32_t *cur, *next;
  size_t ncur, nnext, nprogs, finished;
  vfire_t *fire;
  size_t nfire;
  long round, rounds;
  int fault_pi; /* the program whose fault this round was recorded, or -1 */
  uint8_t opf[PLAN_NUM_OPS];
  /* explain */
  FILE *trace;
  FILE *json;                 /* explain as JSON rounds (verify_explain_json); trace is then a scratch buffer */
  int show_ranks, show_cols;  /* what explain shows: EXPLAIN_RANKS/COLS for text, more for JSON */
  char *round_text;           /* JSON: the text of the round, as the text explainer prints it */
  size_t round_text_len;
  char (*cells)[EXPLAIN_CELL];
  explain_line_t *lines;
  size_t nlines, skipped;
} vrun_t;

/* The rank of program pi; most plans have one channel, and this is on
 * every op's path. */
static inline int prog_rank(const vrun_t *R, int pi) {
  return R->nch == 1 ? pi : pi / R->nch;
}

/* A value's chunk position and how many ranks' inputs it holds. */
static inline int val_pos(const vrun_t *R, vval_t v) {
  return v < 0 ? (int)((-1 - v) % R->in_chunks) : R->pool.pos[v];
}
static inline int val_count(const vrun_t *R, vval_t v) {
  return v < 0 ? 1 : R->pool.count[v];
}

/* The run's life, for verify_plan and verify_explain alike: vrun_open
 * checks the plan's header and makes a run with `slots` chunks per
 * connection (res cleared by vrun_res_init first), vrun_all runs it to the
 * end and checks the outputs, vrun_fini frees it. vrun_fail records a
 * fault at program pi's op opi in res. */
void vrun_res_init(verify_result_t *res);
chorus_result_t vrun_open(vrun_t *R, const plan_t *p, verify_result_t *res, int slots);
chorus_result_t vrun_all(vrun_t *R);
void vrun_fini(vrun_t *R);
chorus_result_t vrun_fail(vrun_t *R, int pi, uint32_t opi, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* What program pi's buffer b chunk c holds now. */
vval_t vrun_slot_read(const vrun_t *R, int pi, int b, int c);
/* The ranks whose inputs value v holds, as "0-3,5". */
void vrun_ranks_text(const vrun_t *R, vval_t v, char *buf, size_t len);

/* The explainer's hooks, called by the run when R->trace is set
 * (explain.c). */
void explain_round_start(vrun_t *R);
void explain_op(vrun_t *R, int pi, const plan_op_t *op, vval_t v);
void explain_round_end(vrun_t *R);

#endif
