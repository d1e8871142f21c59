/* simgrid_ring.c -- the reference side of the simulator comparison
 * (scripts/bench/sim.sh): a ring allreduce (reduce-scatter, then allgather)
 * simulated by SimGrid 3.32 through its C API, one actor per rank, one
 * mailbox per rank, one message of S/n bytes per step. Computation is free,
 * as on Chorus's star with its defaults, so the prediction is network time.
 *
 * usage: simgrid_ring PLATFORM.xml NRANKS BYTES [--cfg=...]
 * The platform names its hosts h0 .. h<n-1> (sim.sh writes it); prints
 * "simgrid_ring: N ranks, B bytes, T s simulated" on stdout. */
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <stdio.h>
#include <stdlib.h>

static int nranks;
static double msg_bytes; /* S / n: a chunk of the ring */
static int token;        /* the payload: SimGrid refuses to send NULL, and no data moves */

/* One ring step: post the send to the successor before receiving from the
 * predecessor, as every rank does at once (a blocking put first would
 * deadlock the ring), then wait for the send. */
static void ring_step(sg_mailbox_t next, sg_mailbox_t self) {
  sg_comm_t c = sg_mailbox_put_async(next, &token, (long)msg_bytes);
  sg_mailbox_get(self);
  sg_comm_wait(c);
}

static void rank_main(int argc, char **argv) {
  if (argc < 2) return;
  int r = atoi(argv[1]);
  char name[32];
  snprintf(name, sizeof name, "m%d", (r + 1) % nranks);
  sg_mailbox_t next = sg_mailbox_by_name(name);
  snprintf(name, sizeof name, "m%d", r);
  sg_mailbox_t self = sg_mailbox_by_name(name);
  /* Reduce-scatter: n-1 steps, each forwarding the chunk reduced so far. */
  for (int s = 0; s < nranks - 1; s++) ring_step(next, self);
  /* Allgather: n-1 steps, each forwarding a finished chunk. */
  for (int s = 0; s < nranks - 1; s++) ring_step(next, self);
}

int main(int argc, char **argv) {
  simgrid_init(&argc, argv); /* takes the --cfg= options out of argv */
  if (argc != 4) {
    fprintf(stderr, "usage: %s PLATFORM.xml NRANKS BYTES [--cfg=...]\n", argv[0]);
    return 2;
  }
  nranks = atoi(argv[2]);
  double bytes = atof(argv[3]);
  if (nranks < 2 || bytes <= 0) {
    fprintf(stderr, "simgrid_ring: NRANKS must be at least 2 and BYTES positive\n");
    return 2;
  }
  msg_bytes = bytes / nranks;
  simgrid_load_platform(argv[1]);
  for (int r = 0; r < nranks; r++) {
    char host[32], rank[16];
    snprintf(host, sizeof host, "h%d", r);
    snprintf(rank, sizeof rank, "%d", r);
    sg_host_t h = sg_host_by_name(host);
    if (!h) {
      fprintf(stderr, "simgrid_ring: %s has no host %s\n", argv[1], host);
      return 1;
    }
    char *args[2] = {"rank", rank};
    sg_actor_create(rank, h, rank_main, 2, args);
  }
  simgrid_run();
  printf("simgrid_ring: %d ranks, %.0f bytes, %.9f s simulated\n", nranks, bytes, simgrid_get_clock());
  return 0;
}
