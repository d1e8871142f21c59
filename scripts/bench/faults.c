/* faults.c -- the fault benchmark: inject each fault many times into a
 * 3-rank job (forked processes, 1 MiB allreduces in a loop) and count what
 * happened. A trial is survived when every surviving rank's call returns an
 * error (never success with wrong data) within CHORUS_TIMEOUT plus a margin;
 * hung when the parent had to kill a rank; wrong when a call reported
 * success with a wrong result.
 *
 *   faults [-t TRIALS] [-T TIMEOUT_S] [-f FAULT]
 *
 * Faults: kill (rank 2 SIGKILLed mid-loop), abort (rank 2 calls
 * chorus_comm_abort from a second thread mid-call), mismatch (rank 2 calls
 * with a different count), missing (rank 2 stops calling: the others time
 * out), sockets-kill (the kill fault with CHORUS_SHM_DISABLE=1),
 * sockets-reset (every established TCP socket of rank 1 aborted from outside
 * with `ss -K`: rank 1's ends fail, its peers get an RST; all three ranks
 * must fail), setup-kill (rank 2 SIGKILLed after a uniformly random delay
 * from the fork up to a little past the end of its first collective, over
 * sockets, so that it lands in the bootstrap, in connection set-up or just
 * after; the survivors' errors are counted by where they came from). */
#include <dirent.h>
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
#include "test_ranks.h" /* test_remove_shm_of, test_now */

enum { N = 3, COUNT = 1 << 18, MAX_SOCKS = 256 };
enum { F_KILL, F_ABORT, F_MISMATCH, F_MISSING, F_SOCK_KILL, F_SOCK_RESET, F_SETUP_KILL, F_COUNT, F_CALIBRATE };
static const char *const names[F_COUNT] = {"kill",         "abort",         "mismatch",  "missing",
                                           "sockets-kill", "sockets-reset", "setup-kill"};

/* Exit codes of a rank. */
enum { R_ERROR = 0, R_WRONG = 3, R_SETUP = 4, R_NOFAULT = 5 };
/* Where a rank's error came from (shared with the parent). */
enum { W_NONE, W_INIT, W_FIRST, W_LATER };

/* What the ranks tell the parent, in memory shared across the fork. */
typedef struct {
  volatile int phase[N]; /* 1: init returned, 2: first collective returned */
  volatile int where[N];
  char msg[N][256];
} shared_t;

static shared_t *shared;

typedef struct {
  chorus_comm_t *c;
} abort_arg_t;

static void *aborter(void *p) {
  usleep(200 * 1000);
  chorus_comm_abort(((abort_arg_t *)p)->c);
  return NULL;
}

static void note_error(int r, int where) {
  shared->where[r] = where;
  snprintf(shared->msg[r], sizeof shared->msg[r], "%s", chorus_last_error());
}

/* One rank: loop on allreduces until one fails; check every result. */
static int rank_main(int fault, int r, chorus_unique_id_t id) {
  chorus_comm_t *c;
  if (chorus_comm_init_rank(&c, N, id, r) != chorus_success) {
    note_error(r, W_INIT);
    return R_SETUP;
  }
  shared->phase[r] = 1;
  float *a = malloc(sizeof(float) * COUNT), *b = malloc(sizeof(float) * COUNT);
  for (size_t i = 0; i < COUNT; i++) a[i] = (float)((r + 1) * (i % 7));
  pthread_t th;
  abort_arg_t arg = {c};
  int threaded = fault == F_ABORT && r == 2 && pthread_create(&th, NULL, aborter, &arg) == 0;
  int iters = fault == F_CALIBRATE ? 1 : 100000;
  for (int it = 0; it < iters; it++) {
    size_t count = COUNT;
    if (fault == F_MISMATCH && r == 2 && it == 20) count = COUNT / 2;
    if (fault == F_MISSING && r == 2 && it == 20) {
      sleep(3600); /* never calls again; the parent ends it */
    }
    chorus_result_t res = chorus_run_allreduce(a, b, count, chorus_float32, chorus_sum, c, NULL);
    if (res != chorus_success) {
      note_error(r, it == 0 ? W_FIRST : W_LATER);
      if (threaded) pthread_join(th, NULL);
      _exit(R_ERROR); /* no destroy: a failed peer may be gone; exit frees it all */
    }
    shared->phase[r] = 2;
    for (size_t i = 0; i < count; i += 997)
      if (b[i] != (float)(6 * (i % 7))) return R_WRONG;
  }
  if (fault == F_CALIBRATE) chorus_comm_destroy(c);
  return R_NOFAULT;
}

/* The inodes of pid's sockets; returns how many. */
static int socket_inodes(pid_t pid, unsigned long *ino, int max) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/fd", (int)pid);
  DIR *d = opendir(path);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; n < max && (e = readdir(d));) {
    char fd[320], link[64];
    snprintf(fd, sizeof fd, "%s/%s", path, e->d_name);
    ssize_t len = readlink(fd, link, sizeof link - 1);
    if (len <= 0) continue;
    link[len] = 0;
    if (sscanf(link, "socket:[%lu]", &ino[n]) == 1) n++;
  }
  closedir(d);
  return n;
}

/* The local ports of pid's established TCP sockets (IPv4 and IPv6). */
static int established_ports(pid_t pid, int *ports, int max) {
  unsigned long ino[MAX_SOCKS];
  int nino = socket_inodes(pid, ino, MAX_SOCKS), n = 0;
  static const char *const tables[] = {"/proc/net/tcp", "/proc/net/tcp6"};
  for (int t = 0; t < 2; t++) {
    FILE *f = fopen(tables[t], "r");
    if (!f) continue;
    char line[512];
    while (n < max && fgets(line, sizeof line, f)) {
      char local[64];
      unsigned st;
      unsigned long inode;
      /* sl local rem st tx:rx tr:tm retrnsmt uid timeout inode */
      if (sscanf(line, " %*s %63s %*s %x %*s %*s %*s %*s %*s %lu", local, &st, &inode) != 3 || st != 1) continue;
      const char *colon = strrchr(local, ':');
      for (int i = 0; colon && i < nino; i++)
        if (ino[i] == inode) ports[n++] = (int)strtol(colon + 1, NULL, 16);
    }
    fclose(f);
  }
  return n;
}

/* Abort pid's established TCP sockets from outside with `ss -K` (a real
 * reset: the peer gets an RST). Returns how many were there before and
 * sets *left to how many are still established after. */
static int reset_sockets(pid_t pid, int *left) {
  int ports[MAX_SOCKS], n = established_ports(pid, ports, MAX_SOCKS);
  *left = 0;
  if (!n) return 0;
  char cmd[8192];
  size_t o = (size_t)snprintf(cmd, sizeof cmd, "ss -K -tnH state established '(");
  for (int i = 0; i < n && o + 32 < sizeof cmd; i++)
    o += (size_t)snprintf(cmd + o, sizeof cmd - o, "%s sport = :%d", i ? " or" : "", ports[i]);
  snprintf(cmd + o, sizeof cmd - o, " )' >/dev/null 2>&1");
  if (system(cmd) != 0) *left = n;
  else *left = established_ports(pid, ports, MAX_SOCKS);
  return n;
}

static void start_ranks(int f, pid_t *pids) {
  int idpipe[2];
  if (pipe(idpipe) != 0) exit(1);
  memset(shared, 0, sizeof *shared);
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
}

/* Seconds from the fork until rank 2's first collective returns, the most of
 * three fault-free runs (0 when one fails). *init: the same for its init. */
static double calibrate(double *init) {
  double worst = 0;
  *init = 0;
  for (int k = 0; k < 3; k++) {
    pid_t pids[N];
    double t0 = test_now(), ti = 0, tf = 0;
    start_ranks(F_CALIBRATE, pids);
    while (!tf && test_now() < t0 + 30) {
      if (!ti && shared->phase[2] >= 1) ti = test_now() - t0;
      if (shared->phase[2] >= 2) tf = test_now() - t0;
      usleep(200);
    }
    int ok = tf > 0;
    for (int r = 0; r < N; r++) {
      int st;
      if (!tf) kill(pids[r], SIGKILL);
      waitpid(pids[r], &st, 0);
      ok &= WIFEXITED(st) && WEXITSTATUS(st) == R_NOFAULT;
    }
    if (!ok) return 0;
    if (tf > worst) worst = tf;
    if (ti > *init) *init = ti;
  }
  return worst;
}

int main(int argc, char **argv) {
  int trials = 10, timeout = 3;
  const char *only = NULL; /* -f: one fault alone */
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-t")) trials = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-T")) timeout = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-f")) only = argv[i + 1];
  }
  if (trials < 1 || timeout < 1) {
    fprintf(stderr, "usage: faults [-t TRIALS] [-T TIMEOUT_S] [-f FAULT]\n");
    return 2;
  }
  shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (shared == MAP_FAILED) return 1;
  char tv[16];
  snprintf(tv, sizeof tv, "%d", timeout);
  setenv("CHORUS_TIMEOUT", tv, 1);
  setenv("CHORUS_DEBUG", "NONE", 0);
  srand((unsigned)time(NULL) ^ (unsigned)getpid());
  printf("# chorus fault benchmark: %d trials per fault, 3 ranks, CHORUS_TIMEOUT %d s\n", trials, timeout);
  printf("%-14s %9s %9s %6s %6s %14s\n", "fault", "injected", "survived", "hung", "wrong", "worst time (s)");
  int bad = 0;
  char notes[F_COUNT][512] = {{0}};
  for (int f = 0; f < F_COUNT; f++) {
    if (f == F_SOCK_KILL) setenv("CHORUS_SHM_DISABLE", "1", 1);
    if (only && strcmp(only, names[f])) continue;
    double t_first = 0, t_init = 0;
    if (f == F_SETUP_KILL && (t_first = calibrate(&t_init)) <= 0) {
      printf("%-14s %9s  (fault-free calibration runs failed)\n", names[f], "-");
      bad = 1;
      continue;
    }
    int injected = 0, survived = 0, hung = 0, wrong = 0, reset_failed = 0;
    int where[4] = {0}, victim_up = 0, unnamed = 0;
    double worst = 0;
    for (int t = 0; t < trials; t++) {
      pid_t pids[N];
      double t0 = test_now();
      start_ranks(f, pids);
      int reset_left = 0;
      if (f == F_KILL || f == F_SOCK_KILL) {
        usleep(300 * 1000);
        kill(pids[2], SIGKILL);
      } else if (f == F_SETUP_KILL) {
        /* Even trials in the bootstrap (chorus_comm_init_rank itself: its
         * connections are made on first use), odd ones in the connection
         * set-up of the first collective or just after it. */
        double u = (double)rand() / RAND_MAX;
        double delay = t % 2 == 0 ? 1.2 * t_init * u : t_init + (1.25 * t_first - t_init) * u;
        while (test_now() < t0 + delay) usleep(100);
        kill(pids[2], SIGKILL);
        victim_up += shared->phase[2] >= 1;
      } else if (f == F_SOCK_RESET) {
        usleep(300 * 1000);
        if (!reset_sockets(pids[1], &reset_left) || reset_left) reset_failed++;
      }
      int victim_of = f == F_KILL || f == F_SOCK_KILL || f == F_MISSING || f == F_SETUP_KILL;
      /* Wait for the ranks that must fail; past the deadline they hung. */
      double deadline = t0 + timeout + 6.0, last = t0;
      int st[N] = {0}, done[N] = {0}, left = N, ok = !reset_left;
      while (left && test_now() < deadline) {
        for (int r = 0; r < N; r++) {
          if (done[r]) continue;
          if (f == F_MISSING && r == 2) { /* the missing rank never returns by itself */
            done[r] = 1, left--;
            continue;
          }
          if (waitpid(pids[r], &st[r], WNOHANG) == pids[r]) done[r] = 1, left--, last = test_now();
        }
        usleep(10 * 1000);
      }
      for (int r = 0; r < N; r++) {
        int victim = r == 2 && victim_of;
        if (!done[r] || (victim && f == F_MISSING)) {
          kill(pids[r], SIGKILL);
          waitpid(pids[r], &st[r], 0);
          if (!victim) hung++, ok = 0;
          continue;
        }
        if (victim) continue;
        int code = WIFEXITED(st[r]) ? WEXITSTATUS(st[r]) : -1;
        if (code == R_WRONG) wrong++, ok = 0;
        else if (code == R_SETUP && f == F_SETUP_KILL) where[W_INIT]++;
        else if (code != R_ERROR) ok = 0;
        else if (f == F_SETUP_KILL) where[shared->where[r]]++;
        if (f == F_SETUP_KILL && (code == R_ERROR || code == R_SETUP) && !strstr(shared->msg[r], "rank 2")) {
          unnamed++;
          fprintf(stderr, "setup-kill: rank %d's error does not name rank 2: %s\n", r, shared->msg[r]);
        }
      }
      for (int r = 0; r < N; r++) test_remove_shm_of(pids[r]); /* all reaped: what killed ranks left */
      if (last - t0 > worst) worst = last - t0;
      injected++;
      survived += ok;
    }
    if (f == F_SOCK_RESET && reset_failed)
      snprintf(notes[f], sizeof notes[f], "# sockets-reset: in %d trials `ss -K` did not reset rank 1's sockets",
               reset_failed);
    if (f == F_SETUP_KILL)
      snprintf(notes[f], sizeof notes[f],
               "# setup-kill: rank 2 killed %.0f..%.0f ms after the fork (its init ends at %.0f ms, its first "
               "collective at %.0f ms); killed after its init returned in %d of %d trials; survivors' errors from "
               "init %d, from the first collective %d, later %d; errors not naming rank 2: %d",
               0.0, 1250 * t_first, 1000 * t_init, 1000 * t_first, victim_up, trials, where[W_INIT], where[W_FIRST],
               where[W_LATER], unnamed);
    printf("%-14s %9d %9d %6d %6d %14.2f\n", names[f], injected, survived, hung, wrong, worst);
    fflush(stdout);
    bad |= survived != trials || hung || wrong;
  }
  for (int f = 0; f < F_COUNT; f++)
    if (notes[f][0]) printf("%s\n", notes[f]);
  printf("# survived: every surviving rank got an error, in time; hung and wrong must be 0\n");
  return bad;
}
