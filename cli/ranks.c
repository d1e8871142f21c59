/* ranks.c -- forked local ranks (ranks.h). */
#include "ranks.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child of rank r: the unique id, made by rank 0 and read from the
 * pipe by the others. Exits the child when it cannot. */
static chorus_unique_id_t rank_id(const char *cmd, int nranks, int r, const int idpipe[2]) {
  chorus_unique_id_t id;
  if (r == 0) {
    close(idpipe[0]);
    chorus_result_t res = chorus_get_unique_id(&id);
    if (res != chorus_success) {
      fprintf(stderr, "%s: %s: %s\n", cmd, chorus_result_string(res), chorus_last_error());
      _exit(1);
    }
    for (int q = 1; q < nranks; q++)
      if (write(idpipe[1], &id, sizeof id) != (ssize_t)sizeof id) _exit(1);
    close(idpipe[1]);
  } else {
    close(idpipe[1]);
    /* Writes of one id are atomic (below PIPE_BUF): each rank reads one. */
    if (read(idpipe[0], &id, sizeof id) != (ssize_t)sizeof id) {
      fprintf(stderr, "%s: rank %d: rank 0 exited before handing out the unique id\n", cmd, r);
      _exit(1);
    }
    close(idpipe[0]);
  }
  return id;
}

/* The body of the child of rank r; never returns. */
static void rank_child(const char *cmd, int nranks, int r, const int idpipe[2], ranks_main_fn fn, void *arg) {
  chorus_unique_id_t id = rank_id(cmd, nranks, r, idpipe);
  chorus_comm_t *comm;
  chorus_result_t res = chorus_comm_init_rank(&comm, nranks, id, r);
  if (res != chorus_success) {
    fprintf(stderr, "%s: rank %d: %s: %s\n", cmd, r, chorus_result_string(res), chorus_last_error());
    _exit(1);
  }
  int st = fn(comm, r, arg);
  chorus_comm_destroy(comm);
  fflush(stdout);
  _exit(st);
}

int ranks_fork(const char *cmd, int nranks, ranks_main_fn fn, void *arg) {
  int idpipe[2];
  if (pipe(idpipe) != 0) {
    fprintf(stderr, "%s: pipe: %s\n", cmd, strerror(errno));
    return 1;
  }
  fflush(stdout);
  pid_t *pids = calloc((size_t)nranks, sizeof *pids);
  if (!pids) {
    fprintf(stderr, "%s: out of memory\n", cmd);
    close(idpipe[0]), close(idpipe[1]);
    return 1;
  }
  for (int r = 0; r < nranks; r++) {
    pids[r] = fork();
    if (pids[r] < 0) {
      fprintf(stderr, "%s: fork: %s\n", cmd, strerror(errno));
      for (int q = 0; q < r; q++) kill(pids[q], SIGTERM);
      for (int q = 0; q < r; q++) waitpid(pids[q], NULL, 0);
      close(idpipe[0]), close(idpipe[1]);
      free(pids);
      return 1;
    }
    if (pids[r] == 0) rank_child(cmd, nranks, r, idpipe, fn, arg);
  }
  close(idpipe[0]);
  close(idpipe[1]);
  int st = 0;
  for (int r = 0; r < nranks; r++) {
    int ws;
    if (waitpid(pids[r], &ws, 0) < 0) {
      st = 1;
      continue;
    }
    if (WIFSIGNALED(ws)) {
      fprintf(stderr, "%s: rank %d was killed by signal %d\n", cmd, r, WTERMSIG(ws));
      st = 1;
    } else if (WEXITSTATUS(ws) && !st) {
      st = WEXITSTATUS(ws);
    }
  }
  free(pids);
  return st;
}
