/* tune.c -- the CPU engine's selection rules. Small messages pay per step,
 * so they take the algorithm with the fewest steps and one channel; large
 * ones are memory-bound and take the bandwidth-optimal ring on two channels
 * (two threads per rank keep more loads in flight). */
#include "tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost.h"
#include "params.h"

#define TUNE_SMALL (32u << 10)
#define TUNE_TWO_CHANNELS (1u << 20)

/* sysconf reads a /sys file: once, not per call; atomic, ranks may be threads. */
static long online_cores(void) {
  static long once;
  long cores = __atomic_load_n(&once, __ATOMIC_RELAXED);
  if (!cores) __atomic_store_n(&once, cores = sysconf(_SC_NPROCESSORS_ONLN), __ATOMIC_RELAXED);
  return cores;
}

void tune_select(chorus_coll_t coll, int nranks, int nlocal, size_t bytes, char *algo, size_t len, int *nchannels) {
  const char *a = "ring";
  switch (coll) {
  case chorus_allreduce: a = bytes <= TUNE_SMALL && nranks > 1 ? "rd" : "ring"; break;
  case chorus_broadcast:
  case chorus_reduce: a = bytes <= TUNE_SMALL && nranks > 2 ? "tree" : "ring"; break;
  case chorus_alltoall: a = "direct"; break;
  default: a = "ring"; break;
  }
  snprintf(algo, len, "%s", a);
  /* A second channel is a second thread per rank: it pays only when every
   * rank of this host has a core for it (measured: on 2 cores with 2 ranks,
   * 2 channels lose up to 3x at 256 KiB and gain nothing at 64 MiB). */
  long cores = online_cores();
  *nchannels = bytes >= TUNE_TWO_CHANNELS && cores >= 2L * nlocal ? 2 : 1;
}

const char *tune_fallback(chorus_coll_t coll) { return coll == chorus_alltoall ? "direct" : "ring"; }

/* --- the model --- */

#define TUNE_CACHE 256

static const char *const candidates[] = {"ring", "tree", "hybrid", "rd", "rhd", "direct"};

typedef struct {
  chorus_coll_t coll;
  chorus_dtype_t dt;
  int bucket;
  char algo[32];
  int nchannels;
} tune_entry_t;

struct tune {
  sim_cost_t *cost;
  int nlocal;
  tune_entry_t cache[TUNE_CACHE];
  int ncache;
};

int tune_algo_is_list(const char *value) { return value[0] == '^' || strchr(value, ',') != NULL; }

int tune_algo_allowed(const char *value, const char *algo) {
  if (!value[0]) return 1;
  return value[0] == '^' ? !param_in_list(value + 1, algo) : param_in_list(value, algo);
}

tune_t *tune_create(int nranks, int nhosts, int nlocal, const int *host_of, size_t buffsize) {
  if (strcmp(param_str(PARAM_TUNER), "model") != 0) return NULL;
  char file[1024], sets[128] = "", err[2048];
  const char *topo = param_str(PARAM_TOPO);
  if (topo[0]) {
    snprintf(file, sizeof file, "%s", topo);
  } else if (nhosts == 1) {
    snprintf(file, sizeof file, "local-cpu");
    snprintf(sets, sizeof sets, "ranks=%d", nranks);
  } else {
    /* Hosts of equal size, ranks grouped by host: the namespace testbed's shape. */
    int ppn = nranks / nhosts, ok = ppn * nhosts == nranks;
    for (int r = 0; ok && r < nranks; r++) ok = host_of[r] == r / ppn;
    if (!ok) {
      LOG_INFO_("TUNE", "no topology describes %d ranks on %d uneven hosts; using the rules (set CHORUS_TOPO)",
                nranks, nhosts);
      return NULL;
    }
    snprintf(file, sizeof file, "netns");
    snprintf(sets, sizeof sets, "hosts=%d,ppn=%d", nhosts, ppn);
  }
  tune_t *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->nlocal = nlocal;
  if (sim_cost_create(&t->cost, file, sets, buffsize, err, sizeof err) != chorus_success) {
    LOG_WARN_("TUNE", "the cost model cannot load topology %s%s%s: %s; using the rules", file, sets[0] ? " " : "",
              sets, err);
    free(t);
    return NULL;
  }
  if (sim_cost_nranks(t->cost) < nranks) {
    LOG_WARN_("TUNE", "topology %s places %d ranks, the job has %d; using the rules", file,
              sim_cost_nranks(t->cost), nranks);
    sim_cost_destroy(t->cost);
    free(t);
    return NULL;
  }
  LOG_INFO_("TUNE", "cost model: topology %s%s%s", file, sets[0] ? " --set " : "", sets);
  return t;
}

void tune_destroy(tune_t *t) {
  if (!t) return;
  sim_cost_destroy(t->cost);
  free(t);
}

int tune_model_select(tune_t *t, chorus_coll_t coll, size_t count, chorus_dtype_t dt, size_t bytes, tune_plan_fn plan,
                      void *ctx, char *algo, size_t len, int *nchannels) {
  int bucket = 0;
  while (bucket < 63 && ((size_t)1 << (bucket + 1)) <= bytes) bucket++;
  for (int i = 0; i < t->ncache; i++) {
    tune_entry_t *e = &t->cache[i];
    if (e->coll == coll && e->dt == dt && e->bucket == bucket) {
      snprintf(algo, len, "%s", e->algo);
      *nchannels = e->nchannels;
      return 0;
    }
  }
  long cores = online_cores();
  int maxch = cores >= 2L * t->nlocal ? 2 : 1;
  const char *allow = param_str(PARAM_ALGO);
  double best = INFINITY;
  char best_algo[32] = "";
  int best_ch = 1;
  for (size_t a = 0; a < sizeof candidates / sizeof candidates[0]; a++) {
    if (!tune_algo_allowed(allow, candidates[a])) continue;
    for (int ch = 1; ch <= maxch; ch++) {
      const plan_t *p;
      if (plan(ctx, candidates[a], ch, &p) != chorus_success) break; /* does not plan this call */
      char err[512];
      double s = sim_cost_time(t->cost, p, count, dt, err, sizeof err);
      if (s < 0) {
        LOG_INFO_("TUNE", "%s on %d channel%s: no prediction: %s", candidates[a], ch, ch > 1 ? "s" : "", err);
        continue;
      }
      LOG_INFO_("TUNE", "%s of %zu bytes: %s on %d channel%s predicted %.2f us", chorus_coll_name(coll), bytes,
                candidates[a], ch, ch > 1 ? "s" : "", s * 1e6);
      if (s < best) best = s, best_ch = ch, snprintf(best_algo, sizeof best_algo, "%s", candidates[a]);
    }
  }
  if (!best_algo[0]) return -1;
  LOG_INFO_("TUNE", "%s of %zu bytes (bucket 2^%d): chose %s on %d channel%s, predicted %.2f us",
            chorus_coll_name(coll), bytes, bucket, best_algo, best_ch, best_ch > 1 ? "s" : "", best * 1e6);
  if (t->ncache < TUNE_CACHE) {
    tune_entry_t *e = &t->cache[t->ncache++];
    e->coll = coll, e->dt = dt, e->bucket = bucket, e->nchannels = best_ch;
    snprintf(e->algo, sizeof e->algo, "%s", best_algo);
  }
  snprintf(algo, len, "%s", best_algo);
  *nchannels = best_ch;
  return 0;
}
