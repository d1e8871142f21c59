/* ring.c -- the slow path of waiting on a slot ring: spin, then futex, and
 * the checks that turn a dead or failed peer into an error, never a hang. */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "transport.h"
#include "params.h"

double tr_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Shared futexes (no FUTEX_PRIVATE_FLAG): the word may be in a segment
 * mapped by another process. */
static void futex_wait(uint32_t *word, uint32_t val, long ns) {
  struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
  syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, NULL, 0);
}

void ring_wake(uint32_t *word) { syscall(SYS_futex, word, FUTEX_WAKE, 0x7fffffff, NULL, NULL, 0); }

void ring_abort(ring_ctrl_t *c, uint32_t why) {
  uint32_t none = 0;
  __atomic_compare_exchange_n(&c->abort, &none, why ? why : RING_ABORT_FAILED, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  ring_wake(&c->head);
  ring_wake(&c->tail);
}

/* Gone: no such process, or a zombie not yet reaped (its parent may be
 * the very rank that waits on it). */
static int peer_gone(int pid) {
  if (kill(pid, 0) != 0) return errno == ESRCH;
  char path[64], buf[256];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  const char *p = strrchr(buf, ')');
  return p && (p[2] == 'Z' || p[2] == 'X');
}

int ring_peer_gone(int pid) { return pid > 0 && peer_gone(pid); }

/* The stop flag is set by another thread (abort, a failure, sock_free). */
static int ring_stopped(const ring_t *r) { return r->stop && __atomic_load_n(r->stop, __ATOMIC_ACQUIRE); }

static long spin_override = -1;

/* Set by every communicator as it forms, read by every waiter: atomic. */
void ring_set_spin(long polls) { __atomic_store_n(&spin_override, polls, __ATOMIC_RELAXED); }

/* Between spinning and sleeping, a waiter yields its core this many times.
 * Where a core is free, sched_yield returns at once and this is a longer
 * spin; where other tasks wait for the core (more ranks than cores, or other
 * people's jobs), they run, the peer among them, and the waiter needs no
 * futex wake-up when the step arrives. Measured on 2 cores (in one run each,
 * interleaved): 4 ranks 8 B allreduce 28-36 us with spin-then-sleep, 16-21
 * us with 100 yields; 2 ranks under others' load, 8 B 19 -> 15 us and
 * 1-2 MiB 1.05-1.25x; the spin itself is short (CHORUS_SPIN 400 polls,
 * about 11 us) because a waiter that spins long under load burns the time
 * its peer needed: at 4000 polls 2 ranks of 1-2 MiB ran 1.2-4x slower
 * under load and no faster when idle. */
#define RING_YIELDS 100

/* A socket consumer's polls (a recv and a yield each) before it sleeps in
 * the socket. Measured over 2 namespaces on 2 loaded cores, 8 B-8 KiB
 * allreduce (2026-12-03, in one run): polls then sleeping in the socket
 * 31-52 us; polls only, as many as CHORUS_SPIN, 38-49 us; sleeping at once
 * 37-57 us; polls without yields then sleeping 64-107 us (the peer that
 * shares the core cannot send). The sleep in the socket is one wake-up, by
 * the data itself; the futex sleep waits for a proxy. */
#define RING_POLL_SPINS 64

ring_wait_t ring_wait_slow(ring_t *r, uint32_t *word, uint32_t *sleepers, uint32_t target, double timeout_s) {
  long spin = __atomic_load_n(&spin_override, __ATOMIC_RELAXED);
  if (spin < 0) spin = param_int(PARAM_SPIN);
  /* A consumer of a socket ring reads the socket itself while it waits
   * (the hook): RING_POLL_SPINS polls, each followed by a yield, then it
   * sleeps in the socket; before it sleeps on the futex it hands the socket
   * back to the proxy. A hook that does not take part (large steps: the
   * proxy reads) leaves the plain spin. */
  int poll = r->hook && word == &r->ctrl->head;
  for (long i = 0; i < spin; i++) {
    int h = poll ? r->hook(r, i < RING_POLL_SPINS ? RING_HOOK_POLL : RING_HOOK_BLOCK) : -1;
    if (ring_passed(__atomic_load_n(word, __ATOMIC_ACQUIRE), target)) return RING_OK;
    if (__atomic_load_n(&r->ctrl->abort, __ATOMIC_RELAXED)) return RING_ABORTED;
    if (ring_stopped(r)) return RING_STOPPED;
    if (h < 0) __builtin_ia32_pause();
    else if (h == 0) sched_yield();
  }
  for (int i = 0, n = spin > 0 ? RING_YIELDS : 0; i < n; i++) { /* CHORUS_SPIN=0: sleep at once */
    int h = poll ? r->hook(r, RING_HOOK_BLOCK) : -1;
    if (ring_passed(__atomic_load_n(word, __ATOMIC_ACQUIRE), target)) return RING_OK;
    if (__atomic_load_n(&r->ctrl->abort, __ATOMIC_RELAXED)) return RING_ABORTED;
    if (ring_stopped(r)) return RING_STOPPED;
    if (h <= 0) sched_yield();
  }
  if (poll) {
    r->hook(r, RING_HOOK_IDLE);
    if (ring_passed(__atomic_load_n(word, __ATOMIC_ACQUIRE), target)) return RING_OK;
  }
  double deadline = timeout_s > 0 ? tr_now() + timeout_s : 0;
  for (;;) {
    __atomic_add_fetch(sleepers, 1, __ATOMIC_SEQ_CST);
    uint32_t v = __atomic_load_n(word, __ATOMIC_SEQ_CST);
    if (!ring_passed(v, target) && !__atomic_load_n(&r->ctrl->abort, __ATOMIC_SEQ_CST) && !ring_stopped(r))
      futex_wait(word, v, 20 * 1000 * 1000);
    __atomic_sub_fetch(sleepers, 1, __ATOMIC_SEQ_CST);
    if (ring_passed(__atomic_load_n(word, __ATOMIC_ACQUIRE), target)) return RING_OK;
    if (__atomic_load_n(&r->ctrl->abort, __ATOMIC_RELAXED)) return RING_ABORTED;
    if (ring_stopped(r)) return RING_STOPPED;
    if (ring_peer_gone(r->peer_pid)) return RING_PEER_DEAD;
    if (deadline && tr_now() > deadline) return RING_TIMEOUT;
  }
}
