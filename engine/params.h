/* params.h -- the engine's tunable constants and its CHORUS_* environment
 * settings. Every setting is declared once in the table in params.c (name,
 * type, default, help), read through param_get(), logged at INFO when set,
 * and listed by `chorus doctor` (param_list). The flow-control constants
 * are the geometry's (core/geom.h), shared with the simulator. */
#ifndef CHORUS_PARAMS_H
#define CHORUS_PARAMS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "chorus.h"
#include "error.h" /* err_set, CHECK */
#include "geom.h"
#include "plan.h"

typedef enum {
  PARAM_BUFFSIZE = 0,
  PARAM_NCHANNELS,
  PARAM_ALGO,
  PARAM_PROTO,
  PARAM_TIMEOUT,
  PARAM_SOCKET_IFNAME,
  PARAM_NSOCKS_PERCONN,
  PARAM_SPIN,
  PARAM_DEBUG,
  PARAM_DEBUG_SUBSYS,
  PARAM_ALGOS,
  PARAM_SHM_DISABLE,
  PARAM_VERIFY,
  PARAM_SOCKET_BUFSIZE,
  PARAM_HANG_DIR,
  PARAM_DEBUG_FILE,
  PARAM_TUNER,
  PARAM_TOPO,
  PARAM_TUNING_FILE,
  PARAM_CONFIRM_SENDS,
  PARAM_RSH,
  PARAM_SOCKET_DIRECT,
  PARAM_COUNT
} param_id_t;

typedef enum { PARAM_INT, PARAM_STR } param_type_t;

typedef struct {
  const char *name; /* "CHORUS_BUFFSIZE" */
  param_type_t type;
  const char *dflt; /* default as text; "" for none */
  const char *help;
} param_def_t;

/* The table, indexed by param_id_t. */
const param_def_t *param_def(param_id_t id);

/* The value: from the environment when set there (read once per process,
 * logged at INFO), else the default. */
long param_int(param_id_t id);
const char *param_str(param_id_t id);

/* Whether name is one of the comma-separated names of list (exact match);
 * CHORUS_DEBUG_SUBSYS, CHORUS_ALGO and CHORUS_PROTO lists use it. */
int param_in_list(const char *list, const char *name);

/* A byte count as people write it: "4096", "32K", "1.5M", "64MiB", "1G"
 * (binary units; fractions are cut to whole bytes). 0, or -1 when it is not
 * a size (negative, not a number, trailing text, 2^63 or more). */
int param_parse_bytes(const char *s, size_t *out);

/* Print every setting with its value and where it came from (`chorus doctor`). */
void param_list(FILE *f);

/* Logging. CHORUS_DEBUG=WARN|INFO|TRACE (WARN by default); CHORUS_DEBUG_SUBSYS
 * a comma list of subsystems, ^ first to exclude them instead (WARN is never
 * filtered); CHORUS_DEBUG_FILE a file (%h: host, %p: pid) instead of stderr.
 * A line is "host:pid rank R [seconds.micro] chorus LEVEL SUBSYS message";
 * the rank is the calling thread's (log_set_rank), "-" outside a rank. The
 * first line of a process at INFO names the version, the loaded library,
 * its build options and the versions of what it was built with. Not for
 * hot paths. */
typedef enum { LOG_NONE = 0, LOG_WARN, LOG_INFO, LOG_TRACE } log_level_t;
int log_enabled(log_level_t lvl, const char *subsys);
void log_msg(log_level_t lvl, const char *subsys, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The rank this thread works for, shown in its log lines (-1: none). */
void log_set_rank(int rank);

#define LOG_WARN_(sub, ...) log_msg(LOG_WARN, sub, __VA_ARGS__)
#define LOG_INFO_(sub, ...) \
  do { if (log_enabled(LOG_INFO, sub)) log_msg(LOG_INFO, sub, __VA_ARGS__); } while (0)

/* Copy the string src into dst of len bytes (len > 0), cut to fit and
 * always terminated: snprintf(dst, len, "%s", src) without the format
 * machinery, for the per-call path (about 40 ns a call less each). */
static inline void str_copy(char *dst, size_t len, const char *src) {
  size_t n = strnlen(src, len - 1);
  memcpy(dst, src, n);
  dst[n] = 0;
}


#endif
