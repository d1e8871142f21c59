/* params.c -- the table of CHORUS_* settings, their reading and logging, and
 * the engine's error recording. */
#define _GNU_SOURCE /* dladdr */
#include "params.h"

#include <dlfcn.h>
#include <errno.h>
#include <gsl/gsl_version.h>
#include <hwloc.h>
#include <lua.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#ifndef CHORUS_BUILD_TYPE
#define CHORUS_BUILD_TYPE "unknown"
#endif
#ifndef CHORUS_BUILD_OPTIONS
#define CHORUS_BUILD_OPTIONS ""
#endif

static const param_def_t defs[PARAM_COUNT] = {
    [PARAM_BUFFSIZE] = {"CHORUS_BUFFSIZE", PARAM_INT, "4194304",
                        "bytes of receive slots per connection; a chunk is half of it, at most 512 KiB"},
    [PARAM_NCHANNELS] = {"CHORUS_NCHANNELS", PARAM_INT, "0",
                         "channels (threads) per collective; 0 lets the tuner choose"},
    [PARAM_ALGO] =
        {"CHORUS_ALGO", PARAM_STR, "",
         "one algorithm for every collective, or a list for the tuner (ring,tree; ^rd excludes); empty: tuner"},
    [PARAM_PROTO] =
        {"CHORUS_PROTO", PARAM_STR, "simple",
         "protocols allowed (simple,ll; ^ll128 excludes): simple, ll, ll128; the CPU engine implements simple"},
    [PARAM_TIMEOUT] = {"CHORUS_TIMEOUT", PARAM_INT, "30",
                       "seconds a rank waits for a peer before the call fails with chorus_timeout"},
    [PARAM_SOCKET_IFNAME] = {"CHORUS_SOCKET_IFNAME", PARAM_STR, "",
                             "interfaces for sockets: prefixes, ^ to exclude, = for exact names"},
    [PARAM_NSOCKS_PERCONN] = {"CHORUS_NSOCKS_PERCONN", PARAM_INT, "2", "TCP streams per socket connection"},
    [PARAM_SPIN] = {"CHORUS_SPIN", PARAM_INT, "400",
                    "polls of a flag (about 27 ns each here) before a waiter sleeps on a futex"},
    [PARAM_DEBUG] = {"CHORUS_DEBUG", PARAM_STR, "WARN", "log level: NONE, WARN, INFO or TRACE"},
    [PARAM_DEBUG_SUBSYS] = {"CHORUS_DEBUG_SUBSYS", PARAM_STR, "",
                            "subsystems to log (INIT,BOOT,SHM,SOCK,EXEC,TUNE,...), ^ to exclude; empty: all"},
    [PARAM_ALGOS] = {"CHORUS_ALGOS", PARAM_STR, "", "folder of algorithm scripts; empty: the shipped ones"},
    [PARAM_SHM_DISABLE] = {"CHORUS_SHM_DISABLE", PARAM_INT, "0", "1: use sockets even inside a host"},
    [PARAM_VERIFY] = {"CHORUS_VERIFY", PARAM_INT, "1", "1: prove every plan before its first use"},
    [PARAM_SOCKET_BUFSIZE] = {"CHORUS_SOCKET_BUFSIZE", PARAM_INT, "4194304",
                              "SO_SNDBUF/SO_RCVBUF of each TCP stream; 0 keeps the system's"},
    [PARAM_DEBUG_FILE] = {"CHORUS_DEBUG_FILE", PARAM_STR, "",
                          "log to this file instead of stderr (%h: host name, %p: pid)"},
    [PARAM_TUNER] = {"CHORUS_TUNER", PARAM_STR, "model",
                     "model: the simulator's cost model picks algorithm and channels; rules: fixed thresholds"},
    [PARAM_TOPO] = {"CHORUS_TOPO", PARAM_STR, "",
                    "topology the tuner's model predicts on (e.g. from chorus calibrate); empty: by the job's shape"},
    [PARAM_TUNING_FILE] =
        {"CHORUS_TUNING_FILE", PARAM_STR, "",
         "file of pinned choices ('allreduce 0-32K rd 1'); beats the tuner, not CHORUS_ALGO/NCHANNELS"},
    [PARAM_CONFIRM_SENDS] = {"CHORUS_CONFIRM_SENDS", PARAM_INT, "0",
                             "N > 0: every Nth call, a rank that only sends (a broadcast's root, a reduce's leaf) waits "
                             "until its steps are taken, so that a mismatched call fails there in that call, not a later "
                             "one (costs a round trip); 0: never"},
    [PARAM_SOCKET_DIRECT] = {"CHORUS_SOCKET_DIRECT", PARAM_INT, "32768",
                             "socket steps up to this many bytes are written and read by the calling thread itself "
                             "when their stream is idle, not handed to the proxy threads; 0: always the proxies"},
    [PARAM_HANG_DIR] = {"CHORUS_HANG_DIR", PARAM_STR, "/tmp",
                        "folder for hang reports (on a timeout, or SIGUSR1 during a call)"},
    [PARAM_RSH] = {"CHORUS_RSH", PARAM_STR, "ssh -o BatchMode=yes",
                   "remote shell of chorus doctor --hosts without a launcher: words, then the host, then the command"},
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *values[PARAM_COUNT];
static int from_env[PARAM_COUNT];
static long ivalues[PARAM_COUNT];
static log_level_t level = LOG_WARN;

static log_level_t parse_level(const char *s) {
  if (!strcasecmp(s, "NONE")) return LOG_NONE;
  if (!strcasecmp(s, "INFO")) return LOG_INFO;
  if (!strcasecmp(s, "TRACE")) return LOG_TRACE;
  return LOG_WARN;
}

static void emit(log_level_t lvl, const char *subsys, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void load(void) {
  for (int i = 0; i < PARAM_COUNT; i++) {
    const char *e = getenv(defs[i].name);
    from_env[i] = e != NULL;
    values[i] = e ? e : defs[i].dflt;
    if (defs[i].type == PARAM_INT) {
      char *end;
      ivalues[i] = strtol(values[i], &end, 0);
      if (*end) {
        fprintf(stderr, "chorus: %s='%s' is not a number; using %s\n", defs[i].name, values[i], defs[i].dflt);
        ivalues[i] = strtol(defs[i].dflt, NULL, 0);
      }
    }
  }
  level = parse_level(values[PARAM_DEBUG]);
  /* Not log_msg: it would re-enter this pthread_once routine and deadlock. */
  for (int i = 0; i < PARAM_COUNT; i++)
    if (from_env[i] && level >= LOG_INFO)
      emit(LOG_INFO, "INIT", "%s=%s (default %s)", defs[i].name, values[i], defs[i].dflt);
}

const param_def_t *param_def(param_id_t id) { return &defs[id]; }

long param_int(param_id_t id) {
  pthread_once(&once, load);
  return ivalues[id];
}

const char *param_str(param_id_t id) {
  pthread_once(&once, load);
  return values[id];
}

void param_list(FILE *f) {
  pthread_once(&once, load);
  for (int i = 0; i < PARAM_COUNT; i++)
    fprintf(f, "  %-24s %-10s %-8s %s\n", defs[i].name, values[i][0] ? values[i] : "\"\"",
            from_env[i] ? "(env)" : "(default)", defs[i].help);
}

int param_parse_bytes(const char *s, size_t *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || !(v >= 0) || errno) return -1;
  switch (*end) {
  case 'k':
  case 'K': v *= 1024, end++; break;
  case 'm':
  case 'M': v *= 1024.0 * 1024, end++; break;
  case 'g':
  case 'G': v *= 1024.0 * 1024 * 1024, end++; break;
  default: break;
  }
  if (end[0] == 'i' && (end[1] == 'B' || end[1] == 'b')) end++;
  if (*end == 'B' || *end == 'b') end++;
  if (*end || !(v < 0x1p63)) return -1;
  *out = (size_t)v;
  return 0;
}

int param_in_list(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; *p;) {
    size_t len = strcspn(p, ",");
    if (len == n && !strncmp(p, name, n)) return 1;
    p += len;
    if (*p == ',') p++;
  }
  return 0;
}

int log_enabled(log_level_t lvl, const char *subsys) {
  pthread_once(&once, load);
  if (lvl > level) return 0;
  const char *want = values[PARAM_DEBUG_SUBSYS];
  if (!want[0] || lvl == LOG_WARN) return 1;
  return want[0] == '^' ? !param_in_list(want + 1, subsys) : param_in_list(want, subsys);
}

static _Thread_local int log_rank = -1;
void log_set_rank(int rank) { log_rank = rank; }

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *log_file;
static int log_started;

/* CHORUS_DEBUG_FILE with %h and %p expanded; stderr when unset or unopenable. */
static FILE *open_log(void) {
  const char *pat = values[PARAM_DEBUG_FILE];
  if (!pat[0]) return stderr;
  char path[1024], host[64] = "?";
  gethostname(host, sizeof host);
  size_t len = 0;
  for (const char *p = pat; *p && len < sizeof path - 1; p++) {
    if (p[0] == '%' && (p[1] == 'h' || p[1] == 'p')) {
      if (p[1] == 'h') len += (size_t)snprintf(path + len, sizeof path - len, "%s", host);
      else len += (size_t)snprintf(path + len, sizeof path - len, "%d", (int)getpid());
      if (len >= sizeof path) len = sizeof path - 1;
      p++;
    } else {
      path[len++] = *p;
    }
  }
  path[len] = 0;
  FILE *f = fopen(path, "a");
  if (!f) {
    fprintf(stderr, "chorus: CHORUS_DEBUG_FILE=%s: cannot open %s: %s; logging to stderr\n", pat, path,
            strerror(errno));
    return stderr;
  }
  setvbuf(f, NULL, _IOLBF, 0);
  return f;
}

/* Versions of the libraries this copy was compiled against (their headers). */
static const char *chorus_build_versions(void) {
  static char buf[160];
  if (!buf[0])
    snprintf(buf, sizeof buf, "GSL %s, hwloc API %u.%u.%u", GSL_VERSION, HWLOC_API_VERSION >> 16,
             (HWLOC_API_VERSION >> 8) & 0xff, HWLOC_API_VERSION & 0xff);
  return buf;
}

static void banner(FILE *f, const char *host) {
  Dl_info info = {0};
  dladdr((void *)&log_msg, &info);
  int v = chorus_version();
  fprintf(f, "%s:%d chorus INFO INIT Chorus %d.%d.%d, library %s, build %s, %s; built with %s%s%s\n", host,
          (int)getpid(), v / 10000, v / 100 % 100, v % 100, info.dli_fname ? info.dli_fname : "(unknown)",
          CHORUS_BUILD_TYPE, CHORUS_BUILD_OPTIONS, LUA_RELEASE, chorus_build_versions()[0] ? ", " : "",
          chorus_build_versions());
}

static void vemit(log_level_t lvl, const char *subsys, const char *fmt, va_list ap) {
  char host[64] = "?", line[1024], rank[16] = "-";
  gethostname(host, sizeof host);
  vsnprintf(line, sizeof line, fmt, ap);
  if (log_rank >= 0) snprintf(rank, sizeof rank, "%d", log_rank);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  static const char *names[] = {"", "WARN", "INFO", "TRACE"};
  pthread_mutex_lock(&log_lock);
  if (!log_file) log_file = open_log();
  if (!log_started && level >= LOG_INFO) banner(log_file, host);
  log_started = 1;
  fprintf(log_file, "%s:%d rank %s [%ld.%06ld] chorus %s %s %s\n", host, (int)getpid(), rank, (long)ts.tv_sec,
          ts.tv_nsec / 1000, names[lvl], subsys, line);
  pthread_mutex_unlock(&log_lock);
}

static void emit(log_level_t lvl, const char *subsys, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vemit(lvl, subsys, fmt, ap);
  va_end(ap);
}

void log_msg(log_level_t lvl, const char *subsys, const char *fmt, ...) {
  if (!log_enabled(lvl, subsys)) return;
  va_list ap;
  va_start(ap, fmt);
  vemit(lvl, subsys, fmt, ap);
  va_end(ap);
}

