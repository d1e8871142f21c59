/* params.c -- the table of CHORUS_* settings and their reading. */
#include "params.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
                            "subsystems to log (INIT,BOOT,NET,SHM,SOCK,PLAN,EXEC,TUNE,COLL), ^ to exclude; "
                            "empty: all"},
    [PARAM_ALGOS] = {"CHORUS_ALGOS", PARAM_STR, "", "folder of algorithm scripts; empty: the shipped ones", 1},
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
    [PARAM_TOPOLOGIES] = {"CHORUS_TOPOLOGIES", PARAM_STR, "",
                          "folder of topology descriptions; empty: the shipped ones", 1},
    [PARAM_PLAN_THREADS] = {"CHORUS_PLAN_THREADS", PARAM_INT, "0",
                            "threads that plan a large communicator (64 ranks or more); 0: the CPUs this process may use",
                            1},
    [PARAM_ROOT] = {"CHORUS_ROOT", PARAM_STR, "",
                    "host:port of rank 0's bootstrap for chorus_comm_init_env; empty: MASTER_ADDR/MASTER_PORT, the "
                    "Slurm node list, or this host", 1},
    [PARAM_SECRET] = {"CHORUS_SECRET", PARAM_STR, "",
                      "32 hex digits every rank of a job shares, checked at the bootstrap; empty: derived from the "
                      "launcher's job id and the root", 1},
    [PARAM_SOURCE] = {"CHORUS_SOURCE", PARAM_STR, "",
                      "source tree chorus exp works in (experiments/, results/); empty: the one this copy was built from",
                      1},
    [PARAM_AGREE] = {"CHORUS_AGREE", PARAM_STR, "rooted",
                     "calls whose arguments every rank compares with the others' before any data moves (one small "
                     "allreduce): rooted (broadcast, reduce and the first call of each collective), all (every "
                     "collective call), none; a mismatch then fails on every rank in that call"},
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const char *values[PARAM_COUNT];
static int from_env[PARAM_COUNT];
static long ivalues[PARAM_COUNT];

/* The integer value of text, or the default with a message naming the
 * variable when it is not a number. */
static long to_int(const param_def_t *d, const char *text) {
  char *end;
  if (!*text) text = d->dflt; /* set but empty: the default */
  errno = 0;
  long v = strtol(text, &end, 0);
  if (end == text || *end || errno) {
    fprintf(stderr, "chorus: %s='%s' is not a number; using %s\n", d->name, text, d->dflt);
    v = strtol(d->dflt, NULL, 0);
  }
  return v;
}

/* The environment is read here and nowhere else in Chorus (launcher.c reads
 * the launchers' own variables). */
static void load(void) {
  for (int i = 0; i < PARAM_COUNT; i++) {
    const char *e = getenv(defs[i].name);
    from_env[i] = e != NULL;
    values[i] = e ? e : defs[i].dflt;
    if (defs[i].type == PARAM_INT) ivalues[i] = to_int(&defs[i], values[i]);
  }
}

const param_def_t *param_def(param_id_t id) { return &defs[id]; }

long param_int(param_id_t id) {
  if (defs[id].live) {
    const char *e = getenv(defs[id].name);
    return to_int(&defs[id], e ? e : defs[id].dflt);
  }
  pthread_once(&once, load);
  return ivalues[id];
}

const char *param_str(param_id_t id) {
  if (defs[id].live) {
    const char *e = getenv(defs[id].name);
    return e ? e : defs[id].dflt;
  }
  pthread_once(&once, load);
  return values[id];
}

int param_is_set(param_id_t id) {
  if (defs[id].live) return getenv(defs[id].name) != NULL;
  pthread_once(&once, load);
  return from_env[id];
}

void param_list(FILE *f) {
  for (int i = 0; i < PARAM_COUNT; i++) {
    const char *v = param_str((param_id_t)i);
    fprintf(f, "  %-24s %-10s %-8s %s\n", defs[i].name, v[0] ? v : "\"\"",
            param_is_set((param_id_t)i) ? "(env)" : "(default)", defs[i].help);
  }
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
