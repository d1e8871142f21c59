/* exp.c -- `chorus exp run FILE`: measured against predicted, side by side.
 *
 * An experiment script returns a table (experiments/README.md): a testbed,
 * a topology, and runs (collective, algorithm, ranks, channels, --set).
 * For each run this command measures with `chorus perf --csv` (repeats
 * times; the median is compared) and predicts with `chorus sim --csv` on
 * the topology, then joins the two by size into compare.csv, prints a table
 * per run, finds the sizes where one algorithm overtakes another in each,
 * and writes gnuplot scripts (and plots, where gnuplot is installed). Runs
 * without a testbed (what-if studies) are predicted only. Every child runs
 * in its own process group under a deadline; Ctrl-C or a failure kills it
 * and the namespace testbed is always taken down. */
#include "exp.h"

#include <errno.h>
#include <lauxlib.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "csv.h"
#include "exp_report.h"
#include "params.h"
#include "sandbox.h"
#include "topo.h"

#define EXP_CHILD_TIMEOUT_S 900.0
/* A run whose launch fails is tried this many times before it counts as failed. */
#define EXP_LAUNCH_TRIES 2
/* The copy probe: bytes per buffer and passes (the median is taken). */
#define EXP_PROBE_BYTES ((size_t)32 << 20)
#define EXP_PROBE_PASSES 25

static volatile sig_atomic_t interrupted;
static void on_signal(int sig) { interrupted = sig; }

static char self_exe[1024];

/* --- reading the experiment script --- */

static int fail_field(const exp_t *e, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_field(const exp_t *e, const char *field, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "chorus exp: %s: field '%s' %s\n", e->path, field, msg);
  return -1;
}

/* Copy t[field] as text into out (a number becomes its text); absent: def. */
static int get_text(lua_State *L, int t, const exp_t *e, const char *field, const char *def, char *out, size_t len) {
  lua_getfield(L, t, field);
  int ty = lua_type(L, -1);
  if (ty == LUA_TNIL) {
    snprintf(out, len, "%s", def);
  } else if (ty == LUA_TSTRING || ty == LUA_TNUMBER) {
    size_t n;
    const char *s = lua_tolstring(L, -1, &n);
    if (n >= len) {
      lua_pop(L, 1);
      return fail_field(e, field, "is longer than %zu characters", len - 1);
    }
    snprintf(out, len, "%s", s);
  } else {
    lua_pop(L, 1);
    return fail_field(e, field, "must be a string or a number, not a %s", lua_typename(L, ty));
  }
  lua_pop(L, 1);
  return 0;
}

static int get_int(lua_State *L, int t, const exp_t *e, const char *field, int def, int lo, int hi, int *out) {
  lua_getfield(L, t, field);
  if (lua_isnil(L, -1)) {
    *out = def;
  } else if (lua_isinteger(L, -1) || (lua_isnumber(L, -1) && lua_tonumber(L, -1) == floor(lua_tonumber(L, -1)))) {
    lua_Number v = lua_tonumber(L, -1);
    if (v < lo || v > hi) {
      lua_pop(L, 1);
      return fail_field(e, field, "is %g, outside %d..%d", (double)v, lo, hi);
    }
    *out = (int)v;
  } else if (lua_isboolean(L, -1)) {
    *out = lua_toboolean(L, -1);
  } else {
    lua_pop(L, 1);
    return fail_field(e, field, "must be a whole number");
  }
  lua_pop(L, 1);
  return 0;
}

/* t[field] as a list: each element text, or the single value as a list of one. */
static int get_list(lua_State *L, int t, const exp_t *e, const char *field, const char *def, char (*out)[64], int max,
                    int *n) {
  lua_getfield(L, t, field);
  *n = 0;
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    if (!def) return fail_field(e, field, "is missing");
    snprintf(out[(*n)++], 64, "%s", def);
    return 0;
  }
  if (lua_isstring(L, -1)) {
    snprintf(out[(*n)++], 64, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
    return 0;
  }
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return fail_field(e, field, "must be a list");
  }
  int len = (int)luaL_len(L, -1);
  if (len < 1 || len > max) {
    lua_pop(L, 1);
    return fail_field(e, field, "must have 1..%d entries, not %d", max, len);
  }
  for (int i = 1; i <= len; i++) {
    lua_geti(L, -1, i);
    if (!lua_isstring(L, -1)) {
      lua_pop(L, 2);
      return fail_field(e, field, "entry %d is not a string or number", i);
    }
    snprintf(out[(*n)++], 64, "%s", lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 0;
}

static const char *const known_colls[] = {"allreduce", "broadcast", "reduce", "allgather", "reducescatter", "alltoall"};

/* t[key] as a number in [lo, hi]; absent: def. Errors name it `field`. */
static int get_number_at(lua_State *L, int t, const exp_t *e, const char *key, const char *field, double def,
                         double lo, double hi, double *out) {
  lua_getfield(L, t, key);
  int isnil = lua_isnil(L, -1), isnum = lua_isnumber(L, -1);
  double v = isnum ? lua_tonumber(L, -1) : def;
  lua_pop(L, 1);
  if (!isnil && !isnum) return fail_field(e, field, "must be a number");
  if (!(v >= lo && v <= hi)) return fail_field(e, field, "is %g, outside %g..%g", v, lo, hi);
  *out = v;
  return 0;
}

static int get_number(lua_State *L, int t, const exp_t *e, const char *field, double def, double lo, double hi,
                      double *out) {
  return get_number_at(L, t, e, field, field, def, lo, hi, out);
}

/* t.targets = { large = PCT, small = PCT }: the run's fidelity targets,
 * median |error| from 1 MiB up and below (defaults: what r has). */
static int get_targets(lua_State *L, int t, const exp_t *e, const char *where, exp_run_t *r) {
  lua_getfield(L, t, "targets");
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  char field[64];
  snprintf(field, sizeof field, "%s.targets", where);
  if (!lua_istable(L, -1)) {
    lua_pop(L, 1);
    return fail_field(e, field, "must be a table { large = PCT, small = PCT }");
  }
  int tt = lua_gettop(L);
  snprintf(field, sizeof field, "%s.targets.large", where);
  int rc = get_number_at(L, tt, e, "large", field, r->target_large, 0, 1e6, &r->target_large);
  snprintf(field, sizeof field, "%s.targets.small", where);
  rc = rc || get_number_at(L, tt, e, "small", field, r->target_small, 0, 1e6, &r->target_small);
  lua_pop(L, 1);
  return rc ? -1 : 0;
}

static int check_coll(const exp_t *e, const char *field, const char *c) {
  for (size_t i = 0; i < sizeof known_colls / sizeof known_colls[0]; i++)
    if (!strcmp(c, known_colls[i])) return 0;
  return fail_field(e, field, "names '%s', not a collective (allreduce, broadcast, reduce, allgather, "
                    "reducescatter, alltoall)", c);
}

static int add_run(exp_t *e, const exp_run_t *r) {
  if (e->nruns >= EXP_MAX_RUNS) return fail_field(e, "runs", "expands to more than %d runs", EXP_MAX_RUNS);
  e->runs[e->nruns++] = *r;
  return 0;
}

/* Read one entry of `runs` (at the top of the stack), defaults from base. */
static int read_run(lua_State *L, exp_t *e, const exp_run_t *base, int index) {
  exp_run_t r = *base;
  int t = lua_gettop(L);
  char field[32];
  snprintf(field, sizeof field, "runs[%d]", index);
  if (!lua_istable(L, t)) return fail_field(e, field, "must be a table");
  if (get_text(L, t, e, "collective", base->coll, r.coll, sizeof r.coll) ||
      get_text(L, t, e, "algo", base->algo, r.algo, sizeof r.algo) ||
      get_text(L, t, e, "set", base->set, r.set, sizeof r.set) ||
      get_text(L, t, e, "label", "", r.label, sizeof r.label) ||
      get_text(L, t, e, "model", "", r.model, sizeof r.model) ||
      get_text(L, t, e, "topology", base->topology, r.topology, sizeof r.topology) ||
      get_int(L, t, e, "ranks", base->nranks, 1, 1 << 20, &r.nranks) ||
      get_int(L, t, e, "channels", base->channels, 0, 32, &r.channels) ||
      get_int(L, t, e, "measure", base->measure, 0, 1, &r.measure) || check_coll(e, field, r.coll) ||
      get_targets(L, t, e, field, &r))
    return -1;
  if (!r.algo[0]) return fail_field(e, field, "has no algo");
  if (r.model[0] && strcmp(r.model, "event") && strcmp(r.model, "analytic"))
    return fail_field(e, field, "has model '%s': event or analytic", r.model);
  if (r.nranks < 1) return fail_field(e, field, "has no ranks");
  return add_run(e, &r);
}

/* The experiment's own fields (name, testbed, topology, sizes, ...), with
 * their defaults. 0, or -1 after a message. */
static int read_fields(lua_State *L, int t, exp_t *e, const char *path) {
  char testbed[32], tmp[64];
  const char *base = strrchr(path, '/');
  snprintf(tmp, sizeof tmp, "%.59s", base ? base + 1 : path);
  if (strlen(tmp) > 4 && !strcmp(tmp + strlen(tmp) - 4, ".lua")) tmp[strlen(tmp) - 4] = 0;
  if (get_text(L, t, e, "name", tmp, e->name, sizeof e->name) ||
      get_text(L, t, e, "description", "", e->description, sizeof e->description) ||
      get_text(L, t, e, "testbed", "local", testbed, sizeof testbed) ||
      get_text(L, t, e, "topology", "", e->topology, sizeof e->topology) ||
      get_text(L, t, e, "data", "", e->data, sizeof e->data) ||
      get_text(L, t, e, "rate", "1Gb/s", e->rate, sizeof e->rate) ||
      get_text(L, t, e, "delay", "0us", e->delay, sizeof e->delay) ||
      get_text(L, t, e, "min", "8", e->minb, sizeof e->minb) ||
      get_text(L, t, e, "max", "64M", e->maxb, sizeof e->maxb) ||
      get_text(L, t, e, "factor", "4", e->factor, sizeof e->factor) ||
      get_text(L, t, e, "dtype", "float", e->dtype, sizeof e->dtype) ||
      get_text(L, t, e, "max_chunk", "", e->max_chunk, sizeof e->max_chunk) ||
      get_text(L, t, e, "proto", "", e->proto, sizeof e->proto) ||
      get_int(L, t, e, "steps_per_chunk", 0, 0, 64, &e->steps_per_chunk) ||
      get_int(L, t, e, "hosts", 4, 1, 64, &e->hosts) || get_int(L, t, e, "ranks_per_host", 1, 1, 64, &e->ppn) ||
      get_int(L, t, e, "warmup", 2, 0, 1000, &e->warmup) || get_int(L, t, e, "iters", 10, 1, 100000, &e->iters) ||
      get_int(L, t, e, "repeats", 5, 1, EXP_MAX_REPEATS, &e->repeats) ||
      get_number(L, t, e, "crossover_ratio", 2.0, 1.0, 1000.0, &e->crossover_ratio) ||
      get_int(L, t, e, "calibrate", 0, 0, 1, &e->calibrate))
    return -1;
  if (e->proto[0] && strcmp(e->proto, "auto") && topo_proto_parse(e->proto) < 0) {
    fail_field(e, "proto", "is '%s': simple, LL, LL128 or auto", e->proto);
    return -1;
  }
  if (!strcmp(testbed, "local")) e->testbed = TESTBED_LOCAL;
  else if (!strcmp(testbed, "netns")) e->testbed = TESTBED_NETNS;
  else if (!strcmp(testbed, "none")) e->testbed = TESTBED_NONE;
  else if (!strcmp(testbed, "published")) e->testbed = TESTBED_PUBLISHED;
  else {
    fail_field(e, "testbed", "is '%s': local, netns, published or none", testbed);
    return -1;
  }
  if (e->testbed == TESTBED_PUBLISHED && !e->data[0]) {
    fail_field(e, "data", "is missing: testbed 'published' reads its measurements from a CSV (experiments/README.md)");
    return -1;
  }
  if (e->data[0] && e->data[0] != '/') { /* relative to the experiment's own folder */
    char rel[1200];
    snprintf(rel, sizeof rel, "%s", e->data);
    const char *slash = strrchr(path, '/');
    int dirlen = slash ? (int)(slash - path) : 1;
    snprintf(e->data, sizeof e->data, "%.*s/%.1000s", dirlen, slash ? path : ".", rel);
  }
  if (!e->topology[0]) {
    fail_field(e, "topology", "is missing: the topology that describes the testbed");
    return -1;
  }
  return 0;
}

/* What every run takes unless it says otherwise: `set` and `channels`; on
 * the namespace testbed the topology is also told its shape. */
static int read_defaults(lua_State *L, int t, exp_t *e, exp_run_t *dflt) {
  *dflt = (exp_run_t){.channels = 1, .measure = e->testbed != TESTBED_NONE, .target_large = 5, .target_small = 15};
  snprintf(dflt->coll, sizeof dflt->coll, "allreduce");
  if (get_text(L, t, e, "set", "", dflt->set, sizeof dflt->set) || get_targets(L, t, e, "experiment", dflt) ||
      get_int(L, t, e, "channels", 1, 0, 32, &dflt->channels))
    return -1;
  if (e->testbed == TESTBED_NETNS) {
    /* The ranks are fixed by the testbed; the topology is told its shape. */
    char shape[256];
    /* A calibrated topology carries the measured link rate; --set would override it. */
    /* The hosts are namespaces of this machine: they share its CPUs. */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (e->calibrate) snprintf(shape, sizeof shape, "hosts=%d,ppn=%d,cores=%ld", e->hosts, e->ppn, cores);
    else snprintf(shape, sizeof shape, "hosts=%d,ppn=%d,rate=%s,cores=%ld", e->hosts, e->ppn, e->rate, cores);
    char joined[512];
    snprintf(joined, sizeof joined, "%.200s%s%.300s", shape, dflt->set[0] ? "," : "", dflt->set);
    snprintf(dflt->set, sizeof dflt->set, "%s", joined);
  }
  return 0;
}

/* `runs`, a list of tables, each a run (on the stack's top). */
static int read_run_list(lua_State *L, exp_t *e, exp_run_t *dflt) {
  if (!lua_istable(L, -1)) {
    fail_field(e, "runs", "must be a list of tables");
    return -1;
  }
  int nr = (int)luaL_len(L, -1);
  for (int i = 1; i <= nr; i++) {
    lua_geti(L, -1, i);
    snprintf(dflt->algo, sizeof dflt->algo, "ring");
    dflt->nranks = e->testbed == TESTBED_NETNS ? e->hosts * e->ppn : 2;
    if (read_run(L, e, dflt, i) != 0) return -1;
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return 0;
}

/* No `runs`: every collective x ranks x algorithm of the lists. */
static int read_run_matrix(lua_State *L, int t, exp_t *e, const exp_run_t *dflt) {
  char colls[8][64], algos[16][64], ranks[32][64];
  int nc, na, nk;
  if (get_list(L, t, e, "collectives", "allreduce", colls, 8, &nc) || get_list(L, t, e, "algos", NULL, algos, 16, &na))
    return -1;
  if (e->testbed == TESTBED_NETNS) {
    snprintf(ranks[0], 64, "%d", e->hosts * e->ppn);
    nk = 1;
  } else if (get_list(L, t, e, "ranks", "2", ranks, 32, &nk)) {
    return -1;
  }
  for (int c = 0; c < nc; c++) {
    if (check_coll(e, "collectives", colls[c])) return -1;
    for (int k = 0; k < nk; k++)
      for (int a = 0; a < na; a++) {
        exp_run_t r = *dflt;
        snprintf(r.coll, sizeof r.coll, "%.31s", colls[c]);
        snprintf(r.algo, sizeof r.algo, "%.63s", algos[a]);
        r.nranks = atoi(ranks[k]);
        if (r.nranks < 1) {
          fail_field(e, "ranks", "entry '%s' is not a rank count", ranks[k]);
          return -1;
        }
        if (add_run(e, &r)) return -1;
      }
  }
  return 0;
}

/* `key`=value into a run's --set list (first, or last), unless it names key. */
static void set_default(char *set, size_t len, const char *key, long value, int first) {
  char item[24], comma_item[26], joined[512];
  snprintf(item, sizeof item, "%.20s=", key);
  snprintf(comma_item, sizeof comma_item, ",%s", item);
  if (!strncmp(set, item, strlen(item)) || strstr(set, comma_item)) return;
  if (first) snprintf(joined, sizeof joined, "%s%ld%s%.460s", item, value, set[0] ? "," : "", set);
  else snprintf(joined, sizeof joined, "%.460s,%s%ld", set, item, value);
  snprintf(set, len, "%s", joined);
}

/* Each run's topology settings completed for its testbed, checked against
 * it, and its label made safe for a file name. */
static int finish_runs(exp_t *e, const char *path) {
  for (int i = 0; i < e->nruns; i++) {
    exp_run_t *r = &e->runs[i];
    /* A local testbed's topology is told the rank count and this machine's
     * CPUs (local-cpu.lua's `ranks` and `cores`: more ranks than cores
     * share them), and for several channels their count (each is a thread
     * of every rank: ranks x channels threads share the cores too), unless
     * the run sets them itself. */
    if (e->testbed == TESTBED_LOCAL) {
      set_default(r->set, sizeof r->set, "ranks", r->nranks, 1);
      set_default(r->set, sizeof r->set, "cores", sysconf(_SC_NPROCESSORS_ONLN), 0);
      if (r->channels > 1) set_default(r->set, sizeof r->set, "channels", r->channels, 0);
    }
    if (e->testbed == TESTBED_NETNS && r->nranks != e->hosts * e->ppn && r->measure) {
      fprintf(stderr, "chorus exp: %s: run %d has %d ranks, the testbed %d hosts x %d\n", path, i + 1, r->nranks,
              e->hosts, e->ppn);
      return -1;
    }
    if (!r->label[0])
      snprintf(r->label, sizeof r->label, "%s-%s-n%d%s%s", r->coll, r->algo, r->nranks, r->set[0] ? "-" : "",
               r->set);
    for (char *p = r->label; *p; p++)
      if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '-' ||
            *p == '_' || *p == '.'))
        *p = '_';
  }
  return 0;
}

static int exp_load(exp_t *e, const char *path) {
  snprintf(e->path, sizeof e->path, "%s", path);
  sbx_t *s = NULL;
  sbx_opts_t o = {0};
  if (sbx_create(&s, &o) != chorus_success) {
    fprintf(stderr, "chorus exp: cannot create the Lua sandbox: %s\n", chorus_last_error());
    return -1;
  }
  int rc = -1;
  lua_State *L = sbx_state(s);
  if (sbx_run_file(s, path) != chorus_success) {
    fprintf(stderr, "chorus exp: %s\n", sbx_error(s));
  } else if (!lua_istable(L, -1)) {
    fprintf(stderr, "chorus exp: %s: the script must return a table (experiments/README.md)\n", path);
  } else {
    int t = lua_gettop(L);
    exp_run_t dflt;
    if (read_fields(L, t, e, path) || read_defaults(L, t, e, &dflt)) goto done;
    lua_getfield(L, t, "runs");
    int listed = !lua_isnil(L, -1);
    if (!listed) lua_pop(L, 1);
    if (listed ? read_run_list(L, e, &dflt) : read_run_matrix(L, t, e, &dflt)) goto done;
    if (!e->nruns) {
      fail_field(e, "runs", "is empty");
      goto done;
    }
    if (finish_runs(e, path)) goto done;
    rc = 0;
  }
done:
  sbx_destroy(s);
  return rc;
}

/* --- children --- */

/* Run argv (argv[0] a path) with stdout+stderr appended to log, in a process
 * group of its own, under a deadline. Returns the exit status, 124 on
 * timeout, 130 when interrupted, -1 when it could not start. */
static int run_child(char *const argv[], const char *log, char *const extra_env[]) {
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    setpgid(0, 0);
    FILE *f = fopen(log, "a");
    if (f) {
      dup2(fileno(f), 1);
      dup2(fileno(f), 2);
    }
    for (int i = 0; extra_env && extra_env[i]; i++) putenv(extra_env[i]);
    execvp(argv[0], argv);
    fprintf(stderr, "chorus exp: cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  setpgid(pid, pid);
  struct timespec t0, now;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (;;) {
    int st;
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    if (w < 0 && errno != EINTR) return -1;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double dt = (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) * 1e-9;
    if (interrupted || dt > EXP_CHILD_TIMEOUT_S) {
      kill(-pid, SIGKILL);
      waitpid(pid, &st, 0);
      return interrupted ? 130 : 124;
    }
    usleep(20 * 1000);
  }
}

/* Print the log's last lines (after a failed child). */
static void tail_log(const char *log, int lines) {
  FILE *f = fopen(log, "r");
  if (!f) return;
  char buf[64][512];
  int n = 0;
  while (fgets(buf[n % 64], sizeof buf[0], f)) n++;
  fclose(f);
  for (int i = n > lines ? n - lines : 0; i < n; i++) fprintf(stderr, "  | %s", buf[i % 64]);
}

static char testbed_script[1200];
static char tb_name[32]; /* this run's namespaces are tb_name-h0.., tb_name-sw */

static int testbed(const exp_t *e, const char *verb, const char *outdir) {
  char hosts[16], log[1500];
  snprintf(hosts, sizeof hosts, "%d", e->hosts);
  snprintf(log, sizeof log, "%s/raw/testbed.log", outdir);
  char *argv[] = {testbed_script, (char *)verb, tb_name, !strcmp(verb, "up") ? hosts : NULL, (char *)e->rate, NULL};
  sigset_t block, old; /* teardown must finish even while Ctrl-C is pressed again */
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  sigprocmask(SIG_BLOCK, &block, &old);
  volatile sig_atomic_t saved = interrupted;
  interrupted = 0;
  int rc = run_child(argv, log, NULL);
  interrupted = saved;
  sigprocmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    fprintf(stderr, "chorus exp: testbed %s failed (exit %d); its log, %s:\n", verb, rc, log);
    tail_log(log, 8);
  }
  return rc;
}

/* The size a run's timeline shows: 4 MiB, or the experiment's nearest
 * size to it (bytes as text). */
static void trace_size(const exp_t *e, char *buf, size_t len) {
  size_t lo = 0, hi = 0, want = (size_t)4 << 20;
  param_parse_bytes(e->minb, &lo);
  param_parse_bytes(e->maxb, &hi);
  snprintf(buf, len, "%zu", want < lo ? lo : want > hi ? hi : want);
}

/* Measure one run once: chorus perf writes csv; with trace, only the size
 * trace_size and the ops of one more call of it into trace. */
static int measure_once(const exp_t *e, const exp_run_t *r, const char *csv, const char *trace, const char *log) {
  char only[32];
  if (trace) trace_size(e, only, sizeof only);
  char n[16], c[16], w[16], it[16];
  snprintf(n, sizeof n, "%d", r->nranks);
  snprintf(c, sizeof c, "%d", r->channels);
  snprintf(w, sizeof w, "%d", e->warmup);
  snprintf(it, sizeof it, "%d", e->iters);
  char *perf[40];
  int k = 0;
  perf[k++] = self_exe;
  perf[k++] = (char *)"perf";
  perf[k++] = (char *)r->coll;
  if (e->testbed == TESTBED_LOCAL) perf[k++] = (char *)"-n", perf[k++] = n;
  perf[k++] = (char *)"-a", perf[k++] = (char *)r->algo;
  if (r->channels > 0) perf[k++] = (char *)"-c", perf[k++] = c;
  perf[k++] = (char *)"-b", perf[k++] = trace ? only : (char *)e->minb;
  perf[k++] = (char *)"-e", perf[k++] = trace ? only : (char *)e->maxb;
  perf[k++] = (char *)"-f", perf[k++] = (char *)e->factor;
  perf[k++] = (char *)"-d", perf[k++] = (char *)e->dtype;
  perf[k++] = (char *)"-w", perf[k++] = w;
  perf[k++] = (char *)"-i", perf[k++] = it;
  perf[k++] = (char *)"--inplace", perf[k++] = (char *)"0";
  perf[k++] = (char *)"--csv", perf[k++] = (char *)csv;
  if (trace) perf[k++] = (char *)"--trace", perf[k++] = (char *)trace;
  perf[k] = NULL;
  if (e->testbed == TESTBED_LOCAL) return run_child(perf, log, NULL);
  /* Namespace hosts: scripts/testbed launches rank r in host r / ppn with the
   * torchrun-style environment and returns the worst exit status. */
  char ppn[16];
  snprintf(ppn, sizeof ppn, "%d", e->ppn);
  char *argv[48] = {testbed_script, (char *)"launch", tb_name, ppn, (char *)"--"};
  int a = 5;
  for (int i = 0; i < k && a < 47; i++) argv[a++] = perf[i];
  argv[a] = NULL;
  return run_child(argv, log, NULL);
}

static int predict(const exp_t *e, const exp_run_t *r, const exp_points_t *pts, const char *topo, const char *csv,
                   const char *trace, const char *log) {
  char n[16], c[16], minb[32], maxb[32], only[32], spc[16], calls[16];
  snprintf(n, sizeof n, "%d", r->nranks);
  snprintf(calls, sizeof calls, "%d", e->iters);
  snprintf(spc, sizeof spc, "%d", e->steps_per_chunk);
  snprintf(c, sizeof c, "%d", r->channels);
  if (r->topology[0]) topo = r->topology;
  const char *b = e->minb, *eb = e->maxb, *f = e->factor;
  if (e->testbed == TESTBED_PUBLISHED) { /* the published sizes: min x 2^k, checked when read */
    snprintf(minb, sizeof minb, "%zu", pts->bytes[0]);
    snprintf(maxb, sizeof maxb, "%zu", pts->bytes[pts->npoints - 1]);
    b = minb, eb = maxb, f = "2";
  }
  if (trace) trace_size(e, only, sizeof only), b = eb = only;
  char *argv[40];
  int k = 0;
  argv[k++] = self_exe;
  argv[k++] = (char *)"sim";
  argv[k++] = (char *)r->coll;
  argv[k++] = (char *)"--topo", argv[k++] = (char *)topo;
  if (r->set[0]) argv[k++] = (char *)"--set", argv[k++] = (char *)r->set;
  argv[k++] = (char *)"-n", argv[k++] = n;
  argv[k++] = (char *)"-a", argv[k++] = (char *)r->algo;
  if (r->channels > 0) argv[k++] = (char *)"-c", argv[k++] = c;
  argv[k++] = (char *)"-b", argv[k++] = (char *)b;
  argv[k++] = (char *)"-e", argv[k++] = (char *)eb;
  argv[k++] = (char *)"-f", argv[k++] = (char *)f;
  argv[k++] = (char *)"-d", argv[k++] = (char *)e->dtype;
  if (r->model[0]) argv[k++] = (char *)"--model", argv[k++] = (char *)r->model;
  else if (r->nranks > 2048) argv[k++] = (char *)"--model", argv[k++] = (char *)"analytic";
  if (e->max_chunk[0]) argv[k++] = (char *)"--max-chunk", argv[k++] = (char *)e->max_chunk;
  if (e->steps_per_chunk) argv[k++] = (char *)"--steps-per-chunk", argv[k++] = spc;
  if (e->proto[0]) argv[k++] = (char *)"-p", argv[k++] = (char *)e->proto;
  /* chorus perf times `iters` calls back to back and reports their mean:
   * the model replays as many (a trace is of one call, as perf's). */
  if (!trace && (e->testbed == TESTBED_LOCAL || e->testbed == TESTBED_NETNS))
    argv[k++] = (char *)"--calls", argv[k++] = calls;
  argv[k++] = (char *)"--csv", argv[k++] = (char *)csv;
  if (trace) argv[k++] = (char *)"--trace", argv[k++] = (char *)trace;
  argv[k] = NULL;
  return run_child(argv, log, NULL);
}

/* The measured and predicted ops of the run's largest size on one time axis:
 * DIR/timelines/LABEL.html (chorus timeline), so a miss can be seen. */
static void timeline_run(const exp_t *e, const exp_run_t *r, const exp_points_t *pts, const char *topo,
                         const char *outdir) {
  char m[1600], p[1600], html[1800], log[1600], dir[1600], csv[1600];
  snprintf(m, sizeof m, "%s/raw/%s.trace-measured.json", outdir, r->label);
  snprintf(p, sizeof p, "%s/raw/%s.trace-predicted.json", outdir, r->label);
  snprintf(csv, sizeof csv, "%s/raw/%s.trace-predicted.csv", outdir, r->label);
  snprintf(dir, sizeof dir, "%s/timelines", outdir);
  snprintf(html, sizeof html, "%s/%s.html", dir, r->label);
  snprintf(log, sizeof log, "%s/raw/%s.log", outdir, r->label);
  if (access(m, R_OK) != 0 || predict(e, r, pts, topo, csv, p, log) != 0) return;
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) return;
  char *argv[] = {self_exe, (char *)"timeline", m, p, (char *)"--html", html, NULL};
  if (run_child(argv, log, NULL) != 0)
    fprintf(stderr, "chorus exp: %s: %s: the timeline was not drawn; see raw/%s.log\n", e->path, r->label, r->label);
}

/* --- CSV --- */

/* Read (size_bytes, busbw_GBps, nnodes, and into proto, when not NULL, the
 * proto column) of the out-of-place rows of a perf or sim CSV. Returns the
 * number of rows, -1 when unreadable. */
static int read_csv(const char *path, size_t *bytes, double *busbw, int max, int *nnodes, char (*proto)[8]) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[1024];
  int col_size = -1, col_bw = -1, col_ip = -1, col_nodes = -1, col_proto = -1, n = 0;
  if (fgets(line, sizeof line, f)) {
    char *head[32];
    int nh = csv_split(line, head, 32);
    col_size = csv_column(head, nh, "size_bytes");
    col_bw = csv_column(head, nh, "busbw_GBps");
    col_ip = csv_column(head, nh, "inplace");
    col_nodes = csv_column(head, nh, "nnodes");
    col_proto = csv_column(head, nh, "proto");
  }
  if (col_size < 0 || col_bw < 0) {
    fclose(f);
    return -1;
  }
  while (n < max && fgets(line, sizeof line, f)) {
    char *fields[32];
    int nf = csv_split(line, fields, 32);
    if (nf <= col_size || nf <= col_bw) continue;
    if (col_ip >= 0 && nf > col_ip && atoi(fields[col_ip]) != 0) continue;
    bytes[n] = (size_t)strtoull(fields[col_size], NULL, 10);
    busbw[n] = strtod(fields[col_bw], NULL);
    if (col_nodes >= 0 && nf > col_nodes) *nnodes = atoi(fields[col_nodes]);
    if (proto) snprintf(proto[n], sizeof proto[n], "%s", col_proto >= 0 && nf > col_proto ? fields[col_proto] : "");
    n++;
  }
  fclose(f);
  return n;
}

/* --- measuring, interleaved --- */

/* A memory-copy probe: the median rate of EXP_PROBE_PASSES copies of
 * EXP_PROBE_BYTES, in GB/s (bytes read plus written). About 60 ms; run
 * before every round of repeats, so that the report can show when the
 * machine changed speed under the experiment (on the 2-vCPU VM of
 * 2026-12-05 it varies by +-15% when quiet). 0 when out of memory. */
static double probe_copy(void) {
  char *a = malloc(EXP_PROBE_BYTES), *b = malloc(EXP_PROBE_BYTES);
  double v[EXP_PROBE_PASSES];
  int n = 0;
  if (a && b) {
    memset(a, 1, EXP_PROBE_BYTES), memset(b, 2, EXP_PROBE_BYTES);
    for (int i = 0; i < EXP_PROBE_PASSES; i++) {
      struct timespec t0, t1;
      clock_gettime(CLOCK_MONOTONIC, &t0);
      memcpy(i % 2 ? a : b, i % 2 ? b : a, EXP_PROBE_BYTES);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      double dt = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
      if (dt > 0) v[n++] = 2.0 * EXP_PROBE_BYTES / dt / 1e9;
    }
  }
  free(a), free(b);
  return n ? exp_median(v, n) : 0;
}

/* One repeat of one run: chorus perf into raw/LABEL.measured.REP.csv, its
 * rows added to the run's repeats. A launch that fails is tried again
 * (the testbed draws a fresh port); a run that still fails keeps the
 * repeats it completed and says why in failure. 0, or -1 when it failed. */
static int measure_rep(const exp_t *e, const exp_run_t *r, const char *outdir, int rep, exp_points_t *pts) {
  char log[1600], csv[1600];
  snprintf(log, sizeof log, "%s/raw/%s.log", outdir, r->label);
  snprintf(csv, sizeof csv, "%s/raw/%s.measured.%d.csv", outdir, r->label, rep);
  int rc = -1;
  for (int t = 0; t < EXP_LAUNCH_TRIES && rc != 0 && !interrupted; t++) {
    if (t) fprintf(stderr, "chorus exp: %s: measuring %s failed (exit %d); trying again\n", e->path, r->label, rc);
    rc = measure_once(e, r, csv, NULL, log);
  }
  if (rc != 0) {
    if (interrupted) return -1;
    snprintf(pts->failure, sizeof pts->failure, "measuring failed (exit %d) at repeat %d of %d, after %d tries; "
             "its log is raw/%s.log", rc, rep + 1, e->repeats, EXP_LAUNCH_TRIES, r->label);
    fprintf(stderr, "chorus exp: %s: %s %s; the log ends:\n", e->path, r->label, pts->failure);
    tail_log(log, 10);
    return -1;
  }
  size_t b[EXP_MAX_POINTS];
  double bw[EXP_MAX_POINTS];
  int n = read_csv(csv, b, bw, EXP_MAX_POINTS, &pts->nnodes, NULL);
  if (n <= 0 || (pts->nrep && n != pts->npoints)) {
    snprintf(pts->failure, sizeof pts->failure, "raw/%s.measured.%d.csv has %d rows (expected %d)", r->label, rep,
             n, pts->npoints);
    fprintf(stderr, "chorus exp: %s: %s\n", e->path, pts->failure);
    return -1;
  }
  pts->npoints = n;
  for (int i = 0; i < n; i++) pts->bytes[i] = b[i], pts->reps[i][pts->nrep] = bw[i];
  pts->nrep++;
  if (rep == 0) {
    /* Its timeline's measured half: one size, one traced call (best effort). */
    char trace[1600], tcsv[1600];
    snprintf(trace, sizeof trace, "%s/raw/%s.trace-measured.json", outdir, r->label);
    snprintf(tcsv, sizeof tcsv, "%s/raw/%s.trace-measured.csv", outdir, r->label);
    if (measure_once(e, r, tcsv, trace, log) != 0)
      fprintf(stderr, "chorus exp: %s: %s: tracing one call failed; no timeline (raw/%s.log)\n", e->path, r->label,
              r->label);
  }
  return 0;
}

/* Median and interquartile range of every size's repeats. */
static void summarise(exp_points_t *p) {
  for (int i = 0; i < p->npoints && p->nrep; i++) {
    double v[EXP_MAX_REPEATS];
    memcpy(v, p->reps[i], sizeof(double) * (size_t)p->nrep);
    p->meas[i] = exp_median(v, p->nrep); /* sorts v */
    p->lo[i] = exp_quantile(v, p->nrep, 0.25);
    p->hi[i] = exp_quantile(v, p->nrep, 0.75);
  }
}

/* The streaming rates a calibrated topology wrote (copy_bw, reduce_bw,
 * mem_bw), as "copy_bw 31.03GB/s, ...": the report shows them per round. */
static void read_rates(const char *path, char *out, size_t len) {
  static const char *const names[] = {"copy_bw", "reduce_bw", "mem_bw"};
  out[0] = 0;
  FILE *f = fopen(path, "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    for (int k = 0; k < 3; k++) {
      char name[32], value[64];
      if (sscanf(line, " %31[a-z_] = \"%63[^\"]\"", name, value) == 2 && !strcmp(name, names[k])) {
        size_t n = strlen(out);
        snprintf(out + n, len - n, "%s%s %s", n ? ", " : "", name, value);
      }
    }
    if (!strncmp(line, "-- ---- the base topology", 25)) break;
  }
  if (f) fclose(f);
}

/* `calibrate = true`: chorus calibrate on the testbed, on the base topology
 * `topo`, before round `round` of repeats (from 0), so that each round is
 * predicted on the machine as it was then (these VMs change speed within
 * minutes). Round 0 writes OUTDIR/calibrated.lua, round k
 * OUTDIR/raw/calibrated.K+1.lua; env gets its path and rates. 0, or -1
 * after a message. */
static int calibrate_testbed(const exp_t *e, const char *outdir, const char *topo, int round, exp_env_t *env) {
  char log[1400], n[16];
  char *cal = env->cal_topo[round];
  if (round == 0) snprintf(cal, sizeof env->cal_topo[0], "%s/calibrated.lua", outdir);
  else snprintf(cal, sizeof env->cal_topo[0], "%s/raw/calibrated.%d.lua", outdir, round + 1);
  snprintf(log, sizeof log, "%s/raw/calibrate.%d.log", outdir, round + 1);
  snprintf(n, sizeof n, "%d", e->runs[0].nranks);
  char *argv_local[] = {self_exe, (char *)"calibrate", (char *)"-n", n, (char *)"--topo", (char *)topo,
                        (char *)"--out", cal, NULL};
  char ppn[16];
  snprintf(ppn, sizeof ppn, "%d", e->ppn);
  char *argv_ns[] = {testbed_script, (char *)"launch", tb_name, ppn, (char *)"--", self_exe,
                     (char *)"calibrate", (char *)"--topo", (char *)topo, (char *)"--out", cal, NULL};
  printf("# calibrating %d/%d (chorus calibrate, log %s)\n", round + 1, e->repeats, log);
  fflush(stdout);
  int crc = run_child(e->testbed == TESTBED_NETNS ? argv_ns : argv_local, log, NULL);
  if (crc != 0) {
    if (interrupted) return -1;
    fprintf(stderr, "chorus exp: calibration failed (exit %d); its log, %s:\n", crc, log);
    tail_log(log, 10);
    return -1;
  }
  read_rates(cal, env->cal_rates[round], sizeof env->cal_rates[round]);
  env->ncal = round + 1;
  return 0;
}

/* --- published measurements --- */

/* Split one CSV line into at most max fields, in place: commas separate,
 * double quotes enclose a field that may hold commas ("" is a quote). The
 * line ending is dropped. Returns the number of fields. */
static int csv_fields(char *line, char **field, int max) {
  int n = 0;
  char *r = line, *w = line;
  while (n < max) {
    field[n++] = w;
    int quoted = *r == '"';
    if (quoted) r++;
    for (;;) {
      if (!*r || ((*r == '\n' || *r == '\r') && !quoted)) break;
      if (quoted && *r == '"') {
        if (r[1] == '"') {
          *w++ = '"', r += 2;
          continue;
        }
        quoted = 0, r++;
        continue;
      }
      if (!quoted && *r == ',') break;
      *w++ = *r++;
    }
    int more = *r == ',';
    *w++ = 0;
    if (!more) break;
    r++;
  }
  return n;
}

/* The published points of e->data: a header naming system, class, use,
 * collective, nranks, size_bytes, busbw_GBps and source; every "check" row
 * joins the run whose label is its system, as one repeat (a published
 * figure has no spread of its own). "fit" rows fixed a parameter of the
 * model and are not judged. Each run's sizes must be its smallest times a
 * power of 2 (the simulator sweeps them by factors of 2). 0, or -1 after a
 * message naming the file and line. */
static int read_published(const exp_t *e, exp_points_t *pts) {
  FILE *f = fopen(e->data, "r");
  if (!f) {
    fprintf(stderr, "chorus exp: %s: data %s: %s\n", e->path, e->data, strerror(errno));
    return -1;
  }
  static const char *const cols[] = {"system", "class", "use", "collective", "nranks", "size_bytes", "busbw_GBps",
                                     "source"};
  enum { SYS, CLS, USE, COLL, NRANKS, SIZE, BW, SRC, NCOLS };
  int at[NCOLS], lineno = 1, rc = -1, nfit = 0;
  char line[4096], *fld[32];
  int nf = fgets(line, sizeof line, f) ? csv_fields(line, fld, 32) : 0;
  int need = 0; /* the last column a row must reach */
  for (int c = 0; c < NCOLS; c++) {
    at[c] = -1;
    for (int i = 0; i < nf; i++)
      if (!strcmp(fld[i], cols[c])) at[c] = i;
    if (at[c] < 0) {
      fprintf(stderr, "chorus exp: %s:1: the header has no column '%s'\n", e->data, cols[c]);
      goto out;
    }
    if (at[c] > need) need = at[c];
  }
  while (fgets(line, sizeof line, f)) {
    lineno++;
    if (line[strspn(line, " \t\r\n")] == 0) continue;
    nf = csv_fields(line, fld, 32);
    if (nf <= need) {
      fprintf(stderr, "chorus exp: %s:%d: %d fields, the header has %d or more\n", e->data, lineno, nf, need + 1);
      goto out;
    }
    if (!strcmp(fld[at[USE]], "fit")) {
      nfit++;
      continue;
    }
    if (strcmp(fld[at[USE]], "check")) {
      fprintf(stderr, "chorus exp: %s:%d: use is '%s': check or fit\n", e->data, lineno, fld[at[USE]]);
      goto out;
    }
    int run = -1;
    for (int i = 0; i < e->nruns && run < 0; i++)
      if (!strcmp(e->runs[i].label, fld[at[SYS]])) run = i;
    char *end1, *end2;
    unsigned long long size = strtoull(fld[at[SIZE]], &end1, 10);
    double bw = strtod(fld[at[BW]], &end2);
    if (run < 0) {
      fprintf(stderr, "chorus exp: %s:%d: system '%s' is the label of no run of %s\n", e->data, lineno,
              fld[at[SYS]], e->path);
      goto out;
    }
    const exp_run_t *r = &e->runs[run];
    exp_points_t *p = &pts[run];
    if (*end1 || !size || *end2 || !(bw > 0)) {
      fprintf(stderr, "chorus exp: %s:%d: size_bytes '%s' and busbw_GBps '%s' must be positive numbers\n", e->data,
              lineno, fld[at[SIZE]], fld[at[BW]]);
      goto out;
    }
    if (strcmp(fld[at[COLL]], r->coll) || atoi(fld[at[NRANKS]]) != r->nranks) {
      fprintf(stderr, "chorus exp: %s:%d: %s on %s ranks, but run '%s' is %s on %d\n", e->data, lineno,
              fld[at[COLL]], fld[at[NRANKS]], r->label, r->coll, r->nranks);
      goto out;
    }
    if (p->npoints >= EXP_MAX_POINTS) {
      fprintf(stderr, "chorus exp: %s:%d: more than %d points for '%s'\n", e->data, lineno, EXP_MAX_POINTS, r->label);
      goto out;
    }
    int k = p->npoints++; /* kept sorted by size */
    while (k > 0 && p->bytes[k - 1] > size) {
      p->bytes[k] = p->bytes[k - 1], p->meas[k] = p->meas[k - 1];
      memcpy(p->cls[k], p->cls[k - 1], sizeof p->cls[k]);
      k--;
    }
    p->bytes[k] = (size_t)size, p->meas[k] = bw;
    snprintf(p->cls[k], sizeof p->cls[k], "%.31s", fld[at[CLS]]);
    if (!p->source[0]) snprintf(p->source, sizeof p->source, "%.255s", fld[at[SRC]]);
  }
  for (int i = 0; i < e->nruns; i++) {
    exp_points_t *p = &pts[i];
    if (!p->npoints) {
      fprintf(stderr, "chorus exp: %s: run '%s' has no check point in %s\n", e->path, e->runs[i].label, e->data);
      goto out;
    }
    for (int k = 0; k < p->npoints; k++) {
      size_t q = p->bytes[k] / p->bytes[0];
      if (p->bytes[k] % p->bytes[0] || (q & (q - 1)) || (k && p->bytes[k] == p->bytes[k - 1])) {
        fprintf(stderr, "chorus exp: %s: run '%s': size %zu is not %zu x a power of 2, or is listed twice\n", e->data,
                e->runs[i].label, p->bytes[k], p->bytes[0]);
        goto out;
      }
      p->reps[k][0] = p->lo[k] = p->hi[k] = p->meas[k];
    }
    p->nrep = 1;
  }
  printf("# %s: published points from %s (%d fit points not judged)\n", e->name, e->data, nfit);
  rc = 0;
out:
  fclose(f);
  return rc;
}

/* Every measured run, repeats interleaved: round k measures each run once,
 * so a busy second hits every algorithm alike; with calibrate = true, round
 * k is calibrated first. A run that fails is left out of later rounds; the
 * others go on. Returns 130 when interrupted, -1 when a calibration failed,
 * else 0. */
static int measure_all(const exp_t *e, exp_points_t *pts, const char *topo, const char *outdir, exp_env_t *env) {
  if (e->testbed == TESTBED_PUBLISHED) return read_published(e, pts) == 0 ? 0 : -1;
  int measured = exp_measures(e);
  for (int rep = 0; rep < e->repeats && !interrupted && measured; rep++) {
    env->probe[env->nprobe++] = probe_copy();
    if (e->calibrate && calibrate_testbed(e, outdir, topo, rep, env) != 0) return interrupted ? 130 : -1;
    for (int i = 0; i < e->nruns && !interrupted; i++) {
      const exp_run_t *r = &e->runs[i];
      if (!r->measure || pts[i].failure[0]) continue;
      printf("# repeat %d/%d, run %d/%d: %s\n", rep + 1, e->repeats, i + 1, e->nruns, r->label);
      fflush(stdout);
      measure_rep(e, r, outdir, rep, &pts[i]);
    }
  }
  env->probe[env->nprobe++] = probe_copy();
  for (int i = 0; i < e->nruns; i++) summarise(&pts[i]);
  return interrupted ? 130 : 0;
}

/* The rows of a prediction at the published sizes (the simulator swept
 * min..max by factors of 2): compacts b/bw, returns how many are left. */
static int keep_sizes(const exp_points_t *pts, size_t *b, double *bw, char (*proto)[8], int n) {
  int m = 0;
  for (int i = 0; i < n; i++)
    for (int k = 0; k < pts->npoints; k++)
      if (b[i] == pts->bytes[k]) {
        b[m] = b[i], bw[m] = bw[i];
        memcpy(proto[m], proto[i], sizeof proto[m]);
        m++;
        break;
      }
  return m;
}

/* Predict one run on topology `topo`: chorus sim into
 * raw/LABEL.predicted.csv (raw/LABEL.predicted.K.csv for round K's
 * calibration, round > 0), joined with its measured sizes into
 * pts->preds[][npred]. 0, or -1 with failure set. */
static int predict_one(const exp_t *e, const exp_run_t *r, const char *topo, int round, const char *outdir,
                       exp_points_t *pts) {
  char log[1600], csv[1600];
  snprintf(log, sizeof log, "%s/raw/%s.log", outdir, r->label);
  if (round > 0) snprintf(csv, sizeof csv, "%s/raw/%s.predicted.%d.csv", outdir, r->label, round);
  else snprintf(csv, sizeof csv, "%s/raw/%s.predicted.csv", outdir, r->label);
  int rc = predict(e, r, pts, topo, csv, NULL, log);
  size_t b[EXP_MAX_POINTS];
  double bw[EXP_MAX_POINTS];
  char proto[EXP_MAX_POINTS][8];
  int nn = 0, n = rc == 0 ? read_csv(csv, b, bw, EXP_MAX_POINTS, &nn, proto) : -1;
  if (n > 0 && e->testbed == TESTBED_PUBLISHED) n = keep_sizes(pts, b, bw, proto, n);
  if (rc != 0) snprintf(pts->failure, sizeof pts->failure, "predicting failed (exit %d); its log is raw/%s.log", rc,
                        r->label);
  else if (n <= 0 || (pts->nrep && n != pts->npoints))
    snprintf(pts->failure, sizeof pts->failure, "raw/%s.predicted.csv has %d rows, the measurement %d", r->label, n,
             pts->npoints);
  else if (pts->npred && n != pts->npoints)
    snprintf(pts->failure, sizeof pts->failure, "raw/%s.predicted.%d.csv has %d rows, round 1's %d", r->label, round,
             n, pts->npoints);
  for (int i = 0; i < n && !pts->failure[0]; i++)
    if ((pts->nrep || pts->npred) && b[i] != pts->bytes[i])
      snprintf(pts->failure, sizeof pts->failure, "predicted size %zu is not measured size %zu", b[i], pts->bytes[i]);
  if (pts->failure[0]) {
    if (interrupted) return -1;
    fprintf(stderr, "chorus exp: %s: %s: %s\n", e->path, r->label, pts->failure);
    if (rc != 0) tail_log(log, 10);
    return -1;
  }
  for (int i = 0; i < n; i++) {
    pts->bytes[i] = b[i], pts->preds[i][pts->npred] = bw[i];
    memcpy(pts->proto[i], proto[i], sizeof pts->proto[i]);
  }
  pts->npoints = n;
  pts->npred++;
  if (!pts->nnodes) pts->nnodes = nn;
  return 0;
}

/* Predict one run on every round's calibration (or once on the base
 * topology): its prediction per size is their median. 0, or -1 with
 * failure set. */
static int predict_run(const exp_t *e, const exp_run_t *r, const char *topo, const char *outdir, const exp_env_t *env,
                       exp_points_t *pts) {
  int nt = env->ncal ? env->ncal : 1;
  for (int k = 0; k < nt; k++)
    if (predict_one(e, r, env->ncal ? env->cal_topo[k] : topo, k == 0 ? 0 : k + 1, outdir, pts) != 0) return -1;
  for (int i = 0; i < pts->npoints; i++) {
    double v[EXP_MAX_REPEATS];
    memcpy(v, pts->preds[i], sizeof(double) * (size_t)pts->npred);
    pts->pred[i] = exp_median(v, pts->npred);
  }
  pts->predicted = 1;
  return 0;
}

/* Measure every run (interleaved, each round calibrated first when the
 * experiment calibrates), then predict each: 0 when all ran, 1 when some
 * run failed (the others are reported), 130 when interrupted, -1 when a
 * calibration failed. */
static int run_all(const exp_t *e, exp_points_t *pts, const char *topo, const char *outdir, exp_env_t *env) {
  getloadavg(&env->load_start, 1);
  env->cores = sysconf(_SC_NPROCESSORS_ONLN);
  int m = measure_all(e, pts, topo, outdir, env);
  if (m != 0) return m;
  getloadavg(&env->load_end, 1);
  int failed = 0;
  for (int i = 0; i < e->nruns && !interrupted; i++) {
    printf("# predicting %d/%d: %s\n", i + 1, e->nruns, e->runs[i].label);
    fflush(stdout);
    if (!pts[i].failure[0]) predict_run(e, &e->runs[i], topo, outdir, env, &pts[i]);
    if (!pts[i].failure[0] && e->runs[i].measure && (e->testbed == TESTBED_LOCAL || e->testbed == TESTBED_NETNS))
      timeline_run(e, &e->runs[i], &pts[i], env->ncal ? env->cal_topo[0] : topo, outdir);
    failed |= pts[i].failure[0] != 0;
  }
  return interrupted ? 130 : failed;
}

/* --- the command --- */

static void exp_usage(FILE *f) {
  fprintf(f, "usage: chorus exp run FILE [--out DIR]   run an experiment (experiments/*.lua)\n"
             "       chorus exp list                   list the shipped experiments\n\n"
             "Measures each run with chorus perf on the experiment's testbed, predicts it with chorus sim on\n"
             "the experiment's topology, and writes DIR (default chorus-results/NAME in the current directory;\n"
             "the committed results are rewritten only with --out experiments/results/NAME): compare.csv,\n"
             "report.md, crossovers.csv, plot.gp and plots, timelines/ (per measured run, one traced call\n"
             "of 4 MiB, or the nearest size, beside its prediction: chorus timeline), raw/ (every CSV, trace\n"
             "and log). Exits 1 when a run\n"
             "fails, 3 when a measured run misses the fidelity targets (5%% from 1 MiB, 15%% below).\n");
}

static int mkdir_p(const char *dir) {
  char buf[1600];
  snprintf(buf, sizeof buf, "%s", dir);
  for (char *p = buf + 1; *p; p++)
    if (*p == '/') {
      *p = 0;
      if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
      *p = '/';
    }
  return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static const char *source_dir(void) {
  const char *e = param_str(PARAM_SOURCE);
  return *e ? e : CHORUS_SOURCE_ROOT;
}

/* The experiment's file: FILE itself when readable, else
 * experiments/FILE(.lua). 0, or -1 after a message. */
static int find_experiment(const char *file, const char *dir, char *path, size_t len) {
  if (access(file, R_OK) == 0) snprintf(path, len, "%s", file);
  else snprintf(path, len, "%s/%s%s", dir, file, strstr(file, ".lua") ? "" : ".lua");
  if (access(path, R_OK) != 0) {
    fprintf(stderr, "chorus exp: no experiment '%s' (not a readable file, nor in %s; chorus exp list)\n", file, dir);
    return -1;
  }
  return 0;
}

/* Where and when, and where the topology's parameters came from: a
 * calibrated topology names its measurements on a line
 * "-- calib_set: ..." (chorus calibrate writes it). */
static void describe_env(const exp_t *e, const char *topo, exp_env_t *env) {
  snprintf(env->host, sizeof env->host, "?");
  gethostname(env->host, sizeof env->host);
  time_t now = time(NULL);
  strftime(env->date, sizeof env->date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
  snprintf(env->calib_set, sizeof env->calib_set, "%s", e->calibrate ? "calibrated (no calib_set line)" : "defaults");
  FILE *f = e->calibrate ? fopen(topo, "r") : NULL;
  char line[512];
  env->calib_warn[0] = 0;
  while (f && fgets(line, sizeof line, f) && !strncmp(line, "--", 2)) { /* the header comment */
    line[strcspn(line, "\n")] = 0;
    if (!strncmp(line, "-- calib_set: ", 14)) {
      snprintf(env->calib_set, sizeof env->calib_set, "%.250s", line + 14);
      for (char *c = env->calib_set; *c; c++)
        if (*c == ',') *c = ';';
    } else if (!strncmp(line, "-- warning: ", 12)) {
      size_t n = strlen(env->calib_warn);
      snprintf(env->calib_warn + n, sizeof env->calib_warn - n, "%s\n", line + 12);
    }
  }
  if (f) fclose(f);
}

int cmd_exp(int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    exp_usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  char dir[1100];
  snprintf(dir, sizeof dir, "%s/experiments", source_dir());
  if (!strcmp(argv[1], "list")) {
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "ls '%s' | sed -n 's/\\.lua$//p'", dir);
    return system(cmd) == 0 ? 0 : 1;
  }
  if (strcmp(argv[1], "run") || argc < 3) {
    exp_usage(stderr);
    return 2;
  }
  const char *file = argv[2], *out = NULL;
  for (int i = 3; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
    else {
      fprintf(stderr, "chorus exp run: unknown argument '%s' (chorus exp --help)\n", argv[i]);
      return 2;
    }
  }
  char path[1200];
  if (find_experiment(file, dir, path, sizeof path)) return 2;
  exp_t *e = calloc(1, sizeof *e);
  exp_points_t *pts = calloc(EXP_MAX_RUNS, sizeof *pts);
  if (!e || !pts) return fprintf(stderr, "chorus exp: out of memory\n"), 1;
  int rc = 1, up = 0;
  if (exp_load(e, path) != 0) goto done;
  ssize_t nl = readlink("/proc/self/exe", self_exe, sizeof self_exe - 1);
  if (nl <= 0) goto done;
  self_exe[nl] = 0;
  snprintf(testbed_script, sizeof testbed_script, "%s/scripts/testbed", source_dir());
  /* The whole pid: scripts/testbed up removes the namespaces of a cx<pid>
   * that no longer runs chorus (a run killed before it could). */
  snprintf(tb_name, sizeof tb_name, "cx%d", (int)getpid());
  char outdir[1300], raw[1400], topo[1500];
  /* By default in the current directory (chorus-results/NAME): the
   * committed results in experiments/results/ are rewritten only when
   * --out names them. */
  char cwd[1024];
  if (out) snprintf(outdir, sizeof outdir, "%s", out);
  else snprintf(outdir, sizeof outdir, "%s/chorus-results/%s", getcwd(cwd, sizeof cwd) ? cwd : ".", e->name);
  snprintf(raw, sizeof raw, "%s/raw", outdir);
  if (mkdir_p(raw) != 0) {
    fprintf(stderr, "chorus exp: --out %s: cannot create it: %s\n", outdir, strerror(errno));
    goto done;
  }
  snprintf(topo, sizeof topo, "%s", e->topology);
  struct sigaction sa = {.sa_handler = on_signal};
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  printf("# chorus exp %s: %d runs, testbed %s, topology %s, results in %s\n", e->name, e->nruns,
         e->testbed == TESTBED_LOCAL ? "local" : e->testbed == TESTBED_NETNS ? "netns"
         : e->testbed == TESTBED_PUBLISHED ? "published" : "none", topo, outdir);
  fflush(stdout);
  int need_testbed = exp_measures(e);
  if (e->testbed == TESTBED_NETNS && need_testbed) {
    printf("# testbed: %d namespace hosts x %d ranks, links shaped to %s (scripts/testbed)\n", e->hosts, e->ppn,
           e->rate);
    fflush(stdout);
    if (testbed(e, "up", outdir) != 0) goto done;
    up = 1;
  }
  static exp_env_t env; /* large: the calibrations' paths */
  int ran = run_all(e, pts, topo, outdir, &env);
  if (ran < 0) goto done;
  if (ran == 130) {
    fprintf(stderr, "chorus exp: interrupted; taking the testbed down\n");
    rc = 130;
    goto done;
  }
  if (up) {
    up = 0;
    if (testbed(e, "down", outdir) != 0) goto done;
  }
  if (env.ncal) snprintf(topo, sizeof topo, "%s", env.cal_topo[0]);
  describe_env(e, topo, &env);
  char reason[1024];
  int misses = exp_report(e, pts, &env, outdir, topo, reason, sizeof reason);
  if (misses < 0) goto done;
  exp_plots(e, pts, outdir);
  printf("\nresults: %s/compare.csv, %s/report.md\n", outdir, outdir);
  char why[256];
  if (need_testbed && e->testbed != TESTBED_PUBLISHED && exp_noisy(&env, why, sizeof why)) printf("note: the machine was noisy during the run: %s\n", why);
  if (ran) fprintf(stderr, "chorus exp: %s: a run failed: %s\n", e->name, reason);
  else if (misses) printf("verdict: %s misses its targets: %s\n", e->name, reason);
  else if (!need_testbed) printf("verdict: %s predicted only (nothing measured, no target judged)\n", e->name);
  else printf("verdict: %s meets its targets\n", e->name);
  rc = ran ? 1 : misses ? 3 : 0;
done:
  if (up) testbed(e, "down", outdir);
  free(pts);
  free(e);
  return rc;
}
