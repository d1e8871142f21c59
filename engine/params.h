/* params.h -- the engine's tunable constants and its CHORUS_* environment
 * settings. Every setting is declared once in the table in params.c (name,
 * type, default, help), read through param_get(), logged at INFO when set,
 * and listed by `chorus doctor` (param_list). The flow-control choices that
 * the simulator models too are the constants below. */
#ifndef CHORUS_PARAMS_H
#define CHORUS_PARAMS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "chorus.h"
#include "plan.h"

/* Slots per connection. PLAN_SLOT_CHUNKS chunks fit in them, so a chunk moves
 * as EXEC_NSTEPS / PLAN_SLOT_CHUNKS steps at most (NCCL's 8 steps, 2 chunks). */
#define EXEC_NSTEPS 8
#define EXEC_STEPS_PER_CHUNK (EXEC_NSTEPS / PLAN_SLOT_CHUNKS)
/* Chunk sizes are multiples of this (cache line, and the widest vector). */
#define EXEC_ALIGN 64
/* Default bytes of slots per connection: chunk = BUFFSIZE / PLAN_SLOT_CHUNKS,
 * at most EXEC_MAX_CHUNK. */
#define EXEC_DEFAULT_BUFFSIZE (4u << 20)
/* The largest chunk, whatever CHORUS_BUFFSIZE. A chunk is what a rank
 * writes into a peer's slots before that peer reads any of it (with 2 ranks
 * the ring's first op sends a whole chunk while the peer sends its own), so
 * it decides how far a step's lines travel: measured on the 2-core EPYC (1
 * MiB L2 per core), 2 MiB chunks (the 4 MiB default's half) ran 2-rank
 * allreduce of 4-8 MiB at 0.7-0.9x the speed of 512 KiB chunks, the same at
 * 1-2 MiB, not measurably faster at 64-256 MiB. Smaller chunks lose: with
 * 256 KiB (and 64 KiB steps) the copies into the peer's slots ran at half
 * speed, as a slot is rewritten while the peer's cache still holds what it
 * read there. See BENCHMARKS.md, "CPU engine". */
#define EXEC_MAX_CHUNK PLAN_MAX_CHUNK_BYTES

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

/* Record a failure message for chorus_last_error() (thread-local). */
void chorus_set_last_error(const char *msg);
/* Copy the string src into dst of len bytes (len > 0), cut to fit and
 * always terminated: snprintf(dst, len, "%s", src) without the format
 * machinery, for the per-call path (about 40 ns a call less each). */
static inline void str_copy(char *dst, size_t len, const char *src) {
  size_t n = strnlen(src, len - 1);
  memcpy(dst, src, n);
  dst[n] = 0;
}

/* Format and record; returns r so that `return err_set(r, ...)` reads well. */
chorus_result_t err_set(chorus_result_t r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Propagate a failing result to the caller's cleanup path. */
#define CHECK(call)                          \
  do {                                       \
    res = (call);                            \
    if (res != chorus_success) goto cleanup; \
  } while (0)

#endif
