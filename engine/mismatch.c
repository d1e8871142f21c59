/* mismatch.c -- both calls of a mismatch, on every rank (see mismatch.h).
 *
 * Messages (BOOT_TAG_MISMATCH, one fixed-size struct):
 *   ASK     noticer -> sender:  "I make call a; your step had tag seen"
 *   ANSWER  sender -> noticer:  "my call with that tag was b (found)"
 *   COMING  noticer -> others:  "a NOTE will follow" (before the abort)
 *   NOTE    noticer -> others:  "rank a_rank made a, rank b_rank made b"
 *                               (found -1: b_rank did not say)
 * ASK and COMING go out before the abort that wakes the others, so a woken
 * rank finds them queued at once; one that finds neither (a peer died or
 * aborted) returns without waiting. */
#include "mismatch.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "transport/net.h"
#include "log.h"
#include "params.h"

enum { MM_ASK = 1, MM_ANSWER, MM_NOTE, MM_COMING };

typedef struct {
  uint32_t kind, seen;
  int32_t a_rank, b_rank, found;
  comm_desc_t a, b;
} mm_msg_t;

static pthread_mutex_t explain_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t desc_tag(const comm_desc_t *d) {
  uint64_t h = tag_mix(0x43484f52u, d->seq);
  h = tag_mix(h, (uint64_t)(uint32_t)d->coll);
  h = tag_mix(h, d->count);
  h = tag_mix(h, (uint64_t)(uint32_t)d->dt);
  h = tag_mix(h, (uint64_t)(uint32_t)d->op);
  h = tag_mix(h, (uint64_t)(uint32_t)d->root);
  h = tag_mix(h, (uint64_t)(uint32_t)d->nchannels);
  /* The name 8 bytes at a time (a mix per byte was a quarter of a call's
   * cost on one rank). */
  size_t n = strnlen(d->algo, sizeof d->algo);
  for (size_t i = 0; i < n; i += 8) {
    uint64_t w = 0;
    memcpy(&w, d->algo + i, n - i < 8 ? n - i : 8);
    h = tag_mix(h, w);
  }
  return (uint32_t)h;
}

void mismatch_record(chorus_comm_t *c, comm_desc_t *d) {
  d->seq = c->seq;
  d->tag = desc_tag(d);
  c->hist[c->seq % COMM_HIST] = *d;
}

void mismatch_desc_str(const comm_desc_t *d, char *buf, size_t len) {
  int n = snprintf(buf, len, "%s #%u of %llu x %s", chorus_coll_name((chorus_coll_t)d->coll), d->seq,
                   (unsigned long long)d->count, chorus_dtype_name((chorus_dtype_t)d->dt));
  if (n >= 0 && (size_t)n < len && d->op >= 0)
    n += snprintf(buf + n, len - (size_t)n, ", %s", chorus_redop_name((chorus_redop_t)d->op));
  if (n >= 0 && (size_t)n < len && d->root >= 0) n += snprintf(buf + n, len - (size_t)n, ", root %d", d->root);
  if (n >= 0 && (size_t)n < len)
    snprintf(buf + n, len - (size_t)n, ", %.*s on %d channel%s", (int)sizeof d->algo, d->algo, d->nchannels,
             d->nchannels == 1 ? "" : "s");
}

/* A peer's message is bounded before use: strings end, ranks are ranks. */
static int sane(const chorus_comm_t *c, mm_msg_t *m) {
  m->a.algo[sizeof m->a.algo - 1] = m->b.algo[sizeof m->b.algo - 1] = 0;
  return m->kind >= MM_ASK && m->kind <= MM_COMING && m->a_rank >= 0 && m->a_rank < c->nranks && m->b_rank >= 0 &&
         m->b_rank < c->nranks;
}

/* Replace the communicator's error with the full picture, on this rank. */
static void explain(chorus_comm_t *c, int ra, const comm_desc_t *a, int rb, const comm_desc_t *b, int found) {
  char da[256], db[256], now[200], msg[1024];
  mismatch_desc_str(a, da, sizeof da);
  if (found < 0) {
    snprintf(db, sizeof db, "did not say which call it made (it may have finished its call, or died)");
  } else if (found) {
    mismatch_desc_str(b, db, sizeof db);
  } else if (b->seq) {
    mismatch_desc_str(b, now, sizeof now);
    snprintf(db, sizeof db, "a call it no longer remembers (it is now at %s)", now);
  } else {
    snprintf(db, sizeof db, "no collective call this communicator remembers");
  }
  snprintf(msg, sizeof msg,
           "rank %d: ranks %d and %d made different calls: rank %d: %s; rank %d: %s. Every rank must make the same "
           "collective calls in the same order, with the same count, type, op and root (and the same CHORUS_ALGO "
           "and CHORUS_NCHANNELS)",
           c->rank, ra, rb, ra, da, rb, db);
  pthread_mutex_lock(&explain_lock);
  if (c->error != chorus_invalid_usage || !strstr(c->errmsg, "made different calls")) {
    __atomic_store_n(&c->error, chorus_invalid_usage, __ATOMIC_SEQ_CST);
    snprintf(c->errmsg, sizeof c->errmsg, "%s", msg);
    LOG_WARN_("COLL", "%s", msg);
  }
  pthread_mutex_unlock(&explain_lock);
  chorus_set_last_error(msg);
}

/* Reports are best effort: a peer that already failed and exited refuses
 * the connection, and waiting CHORUS_TIMEOUT for it would delay this
 * rank's error by as much (the fault benchmark measured 3 s). */
static void post(chorus_comm_t *c, int peer, uint32_t tag, const void *m, size_t len) {
  boot_send_within(c->boot, peer, tag, m, len, 0.2);
}

uint32_t mismatch_agree_tag(uint32_t seq) { return tag_mix(0x41475245u /* "AGRE" */, seq); }

/* The call a step's tag belongs to: the call's own steps, or those of the
 * agreement that came before it (exec.c, agree). */
static const comm_desc_t *find(const chorus_comm_t *c, uint32_t tag) {
  for (int i = 0; i < COMM_HIST; i++)
    if (c->hist[i].seq && (c->hist[i].tag == tag || mismatch_agree_tag(c->hist[i].seq) == tag)) return &c->hist[i];
  return NULL;
}

/* Answer an ASK; this rank then knows both calls too. */
static void answer(chorus_comm_t *c, int from, const mm_msg_t *q) {
  const comm_desc_t *mine = find(c, q->seen);
  mm_msg_t r = {.kind = MM_ANSWER, .seen = q->seen, .a_rank = from, .b_rank = c->rank, .found = mine != NULL,
                .a = q->a, .b = mine ? *mine : c->hist[c->seq % COMM_HIST]};
  post(c, from, BOOT_TAG_MISMATCH, &r, sizeof r); /* the asker may be gone: then it has no use for it */
  explain(c, from, &q->a, c->rank, &r.b, r.found);
}

/* How long the ranks wait for the exchange: half the deadline, since a
 * loaded machine can take a while; only ranks told a report is coming wait. */
static double window(void) { return (double)param_int(PARAM_TIMEOUT) / 2; }

/* The next well-formed report for this rank before `end`; 0 when none came.
 * A report already queued is taken even when the time is up (a loaded
 * machine may not run this thread within the window). */
static int next(chorus_comm_t *c, double end, int *from, mm_msg_t *m) {
  for (int bad = 0; bad < 64; bad++) {
    size_t len = sizeof *m;
    double left = end - tr_now();
    if (boot_recv_any(c->boot, BOOT_TAG_MISMATCH, from, m, &len, left > 0 ? left : 0) != chorus_success) return 0;
    if (len == sizeof *m && sane(c, m)) return 1;
  }
  return 0;
}

chorus_result_t mismatch_report(chorus_comm_t *c, int ch, int peer, const comm_desc_t *self, uint32_t seen) {
  /* Sent before the abort that wakes the others, so they find them queued. */
  mm_msg_t q = {.kind = MM_ASK, .seen = seen, .a_rank = c->rank, .b_rank = peer, .a = *self};
  post(c, peer, BOOT_TAG_MISMATCH, &q, sizeof q);
  q.kind = MM_COMING;
  for (int r = 0; r < c->nranks; r++)
    if (r != c->rank && r != peer) post(c, r, BOOT_TAG_MISMATCH, &q, sizeof q);
  char da[256];
  mismatch_desc_str(self, da, sizeof da);
  comm_fail(c, chorus_invalid_usage, "rank %d channel %d: a step or connection set-up of another call came from "
            "rank %d while this rank made %s", c->rank, ch, peer, da);
  mm_msg_t note = {.kind = MM_NOTE, .a_rank = c->rank, .b_rank = peer, .found = -1, .a = *self};
  double end = tr_now() + window();
  mm_msg_t m;
  int from;
  while (note.found < 0 && next(c, end, &from, &m)) {
    if (m.kind == MM_ASK) answer(c, from, &m);
    else if (m.kind == MM_ANSWER && from == peer && m.seen == seen) note.found = m.found, note.b = m.b;
    else if (m.kind == MM_NOTE && m.found >= 0) {
      /* Another rank found it first and told every rank: both calls are
       * known (the peer may have finished its call and cannot answer). */
      explain(c, m.a_rank, &m.a, m.b_rank, &m.b, m.found);
      return c->error;
    }
  }
  /* The others learn it too, also that the peer did not say. */
  for (int r = 0; r < c->nranks; r++)
    if (r != c->rank && r != peer) post(c, r, BOOT_TAG_MISMATCH, &note, sizeof note);
  explain(c, c->rank, self, peer, &note.b, note.found); /* last: it sets this thread's last error */
  return c->error;
}

chorus_result_t mismatch_disagreed(chorus_comm_t *c, const comm_desc_t *self, int peer, const comm_desc_t *theirs) {
  explain(c, c->rank, self, peer, theirs, 1);
  return c->error;
}

void mismatch_listen(chorus_comm_t *c) {
  /* A short look first: an abort without a report coming (a peer died or
   * aborted) must not wait. */
  double end = tr_now() + 0.05;
  mm_msg_t m;
  int from, noted = 0, waiting = 0;
  while (next(c, end, &from, &m)) {
    /* Every rank that asks gets its answer: a broadcast's root whose tree
     * has two children is asked by both (answering the first alone left
     * the second saying the root did not say, 2026-12-03). A short look
     * for more after each answer or note, unless a note is still coming. */
    if (m.kind == MM_ASK) {
      answer(c, from, &m);
      noted = 1;
    } else if (m.kind == MM_NOTE) {
      if (!noted) explain(c, m.a_rank, &m.a, m.b_rank, &m.b, m.found);
      noted = 1;
      if (waiting > 0) waiting--;
    } else if (m.kind == MM_COMING) {
      waiting++;
    }
    end = tr_now() + (waiting > 0 && !noted ? window() : 0.05);
  }
}
