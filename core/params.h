/* params.h -- the CHORUS_* settings: the one place the process environment
 * is read for them. Every setting is declared once in the table in params.c
 * (name, type, default, help, and whether it is read at each use), read
 * through param_int()/param_str(), logged at INFO when set, and listed by
 * `chorus doctor` (param_list). A number that does not parse is reported on
 * stderr, naming the variable, and the default is used. The launcher's own
 * variables (mpirun, srun, torchrun) are read by launcher.h, not here. */
#ifndef CHORUS_PARAMS_H
#define CHORUS_PARAMS_H

#include <stddef.h>
#include <stdio.h>

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
  PARAM_TOPOLOGIES,
  PARAM_PLAN_THREADS,
  PARAM_ROOT,
  PARAM_SECRET,
  PARAM_SOURCE,
  PARAM_AGREE,
  PARAM_COUNT
} param_id_t;

typedef enum { PARAM_INT, PARAM_STR } param_type_t;

typedef struct {
  const char *name; /* "CHORUS_BUFFSIZE" */
  param_type_t type;
  const char *dflt; /* default as text; "" for none */
  const char *help;
  int live; /* 1: read at each use (set-up paths: folders, the root, thread
               counts), so a program may set it before the call that needs
               it; 0: read once per process */
} param_def_t;

/* The table, indexed by param_id_t. */
const param_def_t *param_def(param_id_t id);

/* The value: from the environment when set there, else the default. */
long param_int(param_id_t id);
const char *param_str(param_id_t id);

/* Whether the environment sets it (to anything, "" included). */
int param_is_set(param_id_t id);

/* Whether name is one of the comma-separated names of list (exact match);
 * CHORUS_DEBUG_SUBSYS, CHORUS_ALGO and CHORUS_PROTO lists use it. */
int param_in_list(const char *list, const char *name);

/* A byte count as people write it: "4096", "32K", "1.5M", "64MiB", "1G"
 * (binary units; fractions are cut to whole bytes). 0, or -1 when it is not
 * a size (negative, not a number, trailing text, 2^63 or more). */
int param_parse_bytes(const char *s, size_t *out);

/* Print every setting with its value and where it came from (`chorus doctor`). */
void param_list(FILE *f);

#endif
