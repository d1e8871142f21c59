/* log.h -- Chorus's log. CHORUS_DEBUG=WARN|INFO|TRACE (WARN by default);
 * CHORUS_DEBUG_SUBSYS a comma list of subsystems, ^ first to exclude them
 * instead (WARN is never filtered); CHORUS_DEBUG_FILE a file (%h: host, %p:
 * pid) instead of stderr. A line is
 *   "host:pid rank R [seconds.micro] chorus LEVEL SUBSYS message";
 * the rank is the calling thread's (log_set_rank), "-" outside a rank. The
 * first line of a process at INFO names the version, the loaded library,
 * its build options and the versions of what it was built with, then every
 * CHORUS_* setting the environment sets (these whatever the filter). Not for
 * hot paths: a disabled level costs one call and two compares. */
#ifndef CHORUS_LOG_H
#define CHORUS_LOG_H

typedef enum { LOG_NONE = 0, LOG_WARN, LOG_INFO, LOG_TRACE } log_level_t;

int log_enabled(log_level_t lvl, const char *subsys);
void log_msg(log_level_t lvl, const char *subsys, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The rank this thread works for, shown in its log lines (-1: none). */
void log_set_rank(int rank);

#define LOG_WARN_(sub, ...) log_msg(LOG_WARN, sub, __VA_ARGS__)
#define LOG_INFO_(sub, ...) \
  do { if (log_enabled(LOG_INFO, sub)) log_msg(LOG_INFO, sub, __VA_ARGS__); } while (0)
#define LOG_TRACE_(sub, ...) \
  do { if (log_enabled(LOG_TRACE, sub)) log_msg(LOG_TRACE, sub, __VA_ARGS__); } while (0)

/* The subsystems that log, for CHORUS_DEBUG_SUBSYS: INIT (communicators,
 * settings), BOOT (bootstrap), NET (interface choice), SHM and SOCK
 * (connections), PLAN (plans made), EXEC (every call, at TRACE), TUNE (the
 * tuner's choices), COLL (mismatched calls). */
#define LOG_SUBSYSTEMS "INIT,BOOT,NET,SHM,SOCK,PLAN,EXEC,TUNE,COLL"

#endif
