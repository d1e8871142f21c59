/* cache.c -- plans cached per (collective, algorithm, nranks, node shape,
 * root, channels, options), built and verified once on first use. The engine
 * asks for a plan on every call, so a hit must be cheap: a hash of the key
 * string and one comparison. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "verify.h"

typedef struct cache_entry {
  struct cache_entry *next;
  unsigned long hash;
  char *key;
  plan_t *plan;
} cache_entry_t;

#define CACHE_BUCKETS 256

struct plan_cache {
  pthread_mutex_t lock;
  cache_entry_t *buckets[CACHE_BUCKETS];
  size_t size;
};

plan_cache_t *plan_cache_create(void) {
  plan_cache_t *c = calloc(1, sizeof *c);
  if (c) pthread_mutex_init(&c->lock, NULL);
  return c;
}

void plan_cache_destroy(plan_cache_t *c) {
  if (!c) return;
  for (int b = 0; b < CACHE_BUCKETS; b++) {
    for (cache_entry_t *e = c->buckets[b], *n; e; e = n) {
      n = e->next;
      plan_destroy(e->plan);
      free(e->key);
      free(e);
    }
  }
  pthread_mutex_destroy(&c->lock);
  free(c);
}

size_t plan_cache_size(const plan_cache_t *c) { return c->size; }

/* The key: every input that can change the plan. Node sizes are written out
 * so that two shapes with the same node count but other sizes differ. It is
 * sized from its parts: a key cut short (a long algorithm path or folder)
 * would drop the rank count, root and shape, and hand one shape's plan to
 * another. */
static char *make_key(const planner_req_t *req) {
  const char *fmt = "%d|%s|%s|%d|%d|%d|%s|%d|";
  const char *dir = req->algos_dir ? req->algos_dir : "", *opts = req->opts ? req->opts : "";
  int root = plan_coll_rooted(req->coll) ? req->root : 0;
  int head =
      snprintf(NULL, 0, fmt, (int)req->coll, req->algo, dir, req->nranks, root, req->nchannels, opts, req->no_fuse);
  if (head < 0) return NULL;
  int nnodes = req->shape ? req->shape->nnodes : 0;
  /* NICs change rail-aware scripts' plans: with more than one on a node, every
   * node's count and every rank's NIC are in the key too. */
  int nics = req->shape && plan_shape_has_nics(req->shape);
  size_t cap = (size_t)head + (size_t)nnodes * 12 + 1; /* ",%d" of an int is at most 12 characters */
  if (nics) cap += 1 + (size_t)nnodes * 12 + (size_t)req->nranks * 12;
  char *key = malloc(cap);
  if (!key) return NULL;
  size_t n = (size_t)snprintf(key, cap, fmt, (int)req->coll, req->algo, dir, req->nranks, root, req->nchannels, opts,
                              req->no_fuse);
  for (int i = 0; i < nnodes; i++)
    n += (size_t)snprintf(key + n, cap - n, "%d,", req->shape->node_size[i]);
  if (nics) {
    n += (size_t)snprintf(key + n, cap - n, "|");
    for (int i = 0; i < nnodes; i++) n += (size_t)snprintf(key + n, cap - n, "%d,", req->shape->node_nics[i]);
    for (int r = 0; r < req->nranks; r++) n += (size_t)snprintf(key + n, cap - n, "%d,", req->shape->rank_nic[r]);
  }
  return key;
}

static unsigned long hash_str(const char *s) {
  unsigned long h = 1469598103934665603UL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211UL;
  return h;
}

chorus_result_t plan_cache_get(plan_cache_t *c, const planner_req_t *req, int verify, const plan_t **out,
                               planner_err_t *err) {
  *out = NULL;
  char *key = make_key(req);
  if (!key) return chorus_out_of_memory;
  unsigned long h = hash_str(key);
  cache_entry_t **bucket = &c->buckets[h % CACHE_BUCKETS];
  pthread_mutex_lock(&c->lock);
  for (cache_entry_t *e = *bucket; e; e = e->next) {
    if (e->hash == h && !strcmp(e->key, key)) {
      pthread_mutex_unlock(&c->lock);
      free(key);
      *out = e->plan;
      return chorus_success;
    }
  }
  /* Built under the lock: concurrent first uses of one key wait for one
   * build rather than each building their own. */
  plan_t *p = NULL;
  chorus_result_t r = planner_build(req, &p, err);
  if (r == chorus_success && verify) {
    verify_result_t vr;
    r = verify_plan(p, NULL, &vr);
    if (r != chorus_success && err) snprintf(err->msg, sizeof err->msg, "%s", vr.msg);
  }
  cache_entry_t *e = r == chorus_success ? calloc(1, sizeof *e) : NULL;
  if (r == chorus_success && !e) r = chorus_out_of_memory;
  if (r != chorus_success) {
    pthread_mutex_unlock(&c->lock);
    plan_destroy(p);
    free(key);
    return r;
  }
  e->hash = h;
  e->key = key;
  e->plan = p;
  e->next = *bucket;
  *bucket = e;
  c->size++;
  pthread_mutex_unlock(&c->lock);
  *out = p;
  return chorus_success;
}
