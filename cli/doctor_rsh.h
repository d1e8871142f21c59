/* doctor_rsh.h -- the processes `chorus doctor` starts. Children run with a
 * deadline: their output is captured, and when the deadline passes their
 * process group (the child and whatever it started) is killed, never
 * anything else. On top of that, the starter of `chorus doctor --hosts LIST`
 * without a launcher: it runs the doctor on every host through a remote
 * shell, as mpirun's rsh agent does (doctor_rsh.c). */
#ifndef CHORUS_DOCTOR_RSH_H
#define CHORUS_DOCTOR_RSH_H

#include <stddef.h>
#include <sys/types.h>

/* One child: its output (stdout and stderr together, NUL-terminated, at
 * most cap - 1 bytes kept; the rest is read and dropped so that the child
 * never blocks on a full pipe) and how it ended. */
typedef struct {
  pid_t pid; /* 0 when it did not start */
  int fd;    /* read end of its output, -1 once closed */
  char *out; /* owned; "" when nothing came */
  size_t len, cap;
  int status;    /* exit status; 128 + signal when killed; -1 not started */
  int timed_out; /* the deadline passed and its process group was killed */
  int running;
} doctor_child_t;

/* Start argv (found on PATH when it has no '/') in a process group of its
 * own with stdin from /dev/null. env: "NAME=VALUE" entries are set and bare
 * "NAME" entries unset in the child only (NULL for none). On failure status
 * is -1 and out says why; the child must still be passed to
 * doctor_child_fini. */
void doctor_child_start(doctor_child_t *ch, char *const argv[], char *const env[], size_t cap);

/* Collect the output of children ch[0..n) until every one has exited or
 * timeout_s seconds pass; then kill the process group of each one still
 * running (timed_out = 1) and reap it. */
void doctor_children_wait(doctor_child_t *ch, int n, double timeout_s);

void doctor_child_fini(doctor_child_t *ch);

/* Run argv to completion within timeout_s, its output into out (len
 * bytes). Returns the exit status (124 when it timed out, -1 when it could
 * not start). */
int doctor_run_capture(char *const argv[], char *const env[], char *out, size_t len, double timeout_s);

/* What the starter passes on to every host's doctor. */
typedef struct {
  const char *hosts;                   /* comma-separated host names, rank order */
  const char *rsh;                     /* --rsh, else CHORUS_RSH: words split at spaces */
  const char *chorus;                  /* the chorus command on the hosts; NULL: this one's path */
  const char *topo, *sets, *tolerance; /* --topo, --set, --tolerance as given, or NULL */
} doctor_rsh_opts_t;

/* chorus doctor --hosts LIST without a launcher: probe every host through
 * the remote shell (reachable? chorus there? which address?), name each
 * one that fails with advice, then start one doctor rank per reachable
 * host with RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT/CHORUS_SECRET and every
 * CHORUS_* setting of this environment, print rank 0's report and whatever
 * the others say. Returns the exit status: 0 when nothing is wrong, 1 when
 * something is, 2 for bad arguments. */
int doctor_rsh(const doctor_rsh_opts_t *o);

#endif
