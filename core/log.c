/* log.c -- Chorus's log lines and the first line's banner. */
#define _GNU_SOURCE /* dladdr */
#include "log.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "chorus.h" /* CHORUS_VERSION_* */
#include "params.h"

#ifndef CHORUS_BUILD_TYPE
#define CHORUS_BUILD_TYPE "unknown"
#endif
#ifndef CHORUS_BUILD_OPTIONS
#define CHORUS_BUILD_OPTIONS ""
#endif
#ifndef CHORUS_BUILD_WITH
#define CHORUS_BUILD_WITH "unknown libraries"
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static log_level_t level = LOG_WARN;
static const char *subsystems = "";

static log_level_t parse_level(const char *s) {
  if (!strcasecmp(s, "NONE")) return LOG_NONE;
  if (!strcasecmp(s, "INFO")) return LOG_INFO;
  if (!strcasecmp(s, "TRACE")) return LOG_TRACE;
  return LOG_WARN;
}

static void emit(log_level_t lvl, const char *subsys, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The level and filter, then at INFO every setting the environment sets.
 * Not log_msg: it would re-enter this pthread_once routine and deadlock. */
static void load(void) {
  level = parse_level(param_str(PARAM_DEBUG));
  subsystems = param_str(PARAM_DEBUG_SUBSYS);
  if (level < LOG_INFO) return;
  for (int i = 0; i < PARAM_COUNT; i++) {
    const param_def_t *d = param_def((param_id_t)i);
    if (param_is_set((param_id_t)i))
      emit(LOG_INFO, "INIT", "%s=%s (default %s)", d->name, param_str((param_id_t)i), d->dflt);
  }
}

int log_enabled(log_level_t lvl, const char *subsys) {
  pthread_once(&once, load);
  if (lvl > level) return 0;
  const char *want = subsystems;
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
  const char *pat = param_str(PARAM_DEBUG_FILE);
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

static void banner(FILE *f, const char *host) {
  Dl_info info = {0};
  dladdr((void *)&log_msg, &info);
  fprintf(f, "%s:%d chorus INFO INIT Chorus %d.%d.%d, library %s, build %s, %s; built with %s\n", host, (int)getpid(),
          CHORUS_VERSION_MAJOR, CHORUS_VERSION_MINOR, CHORUS_VERSION_PATCH, info.dli_fname ? info.dli_fname : "(unknown)",
          CHORUS_BUILD_TYPE, CHORUS_BUILD_OPTIONS, CHORUS_BUILD_WITH);
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

