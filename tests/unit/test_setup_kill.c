/* test_setup_kill.c -- a rank lost while the communicator is being set up.
 * Three forked ranks; rank 2 dies (SIGKILL) before it joins the bootstrap
 * (the others wait inside chorus_comm_init_rank), right after its own init
 * returns (the others then make the first collective's connections to a
 * dead rank), or a few milliseconds into its first collective (inside the
 * connection set-up, or just after it), over sockets and over shared memory.
 * Every survivor's init or collective must fail within CHORUS_TIMEOUT plus a
 * margin with an error naming rank 2 (when it waited on the other survivor,
 * which failed on rank 2 first, through that one's cause); the parent SIGKILLs whatever outlives
 * the deadline and counts it as a hang. Hang reports are allowed. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chorus.h"
#include "test.h"
#include "test_ranks.h"

enum { N = 3, COUNT = 1 << 16, TIMEOUT_S = 3 };
/* The ways rank 2 dies. */
enum { DIE_BEFORE_INIT, DIE_AFTER_INIT, DIE_IN_FIRST_CALL };
/* Where a survivor's error came from. */
enum { W_NONE, W_INIT, W_CALL };

typedef struct {
  volatile int where[N], call[N];
  char msg[N][512];
} shared_t;

static shared_t *shared;

static void *killer(void *arg) {
  usleep((useconds_t)(long)arg);
  raise(SIGKILL);
  return NULL;
}

static void fail_here(int r, int where, int call) {
  shared->where[r] = where;
  shared->call[r] = call;
  snprintf(shared->msg[r], sizeof shared->msg[r], "%s", chorus_last_error());
  _exit(0); /* no destroy: the lost peer is gone; exit frees it all */
}

static void rank_main(int r, chorus_unique_id_t id, int how, long delay_us) {
  if (r == 2 && how == DIE_BEFORE_INIT) {
    usleep(500 * 1000); /* the others are inside init by now, waiting for this rank */
    raise(SIGKILL);
  }
  chorus_comm_t *c;
  if (chorus_comm_init_rank(&c, N, id, r) != chorus_success) fail_here(r, W_INIT, 0);
  if (r == 2 && how == DIE_AFTER_INIT) raise(SIGKILL);
  pthread_t th;
  if (r == 2 && how == DIE_IN_FIRST_CALL && pthread_create(&th, NULL, killer, (void *)delay_us) != 0) _exit(9);
  float *a = calloc(COUNT, sizeof *a), *b = calloc(COUNT, sizeof *b);
  if (!a || !b) _exit(9);
  /* Bounded: the loop only gives a late kill collectives to land in. */
  for (int it = 0; it < 2000; it++)
    if (chorus_run_allreduce(a, b, COUNT, chorus_float32, chorus_sum, c, NULL) != chorus_success)
      fail_here(r, W_CALL, it + 1);
  _exit(r == 2 ? 8 : 7); /* rank 2 outlived its kill, or nobody noticed it */
}

/* One trial; returns the failures. */
static int trial(const char *label, int sockets, int how, long delay_us) {
  if (!shared) {
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) return shared = NULL, 1;
    char tv[16];
    snprintf(tv, sizeof tv, "%d", TIMEOUT_S);
    setenv("CHORUS_TIMEOUT", tv, 1);
  }
  setenv("CHORUS_SHM_DISABLE", sockets ? "1" : "0", 1);
  memset(shared, 0, sizeof *shared);
  pid_t pids[N];
  chorus_unique_id_t id;
  int me = test_fork_ranks(N, pids, &id, 9);
  if (me == -2) return 1;
  if (me >= 0) rank_main(me, id, how, delay_us); /* exits */
  /* Bootstrap waits: the root's deadline plus the ranks' grace for its verdict. */
  double t0 = test_now(), deadline = t0 + TIMEOUT_S + 5.0, end[N] = {0};
  int st[N] = {0}, left = N, failures = 0;
  while (left && test_now() < deadline) {
    for (int r = 0; r < N; r++)
      if (!end[r] && waitpid(pids[r], &st[r], WNOHANG) == pids[r]) end[r] = test_now(), left--;
    usleep(5000);
  }
  for (int r = 0; r < N; r++) {
    if (end[r]) continue;
    kill(pids[r], SIGKILL);
    waitpid(pids[r], &st[r], 0);
    fprintf(stderr, "  %s: rank %d still ran %.0f s after the start (hang)\n", label, r, deadline - t0);
    failures++;
  }
  for (int r = 0; r < N; r++) test_remove_shm_of(pids[r]);
  if (!WIFSIGNALED(st[2]) || WTERMSIG(st[2]) != SIGKILL) {
    fprintf(stderr, "  %s: rank 2 was not killed (status %#x)\n", label, st[2]);
    failures++;
  }
  for (int r = 0; r < 2; r++) {
    if (!end[r]) continue;
    int code = WIFEXITED(st[r]) ? WEXITSTATUS(st[r]) : -1;
    const char *where = shared->where[r] == W_INIT ? "init" : "collective";
    printf("  %s: rank %d failed in %s %d after %.2f s: %s\n", label, r, where, shared->call[r], end[r] - t0,
           shared->msg[r]);
    if (code != 0 || shared->where[r] == W_NONE) {
      fprintf(stderr, "  %s: rank %d ended without an error (exit %d)\n", label, r, code);
      failures++;
    } else if (!strstr(shared->msg[r], "rank 2")) {
      /* Also when it waited on the other survivor, which failed on rank 2
       * first: that one's cause travels to it over the bootstrap. */
      fprintf(stderr, "  %s: rank %d's error does not name rank 2\n", label, r);
      failures++;
    }
    if (how == DIE_BEFORE_INIT && shared->where[r] != W_INIT) {
      fprintf(stderr, "  %s: rank %d's init succeeded without rank 2\n", label, r);
      failures++;
    }
  }
  return failures;
}

static void lost_before_joining_fails_every_init_naming_it(void) {
  CHECK_EQ_INT(trial("sockets, before init", 1, DIE_BEFORE_INIT, 0), 0);
}

static void lost_right_after_init_fails_the_first_collective_naming_it(void) {
  CHECK_EQ_INT(trial("sockets, after init", 1, DIE_AFTER_INIT, 0), 0);
  CHECK_EQ_INT(trial("shm, after init", 0, DIE_AFTER_INIT, 0), 0);
}

static void lost_during_connection_setup_fails_every_survivor_naming_it(void) {
  static const long delays_us[] = {1000, 10000, 40000};
  char label[64];
  for (int i = 0; i < 3; i++) {
    snprintf(label, sizeof label, "sockets, %ld ms into the first call", delays_us[i] / 1000);
    CHECK_EQ_INT(trial(label, 1, DIE_IN_FIRST_CALL, delays_us[i]), 0);
  }
  CHECK_EQ_INT(trial("shm, 5 ms into the first call", 0, DIE_IN_FIRST_CALL, 5000), 0);
}

TEST_MAIN(TEST(lost_before_joining_fails_every_init_naming_it),
          TEST(lost_right_after_init_fails_the_first_collective_naming_it),
          TEST(lost_during_connection_setup_fails_every_survivor_naming_it))
