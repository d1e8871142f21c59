/* params.c -- the table of CHORUS_* settings, their reading and logging, and
 * the engine's error recording. */
#include "params.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static const param_def_t defs[PARAM_COUNT] = {
    [PARAM_BUFFSIZE] = {"CHORUS_BUFFSIZE", PARAM_INT, "4194304",
                        "bytes of receive slots per connection; a chunk is half of it"},
    [PARAM_NCHANNELS] = {"CHORUS_NCHANNELS", PARAM_INT, "0",
                         "channels (threads) per collective; 0 lets the tuner choose"},
    [PARAM_ALGO] = {"CHORUS_ALGO", PARAM_STR, "", "algorithm for every collective (ring, tree, ...); empty: tuner"},
    [PARAM_PROTO] = {"CHORUS_PROTO", PARAM_STR, "simple", "protocol; the CPU engine implements simple"},
    [PARAM_TIMEOUT] = {"CHORUS_TIMEOUT", PARAM_INT, "30",
                       "seconds a rank waits for a peer before the call fails with chorus_timeout"},
    [PARAM_SOCKET_IFNAME] = {"CHORUS_SOCKET_IFNAME", PARAM_STR, "",
                             "interfaces for sockets: prefixes, ^ to exclude, = for exact names"},
    [PARAM_NSOCKS_PERCONN] = {"CHORUS_NSOCKS_PERCONN", PARAM_INT, "2", "TCP streams per socket connection"},
    [PARAM_SPIN] = {"CHORUS_SPIN", PARAM_INT, "4000", "polls of a flag before a waiter sleeps on a futex"},
    [PARAM_DEBUG] = {"CHORUS_DEBUG", PARAM_STR, "WARN", "log level: NONE, WARN, INFO or TRACE"},
    [PARAM_DEBUG_SUBSYS] = {"CHORUS_DEBUG_SUBSYS", PARAM_STR, "",
                            "subsystems to log (INIT,BOOT,SHM,SOCK,EXEC,TUNE); empty: all"},
    [PARAM_ALGOS] = {"CHORUS_ALGOS", PARAM_STR, "", "folder of algorithm scripts; empty: the shipped ones"},
    [PARAM_SHM_DISABLE] = {"CHORUS_SHM_DISABLE", PARAM_INT, "0", "1: use sockets even inside a host"},
    [PARAM_VERIFY] = {"CHORUS_VERIFY", PARAM_INT, "1", "1: prove every plan before its first use"},
    [PARAM_SOCKET_BUFSIZE] = {"CHORUS_SOCKET_BUFSIZE", PARAM_INT, "4194304",
                              "SO_SNDBUF/SO_RCVBUF of each TCP stream; 0 keeps the system's"},
    [PARAM_HANG_DIR] = {"CHORUS_HANG_DIR", PARAM_STR, "/tmp",
                        "folder for hang reports (on a timeout, or SIGUSR1 during a call)"},
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
  for (int i = 0; i < PARAM_COUNT; i++)
    if (from_env[i] && level >= LOG_INFO)
      log_msg(LOG_INFO, "INIT", "%s=%s (default %s)", defs[i].name, values[i], defs[i].dflt);
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

int log_enabled(log_level_t lvl, const char *subsys) {
  pthread_once(&once, load);
  if (lvl > level) return 0;
  const char *want = values[PARAM_DEBUG_SUBSYS];
  if (!want[0] || lvl == LOG_WARN) return 1;
  return strstr(want, subsys) != NULL;
}

void log_msg(log_level_t lvl, const char *subsys, const char *fmt, ...) {
  if (!log_enabled(lvl, subsys)) return;
  char host[64] = "?", line[1024];
  gethostname(host, sizeof host);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  static const char *names[] = {"", "WARN", "INFO", "TRACE"};
  fprintf(stderr, "%s:%d chorus %s %s %s\n", host, (int)getpid(), names[lvl], subsys, line);
}

chorus_result_t err_set(chorus_result_t r, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  chorus_set_last_error(msg);
  return r;
}
