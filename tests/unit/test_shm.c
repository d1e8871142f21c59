/* test_shm.c -- the shared-memory transport and the slot ring between two
 * processes: steps arrive whole and in order with their meta, a full ring
 * blocks the sender until the receiver releases, waits sleep on the futex and
 * still wake, an abort wakes a waiter, and a dead peer ends a wait. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bootstrap.h"
#include "chorus.h"
#include "comm.h"
#include "test.h"
#include "transport/transport.h"

/* The parent creates the receiving end; a forked child maps it (the
 * descriptor is inherited through fork) and runs `sender`. */
static int make_pair(tr_conn_t *rc, pid_t *child, void (*sender)(tr_conn_t *), size_t step) {
  static volatile int stop = 0;
  tr_args_t a = {.rank = 0, .peer = 1, .channel = 0, .step_bytes = step, .stop = &stop};
  char desc[TR_DESC_MAX];
  size_t len = 0;
  if (shm_transport.recv_setup(rc, &a, desc, &len) != chorus_success) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    tr_conn_t sc = {.peer = 0, .is_send = 1};
    tr_args_t b = a;
    b.rank = 1, b.peer = 0;
    if (shm_transport.send_connect(&sc, &b, desc, len) != chorus_success) _exit(3);
    sender(&sc);
    _exit(0);
  }
  *child = pid;
  return pid > 0 ? 0 : -1;
}

#define NSTEPS_SENT 1000

static void send_many(tr_conn_t *sc) {
  for (uint32_t s = 0; s < NSTEPS_SENT; s++) {
    void *slot;
    if (ring_wait_room(&sc->ring, &slot, 10) != RING_OK) _exit(4);
    size_t n = 64 + (s * 64) % 4096;
    memset(slot, (int)(s & 0xff), n);
    ring_post(&sc->ring, (uint32_t)n | (s + 1 < NSTEPS_SENT ? RING_MORE : 0), 0xabc00000u + s);
    if (s % 97 == 0) usleep(2000); /* let the receiver fall asleep on the futex */
  }
}

static void steps_arrive_in_order_with_meta(void) {
  tr_conn_t rc = {.peer = 1};
  pid_t child;
  CHECK_TRUE(make_pair(&rc, &child, send_many, 8192) == 0);
  int bad = 0;
  for (uint32_t s = 0; s < NSTEPS_SENT; s++) {
    void *slot;
    uint64_t meta;
    if (ring_wait_data(&rc.ring, &slot, &meta, 10) != RING_OK) {
      bad++;
      break;
    }
    size_t n = 64 + (s * 64) % 4096;
    if ((uint32_t)(meta >> 32) != 0xabc00000u + s || ((uint32_t)meta & ~RING_MORE) != n) bad++;
    if (((uint32_t)meta & RING_MORE) != (s + 1 < NSTEPS_SENT ? RING_MORE : 0)) bad++;
    const unsigned char *p = slot;
    for (size_t i = 0; i < n; i++)
      if (p[i] != (s & 0xff)) {
        bad++;
        break;
      }
    if (s % 101 == 0) usleep(1000); /* and let the sender find the ring full */
    ring_release(&rc.ring);
  }
  CHECK_EQ_INT(bad, 0);
  int st;
  waitpid(child, &st, 0);
  CHECK_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  shm_transport.free(&rc);
}

static void send_nothing_then_die(tr_conn_t *sc) { usleep(100000); }

static void dead_sender_ends_the_wait(void) {
  tr_conn_t rc = {.peer = 1};
  pid_t child;
  CHECK_TRUE(make_pair(&rc, &child, send_nothing_then_die, 4096) == 0);
  rc.ring.peer_pid = child;
  double t0 = tr_now();
  void *slot;
  uint64_t meta;
  ring_wait_t w = ring_wait_data(&rc.ring, &slot, &meta, 20);
  /* The child is a zombie until reaped: that counts as dead. */
  CHECK_EQ_INT(w, RING_PEER_DEAD);
  int st;
  waitpid(child, &st, 0);
  CHECK_TRUE(tr_now() - t0 < 10);
  shm_transport.free(&rc);
}

static void abort_wakes_a_sleeping_waiter(void) {
  tr_conn_t rc = {.peer = 1};
  pid_t child;
  CHECK_TRUE(make_pair(&rc, &child, send_nothing_then_die, 4096) == 0);
  pid_t k = fork();
  if (k == 0) {
    usleep(200000);
    ring_abort(rc.ring.ctrl, 1); /* the segment is shared: the abort crosses processes */
    _exit(0);
  }
  double t0 = tr_now();
  void *slot;
  uint64_t meta;
  ring_wait_t w = ring_wait_data(&rc.ring, &slot, &meta, 20);
  CHECK_EQ_INT(w, RING_ABORTED);
  CHECK_TRUE(tr_now() - t0 < 5);
  int st;
  waitpid(k, &st, 0);
  waitpid(child, &st, 0);
  shm_transport.free(&rc);
}

static void wait_times_out(void) {
  tr_conn_t rc = {.peer = 1};
  static volatile int stop = 0;
  tr_args_t a = {.step_bytes = 4096, .stop = &stop};
  char desc[TR_DESC_MAX];
  size_t len;
  CHECK_TRUE(shm_transport.recv_setup(&rc, &a, desc, &len) == chorus_success);
  double t0 = tr_now();
  void *slot;
  uint64_t meta;
  CHECK_EQ_INT(ring_wait_data(&rc.ring, &slot, &meta, 0.3), RING_TIMEOUT);
  double dt = tr_now() - t0;
  CHECK_TRUE(dt >= 0.29 && dt < 2);
  shm_transport.free(&rc);
}

/* Namespace hosts of one machine are hosts to the transports but one
 * machine to what shares its cores and memory (calibrate's buffers). */
static void host_ids_know_the_machine_behind_the_namespaces(void) {
  char self[BOOT_HOSTID_LEN];
  boot_host_id(self, sizeof self);
  const char *ns = strrchr(self, '|');
  CHECK_TRUE(ns != NULL);
  char other_ns[BOOT_HOSTID_LEN], other_boot[BOOT_HOSTID_LEN];
  snprintf(other_ns, sizeof other_ns, "%.*s|net:[4026532999]", (int)(ns - self), self);
  snprintf(other_boot, sizeof other_boot, "%s", self);
  char *boot = strchr(other_boot, '|');
  CHECK_TRUE(boot != NULL && boot[1] != '|');
  boot[1] = boot[1] == 'x' ? 'y' : 'x'; /* another boot of the same hostname: another machine */
  CHECK_TRUE(boot_same_machine(self, self));
  CHECK_TRUE(boot_same_machine(self, other_ns));
  CHECK_TRUE(strcmp(self, other_ns) != 0);
  CHECK_TRUE(!boot_same_machine(self, other_boot));
  CHECK_TRUE(!boot_same_machine("a|b|c", "a|bb|c"));
  chorus_comm_t *c[3];
  CHECK_TRUE(chorus_comm_init_all(c, 3) == chorus_success);
  for (int r = 0; r < 3; r++) {
    CHECK_EQ_INT(c[r]->nlocal, 3);
    CHECK_EQ_INT(c[r]->nmachine, 3);
    chorus_comm_destroy(c[r]);
  }
}

TEST_MAIN(TEST(steps_arrive_in_order_with_meta), TEST(dead_sender_ends_the_wait), TEST(abort_wakes_a_sleeping_waiter),
          TEST(wait_times_out), TEST(host_ids_know_the_machine_behind_the_namespaces))
