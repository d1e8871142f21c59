/* faults.c -- the fault benchmark: inject each fault many times into a
 * 3-rank job (forked processes, 1 MiB allreduces in a loop) and count what
 * happened. A trial is survived when every surviving rank's call returns an
 * error (never success with wrong data) within CHORUS_TIMEOUT plus a margin;
 * hung when the parent had to kill a rank; wrong when a call reported
 * success with a wrong result.
 *
 *   faults [-t TRIALS] [-T TIMEOUT_S]
 *
 * Faults: kill (rank 2 SIGKILLed mid-loop), abort (rank 2 calls
 * chorus_comm_abort from a second thread mid-call), mismatch (rank 2 calls
 * with a different count), missing (rank 2 stops calling: the others time
 * out), sockets-kill (the kill fault with CHORUS_SHM_DISABLE=1). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chorus.h"

enum { N = 3, COUNT = 1 << 18 };
enum { F_KILL, F_ABORT, F_MISMATCH, F_MISSING, F_SOCK_KILL, F_COUNT };
static const char *const names[F_COUNT] = {"kill", "abort", "mismatch", "missing", "sockets-kill"};

/* Exit codes of a rank. */
enum { R_ERROR = 0, R_WRONG = 3, R_SETUP = 4, R_NOFAULT = 5 };

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
  chorus_comm_t *c;
} abort_arg_t;

static void *aborter(void *p) {
  usleep(200 * 1000);
  chorus_comm_abort(((abort_arg_t *)p)->c);
  return NULL;
}

/* One rank: loop on allreduces until one fails; check every result. */
static int rank_main(int fault, int r, chorus_unique_id_t id) {
  chorus_comm_t *c;
  if (chorus_comm_init_rank(&c, N, id, r) != chorus_success) return R_SETUP;
  float *a = malloc(sizeof(float) * COUNT), *b = malloc(sizeof(float) * COUNT);
  for (size_t i = 0; i < COUNT; i++) a[i] = (float)((r + 1) * (i % 7));
  pthread_t th;
  abort_arg_t arg = {c};
  int threaded = fault == F_ABORT && r == 2 && pthread_create(&th, NULL, aborter, &arg) == 0;
  for (int it = 0; it < 100000; it++) {
    size_t count = COUNT;
    if (fault == F_MISMATCH && r == 2 && it == 20) count = COUNT / 2;
    if (fault == F_MISSING && r == 2 && it == 20) {
      sleep(3600); /* never calls again; the parent ends it */
    }
    chorus_result_t res = chorus_run_allreduce(a, b, count, chorus_float32, chorus_sum, c, NULL);
    if (res != chorus_success) {
      if (threaded) pthread_join(th, NULL);
      _exit(R_ERROR); /* no destroy: a failed peer may be gone; exit frees it all */
    }
    for (size_t i = 0; i < count; i += 997)
      if (b[i] != (float)(6 * (i % 7))) return R_WRONG;
  }
  return R_NOFAULT;
}

int main(int argc, char **argv) {
  int trials = 10, timeout = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-t")) trials = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-T")) timeout = atoi(argv[i + 1]);
  }
  if (trials < 1 || timeout < 1) {
    fprintf(stderr, "usage: faults [-t TRIALS] [-T TIMEOUT_S]\n");
    return 2;
  }
  char tv[16];
  snprintf(tv, sizeof tv, "%d", timeout);
  setenv("CHORUS_TIMEOUT", tv, 1);
  setenv("CHORUS_DEBUG", "NONE", 0);
  printf("# chorus fault benchmark: %d trials per fault, 3 ranks, CHORUS_TIMEOUT %d s\n", trials, timeout);
  printf("%-14s %9s %9s %6s %6s %14s\n", "fault", "injected", "survived", "hung", "wrong", "worst time (s)");
  int bad = 0;
  for (int f = 0; f < F_COUNT; f++) {
    if (f == F_SOCK_KILL) setenv("CHORUS_SHM_DISABLE", "1", 1);
    int survived = 0, hung = 0, wrong = 0;
    double worst = 0;
    for (int t = 0; t < trials; t++) {
      int idpipe[2];
      if (pipe(idpipe) != 0) return 1;
      pid_t pids[N];
      for (int r = 0; r < N; r++) {
        pids[r] = fork();
        if (pids[r] == 0) {
          chorus_unique_id_t id;
          if (r == 0) {
            if (chorus_get_unique_id(&id) != chorus_success) _exit(R_SETUP);
            for (int q = 1; q < N; q++)
              if (write(idpipe[1], &id, sizeof id) != (ssize_t)sizeof id) _exit(R_SETUP);
          } else if (read(idpipe[0], &id, sizeof id) != (ssize_t)sizeof id) {
            _exit(R_SETUP);
          }
          close(idpipe[0]);
          close(idpipe[1]);
          _exit(rank_main(f, r, id));
        }
      }
      close(idpipe[0]);
      close(idpipe[1]);
      double t0 = now();
      if (f == F_KILL || f == F_SOCK_KILL) {
        usleep(300 * 1000);
        kill(pids[2], SIGKILL);
      }
      /* Wait for the ranks that must fail; past the deadline they hung. */
      double deadline = t0 + timeout + 6.0, last = t0;
      int st[N] = {0}, done[N] = {0}, left = N, ok = 1;
      while (left && now() < deadline) {
        for (int r = 0; r < N; r++) {
          if (done[r]) continue;
          if (f == F_MISSING && r == 2) { /* the missing rank never returns by itself */
            done[r] = 1, left--;
            continue;
          }
          if (waitpid(pids[r], &st[r], WNOHANG) == pids[r]) done[r] = 1, left--, last = now();
        }
        usleep(10 * 1000);
      }
      for (int r = 0; r < N; r++) {
        int victim = r == 2 && (f == F_KILL || f == F_SOCK_KILL || f == F_MISSING);
        if (!done[r] || (victim && f == F_MISSING)) {
          kill(pids[r], SIGKILL);
          waitpid(pids[r], &st[r], 0);
          if (!victim) hung++, ok = 0;
          continue;
        }
        if (victim) continue;
        int code = WIFEXITED(st[r]) ? WEXITSTATUS(st[r]) : -1;
        if (code == R_WRONG) wrong++, ok = 0;
        else if (code != R_ERROR) ok = 0;
      }
      if (last - t0 > worst) worst = last - t0;
      survived += ok;
    }
    printf("%-14s %9d %9d %6d %6d %14.2f\n", names[f], trials, survived, hung, wrong, worst);
    fflush(stdout);
    bad |= survived != trials || hung || wrong;
  }
  printf("# survived: every surviving rank got an error, in time; hung and wrong must be 0\n");
  return bad;
}
