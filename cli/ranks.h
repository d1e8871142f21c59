/* ranks.h -- local ranks for a subcommand (`-n N`): N processes forked
 * before any thread exists, rank 0 handing the unique id to the others
 * through a pipe, each making its communicator and running the
 * subcommand's rank function. Shared by `chorus perf` and `chorus
 * calibrate`. */
#ifndef CHORUS_CLI_RANKS_H
#define CHORUS_CLI_RANKS_H

#include "chorus.h"

/* What a forked rank runs once its communicator is made; returns its exit
 * status. The communicator is destroyed after it returns. */
typedef int (*ranks_main_fn)(chorus_comm_t *comm, int rank, void *arg);

/* Fork nranks ranks of `cmd` ("chorus perf", for messages), each running
 * fn(comm, rank, arg), and wait for all. Returns 0, the first nonzero exit
 * status, or 1 when a rank was killed or could not start (each named on
 * stderr). Fork happens before any thread exists: the bootstrap root is a
 * thread, and a child forked while it held an allocator lock would hang. If
 * rank 0 dies before it hands out the id, the others read end-of-file and
 * stop. */
int ranks_fork(const char *cmd, int nranks, ranks_main_fn fn, void *arg);

#endif
