/* tune.c -- the tuner: pins from CHORUS_TUNING_FILE, the simulator's cost
 * model on the detected machine, and the CPU engine's selection rules.
 * Rules: small messages pay per step, so they take the algorithm with the
 * fewest steps and one channel; large ones are memory-bound and take the
 * bandwidth-optimal ring on two channels (two threads per rank keep more
 * loads in flight). */
#include "tune.h"

#include "cuda_exec.h"

#include <ctype.h>
#include <errno.h>
#include <hwloc.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cost.h"
#include "error.h"
#include "params.h"
#include "planner.h"
#include "log.h"
#include "str.h"

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

/* --- settings: the tuning file and the protocol --- */

#define TUNE_MAX_PINS 256

typedef struct {
  chorus_coll_t coll;
  size_t lo, hi;  /* bytes in [lo, hi); hi == SIZE_MAX: no end */
  char range[48]; /* as written, for messages */
  char algo[32];
  int nchannels; /* 0: the model or the rules choose */
  int line;
  int logged;
} tune_pin_t;

static struct {
  pthread_once_t once;
  chorus_result_t res;
  char err[1536];
  tune_pin_t pins[TUNE_MAX_PINS];
  int npins;
  int proto; /* the simulator's id of the protocol calls use */
  tune_agree_t agree;
} settings = {.once = PTHREAD_ONCE_INIT};

/* Protocols the CPU engine implements, in order of preference. */
static const char *const engine_protos[] = {"simple"};

/* "*", "SIZE", "LO-HI" or "LO-inf" -> [lo, hi). */
static int parse_range(const char *s, size_t *lo, size_t *hi) {
  if (!strcmp(s, "*")) return *lo = 0, *hi = SIZE_MAX, 0;
  const char *dash = strchr(s, '-');
  char a[48];
  if (!dash) {
    if (param_parse_bytes(s, lo)) return -1;
    *hi = *lo + 1;
    return 0;
  }
  size_t n = (size_t)(dash - s);
  if (n == 0 || n >= sizeof a) return -1;
  memcpy(a, s, n);
  a[n] = 0;
  if (param_parse_bytes(a, lo)) return -1;
  if (!strcasecmp(dash + 1, "inf"))
    *hi = SIZE_MAX;
  else if (param_parse_bytes(dash + 1, hi))
    return -1;
  return *hi > *lo ? 0 : -1;
}

static chorus_result_t settings_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static chorus_result_t settings_fail(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(settings.err, sizeof settings.err, fmt, ap);
  va_end(ap);
  return chorus_invalid_argument;
}

/* One line of the tuning file, comments removed, into settings.pins. */
static chorus_result_t parse_pin(const char *file, int line, char *text) {
  char *tok[5], *save = NULL;
  int n = 0;
  for (char *t = strtok_r(text, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
    if (n == 4)
      return settings_fail("tuning file %s:%d: too many fields; a line is 'COLLECTIVE SIZES ALGORITHM "
                           "[CHANNELS]', e.g. 'allreduce 0-32K rd 1'",
                           file, line);
    tok[n++] = t;
  }
  if (n == 0) return chorus_success;
  if (n < 3)
    return settings_fail("tuning file %s:%d: a line is 'COLLECTIVE SIZES ALGORITHM [CHANNELS]', e.g. 'allreduce "
                         "0-32K rd 1'; this one has %d field%s",
                         file, line, n, n > 1 ? "s" : "");
  if (settings.npins == TUNE_MAX_PINS)
    return settings_fail("tuning file %s:%d: more than %d pins", file, line, TUNE_MAX_PINS);
  tune_pin_t *p = &settings.pins[settings.npins];
  memset(p, 0, sizeof *p);
  p->line = line;
  if (chorus_coll_parse(tok[0], &p->coll) != chorus_success) {
    char names[128] = "";
    for (int c = 0; c < chorus_num_collectives; c++)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", c ? ", " : "",
               chorus_coll_name((chorus_coll_t)c));
    return settings_fail("tuning file %s:%d: unknown collective '%s' (%s)", file, line, tok[0], names);
  }
  if (strlen(tok[1]) >= sizeof p->range || parse_range(tok[1], &p->lo, &p->hi))
    return settings_fail("tuning file %s:%d: bad size range '%s': write LO-HI (from LO up to, not including, HI; "
                         "bytes with K, M or G; HI may be inf), one size, or *",
                         file, line, tok[1]);
  snprintf(p->range, sizeof p->range, "%s", tok[1]);
  char path[1024], err[1024];
  const char *dir = param_str(PARAM_ALGOS);
  if (strlen(tok[2]) >= sizeof p->algo)
    return settings_fail("tuning file %s:%d: algorithm name '%s' is too long", file, line, tok[2]);
  if (planner_resolve(tok[2], dir[0] ? dir : planner_algos_dir(), path, sizeof path, err, sizeof err) != 0)
    return settings_fail("tuning file %s:%d: %s", file, line, err);
  snprintf(p->algo, sizeof p->algo, "%s", tok[2]);
  if (n == 4) {
    char *end;
    long ch = strtol(tok[3], &end, 10);
    if (*end || end == tok[3] || ch < 1 || ch > PLAN_MAX_CHANNELS)
      return settings_fail("tuning file %s:%d: bad channel count '%s' (1 to %d, or leave it out for the tuner "
                           "to choose)",
                           file, line, tok[3], PLAN_MAX_CHANNELS);
    p->nchannels = (int)ch;
  }
  for (int i = 0; i < settings.npins; i++) {
    const tune_pin_t *q = &settings.pins[i];
    if (q->coll == p->coll && p->lo < q->hi && q->lo < p->hi)
      return settings_fail("tuning file %s:%d: %s %s overlaps line %d (%s %s); ranges run from LO up to, not "
                           "including, HI",
                           file, line, chorus_coll_name(p->coll), p->range, q->line, chorus_coll_name(q->coll),
                           q->range);
  }
  settings.npins++;
  return chorus_success;
}

static chorus_result_t load_tuning_file(const char *file) {
  FILE *f = fopen(file, "r");
  if (!f) return settings_fail("CHORUS_TUNING_FILE=%s: cannot open it: %s", file, strerror(errno));
  char text[1024];
  chorus_result_t res = chorus_success;
  for (int line = 1; res == chorus_success && fgets(text, sizeof text, f); line++) {
    size_t len = strlen(text);
    if (len == sizeof text - 1 && text[len - 1] != '\n' && !feof(f)) {
      res = settings_fail("tuning file %s:%d: line longer than %zu characters", file, line, sizeof text - 2);
      break;
    }
    text[strcspn(text, "#")] = 0;
    res = parse_pin(file, line, text);
  }
  if (res == chorus_success && ferror(f)) res = settings_fail("CHORUS_TUNING_FILE=%s: cannot read it", file);
  fclose(f);
  return res;
}

/* CHORUS_PROTO: names the simulator knows, any case, as a list like CHORUS_ALGO's. */
static chorus_result_t load_proto(const char *value) {
  char lower[256];
  size_t n = strlen(value);
  if (n >= sizeof lower) return settings_fail("CHORUS_PROTO=%s: too long", value);
  for (size_t i = 0; i <= n; i++)
    lower[i] = (char)tolower((unsigned char)value[i]);
  char known[64] = "";
  for (int p = 0; sim_cost_proto_name(p); p++)
    snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", p ? ", " : "", sim_cost_proto_name(p));
  for (const char *s = lower + (lower[0] == '^'); lower[0];) {
    size_t len = strcspn(s, ",");
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), s);
    if (sim_cost_proto_parse(name) < 0)
      return settings_fail("CHORUS_PROTO=%s: unknown protocol '%s' (%s; a list like simple,ll, or ^ll128 to "
                           "exclude)",
                           value, name, known);
    s += len;
    if (!*s) break;
    s++;
  }
  for (size_t i = 0; i < sizeof engine_protos / sizeof engine_protos[0]; i++)
    if (tune_algo_allowed(lower, engine_protos[i])) {
      settings.proto = sim_cost_proto_parse(engine_protos[i]);
      return chorus_success;
    }
  return settings_fail("CHORUS_PROTO=%s: the CPU engine implements simple only; allow it (unset CHORUS_PROTO, or "
                       "include simple)",
                       value);
}

/* CHORUS_ALGO: one algorithm (a name in the algorithm folder, or a script's
 * path), or a list of names ("ring,tree") the tuner chooses among, or "^"
 * and a list it must not choose. Every name of a list must be a script the
 * planner finds: a misspelt one would otherwise be dropped in silence. */
static chorus_result_t load_algo(const char *value) {
  if (!value[0]) return chorus_success;
  const char *dir = param_str(PARAM_ALGOS);
  if (!dir[0]) dir = planner_algos_dir();
  char path[1024], err[1024];
  if (value[0] != '^' && !strchr(value, ',')) {
    if (planner_resolve(value, dir, path, sizeof path, err, sizeof err) != 0)
      return settings_fail("CHORUS_ALGO=%s: %s", value, err);
    return chorus_success;
  }
  for (const char *s = value + (value[0] == '^');;) {
    size_t len = strcspn(s, ",");
    char name[128];
    if (len == 0 || len >= sizeof name)
      return settings_fail("CHORUS_ALGO=%s: an empty or over-long name in the list (write names like ring,tree, or "
                           "^rd to exclude)",
                           value);
    snprintf(name, sizeof name, "%.*s", (int)len, s);
    if (strchr(name, '/') || planner_resolve(name, dir, path, sizeof path, err, sizeof err) != 0)
      return settings_fail("CHORUS_ALGO=%s: '%s' is no algorithm in %s (a list names scripts of the algorithm "
                           "folder)",
                           value, name, dir);
    s += len;
    if (!*s) break;
    s++;
  }
  return chorus_success;
}

/* CHORUS_NCHANNELS: unset or 0 (each call chooses), else 1 to
 * PLAN_MAX_CHANNELS; anything else is an error that names it, not a
 * default or a silent cap. */
static chorus_result_t load_nchannels(void) {
  if (!param_is_set(PARAM_NCHANNELS)) return chorus_success;
  const char *v = param_str(PARAM_NCHANNELS);
  char *end;
  errno = 0;
  long n = strtol(v, &end, 10);
  if (!v[0] || *end || end == v || errno || n < 0 || n > PLAN_MAX_CHANNELS)
    return settings_fail("CHORUS_NCHANNELS=%s: not a channel count (1 to %d, or 0 for each call to choose)", v,
                         PLAN_MAX_CHANNELS);
  return chorus_success;
}

/* CHORUS_AGREE: rooted (the default), all or none; anything else is an
 * error that names it. */
static chorus_result_t load_agree(void) {
  const char *v = param_str(PARAM_AGREE);
  static const char *const names[] = {[TUNE_AGREE_NONE] = "none", [TUNE_AGREE_ROOTED] = "rooted",
                                      [TUNE_AGREE_ALL] = "all"};
  for (int m = 0; m < 3; m++)
    if (!strcmp(v, names[m])) return settings.agree = (tune_agree_t)m, chorus_success;
  if (!v[0]) return settings.agree = TUNE_AGREE_ROOTED, chorus_success; /* set but empty: the default */
  return settings_fail("CHORUS_AGREE=%s: not one of rooted (broadcast, reduce and each collective's first call), "
                       "all (every collective call) or none",
                       v);
}

static void load_settings(void) {
  settings.proto = sim_cost_proto_parse("simple");
  settings.agree = TUNE_AGREE_ROOTED;
  settings.res = load_proto(param_str(PARAM_PROTO));
  if (settings.res == chorus_success) settings.res = load_algo(param_str(PARAM_ALGO));
  if (settings.res == chorus_success) settings.res = load_nchannels();
  if (settings.res == chorus_success) settings.res = load_agree();
  const char *file = param_str(PARAM_TUNING_FILE);
  if (settings.res == chorus_success && file[0]) {
    settings.res = load_tuning_file(file);
    if (settings.res == chorus_success)
      LOG_INFO_("TUNE", "tuning file %s: %d pin%s", file, settings.npins, settings.npins == 1 ? "" : "s");
  }
  if (settings.res != chorus_success) {
    settings.npins = 0;
    LOG_WARN_("TUNE", "%s", settings.err);
  }
}

chorus_result_t tune_check_settings(void) {
  pthread_once(&settings.once, load_settings);
  if (settings.res != chorus_success) chorus_set_last_error(settings.err);
  return settings.res;
}

tune_agree_t tune_agree(void) {
  pthread_once(&settings.once, load_settings);
  return settings.agree;
}

const char *tune_proto(void) {
  pthread_once(&settings.once, load_settings);
  return sim_cost_proto_name(settings.proto);
}

static tune_pin_t *pin_find(chorus_coll_t coll, size_t bytes) {
  pthread_once(&settings.once, load_settings);
  for (int i = 0; i < settings.npins; i++) {
    tune_pin_t *p = &settings.pins[i];
    if (p->coll == coll && bytes >= p->lo && bytes < p->hi) return p;
  }
  return NULL;
}

void tune_runtime_versions(char *buf, size_t len) {
  unsigned v = hwloc_get_api_version();
  char cuda[160];
  cuda_versions(cuda, sizeof cuda);
  snprintf(buf, len, "hwloc API %u.%u.%u at run time (%d.%d.%d in the headers built with), %s", v >> 16,
           (v >> 8) & 0xff, v & 0xff,
           HWLOC_API_VERSION >> 16, (HWLOC_API_VERSION >> 8) & 0xff, HWLOC_API_VERSION & 0xff, cuda);
}

/* --- the machine, as hwloc sees it --- */

typedef struct {
  int packages, numa, cores, pus; /* 0 cores: hwloc could not tell */
} tune_host_t;

static pthread_once_t host_once = PTHREAD_ONCE_INIT;
static tune_host_t host;

/* Once per process: hwloc loads sysfs, milliseconds that every rank (a
 * thread, possibly) would otherwise pay again. */
static void host_detect(void) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return;
  if (hwloc_topology_load(topo) == 0) {
    host.packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    host.numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
    host.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    host.pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    /* Some virtual machines show no packages or cores: one package, a core per PU. */
    if (host.packages < 1) host.packages = 1;
    if (host.numa < 1) host.numa = 1;
    if (host.cores < 1) host.cores = host.pus;
    if (host.cores < 0) host.cores = 0;
  }
  hwloc_topology_destroy(topo);
}

/* --- the model --- */

#define TUNE_CACHE 256

static const char *const candidates[] = {"ring", "tree", "hybrid", "rd", "rhd", "direct"};

typedef struct {
  chorus_coll_t coll;
  chorus_dtype_t dt;
  int bucket;
  int pin; /* the pin that restricted the choice (index), -1 for none */
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
  char file[1024], sets[160] = "", err[2048];
  const char *topo = param_str(PARAM_TOPO);
  if (topo[0]) {
    /* A calibrated (or chosen) topology knows the machine better than a count of its cores. */
    snprintf(file, sizeof file, "%s", topo);
  } else if (nhosts == 1) {
    snprintf(file, sizeof file, "local-cpu");
    pthread_once(&host_once, host_detect);
    if (host.cores > 0) {
      LOG_INFO_("TUNE", "hwloc: %d package%s, %d NUMA node%s, %d cores, %d hardware threads", host.packages,
                host.packages == 1 ? "" : "s", host.numa, host.numa == 1 ? "" : "s", host.cores, host.pus);
      snprintf(sets, sizeof sets, "ranks=%d,cores=%d,numa=%d,packages=%d", nranks, host.cores, host.numa,
               host.packages);
    } else {
      LOG_INFO_("TUNE", "hwloc could not read this machine; local-cpu assumes a core per rank on one NUMA node");
      snprintf(sets, sizeof sets, "ranks=%d", nranks);
    }
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
  pthread_once(&settings.once, load_settings);
  sim_cost_set_proto(t->cost, settings.proto);
  LOG_INFO_("TUNE", "cost model: topology %s%s%s%s, protocol %s", file, sets[0] ? " --set " : "", sets,
            topo[0] ? " (CHORUS_TOPO)" : "", sim_cost_proto_name(settings.proto));
  return t;
}

void tune_destroy(tune_t *t) {
  if (!t) return;
  sim_cost_destroy(t->cost);
  free(t);
}

/* The model's choice among the candidates CHORUS_ALGO allows, or only the
 * pinned algorithm when a pin leaves the channel count open. */
static int model_select(tune_t *t, chorus_coll_t coll, size_t count, chorus_dtype_t dt, size_t bytes,
                        const tune_pin_t *pin, tune_plan_fn plan, void *ctx, char *algo, size_t len, int *nchannels) {
  int bucket = 0, pin_id = pin ? (int)(pin - settings.pins) : -1;
  while (bucket < 63 && ((size_t)1 << (bucket + 1)) <= bytes) bucket++;
  for (int i = 0; i < t->ncache; i++) {
    tune_entry_t *e = &t->cache[i];
    if (e->coll == coll && e->dt == dt && e->bucket == bucket && e->pin == pin_id) {
      str_copy(algo, len, e->algo);
      *nchannels = e->nchannels;
      return 0;
    }
  }
  /* The rules' limits on a second channel hold for the model too: it does
   * not price the second thread per rank, and on the namespace testbed it
   * predicted 1 and 2 channels within 1-2% of each other at every size,
   * where below 1 MiB 2 channels measured up to 3x slower (2026-12-03,
   * BENCHMARKS.md, "Sockets across namespaces"). */
  long cores = online_cores();
  int maxch = bytes >= TUNE_TWO_CHANNELS && cores >= 2L * t->nlocal ? 2 : 1;
  const char *allow = param_str(PARAM_ALGO);
  const char *pinned[1] = {pin ? pin->algo : NULL};
  const char *const *names = pin ? pinned : candidates;
  size_t nnames = pin ? 1 : sizeof candidates / sizeof candidates[0];
  double best = INFINITY;
  char best_algo[32] = "";
  int best_ch = 1;
  for (size_t a = 0; a < nnames; a++) {
    if (!pin && !tune_algo_allowed(allow, names[a])) continue;
    for (int ch = 1; ch <= maxch; ch++) {
      const plan_t *p;
      if (plan(ctx, names[a], ch, &p) != chorus_success) break; /* does not plan this call */
      char err[512];
      double s = sim_cost_time(t->cost, p, count, dt, err, sizeof err);
      if (s < 0) {
        LOG_INFO_("TUNE", "%s on %d channel%s: no prediction: %s", names[a], ch, ch > 1 ? "s" : "", err);
        continue;
      }
      LOG_INFO_("TUNE", "%s of %zu bytes: %s on %d channel%s predicted %.2f us", chorus_coll_name(coll), bytes,
                names[a], ch, ch > 1 ? "s" : "", s * 1e6);
      if (s < best) best = s, best_ch = ch, snprintf(best_algo, sizeof best_algo, "%s", names[a]);
    }
  }
  if (!best_algo[0]) return -1;
  LOG_INFO_("TUNE", "%s of %zu bytes (bucket 2^%d): chose %s on %d channel%s, predicted %.2f us",
            chorus_coll_name(coll), bytes, bucket, best_algo, best_ch, best_ch > 1 ? "s" : "", best * 1e6);
  if (t->ncache < TUNE_CACHE) {
    tune_entry_t *e = &t->cache[t->ncache++];
    e->coll = coll, e->dt = dt, e->bucket = bucket, e->pin = pin_id, e->nchannels = best_ch;
    snprintf(e->algo, sizeof e->algo, "%s", best_algo);
  }
  snprintf(algo, len, "%s", best_algo);
  *nchannels = best_ch;
  return 0;
}

int tune_model_select(tune_t *t, chorus_coll_t coll, size_t count, chorus_dtype_t dt, size_t bytes, tune_plan_fn plan,
                      void *ctx, char *algo, size_t len, int *nchannels) {
  return model_select(t, coll, count, dt, bytes, NULL, plan, ctx, algo, len, nchannels);
}

void tune_choose(tune_t *t, chorus_coll_t coll, int nranks, int nlocal, size_t count, chorus_dtype_t dt, size_t bytes,
                 tune_plan_fn plan, void *ctx, char *algo, size_t len, int *nchannels) {
  tune_pin_t *pin = pin_find(coll, bytes);
  /* CHORUS_ALGO as a list is set explicitly too: a pin it leaves out yields. */
  const char *allow = param_str(PARAM_ALGO);
  if (pin && !tune_algo_allowed(allow, pin->algo)) {
    if (!__atomic_exchange_n(&pin->logged, 1, __ATOMIC_RELAXED))
      LOG_INFO_("TUNE", "%s %s: the pin to %s at %s:%d yields to CHORUS_ALGO=%s", chorus_coll_name(coll), pin->range,
                pin->algo, param_str(PARAM_TUNING_FILE), pin->line, allow);
    pin = NULL;
  }
  if (pin && pin->nchannels) {
    snprintf(algo, len, "%s", pin->algo);
    *nchannels = pin->nchannels;
  } else if (!t || model_select(t, coll, count, dt, bytes, pin, plan, ctx, algo, len, nchannels) != 0) {
    tune_select(coll, nranks, nlocal, bytes, algo, len, nchannels);
    if (pin) snprintf(algo, len, "%s", pin->algo);
  }
  if (pin && !__atomic_exchange_n(&pin->logged, 1, __ATOMIC_RELAXED))
    LOG_INFO_("TUNE", "%s of %zu bytes: %s on %d channel%s%s, pinned by %s:%d (%s %s)", chorus_coll_name(coll), bytes,
              algo, *nchannels, *nchannels > 1 ? "s" : "", pin->nchannels ? "" : " (channels tuned)",
              param_str(PARAM_TUNING_FILE), pin->line, chorus_coll_name(coll), pin->range);
}
