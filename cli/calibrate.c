/* calibrate.c -- `chorus calibrate`: measure the links and local rates the
 * simulator's timing model charges for (sim/README.md), fit them with GSL
 * (fit.h), print the fitted parameters with confidence intervals and fit
 * quality, and write a topology whose parameter defaults are the fits.
 *
 * What is measured (rank 0 leads; ranks are forked before any thread exists,
 * as perf.c does, or come from a launcher's RANK/WORLD_SIZE/MASTER_ADDR):
 *   - ping-pong chorus_send/chorus_recv between rank 0 and the first rank on
 *     its host (link class "shm") and the first rank on another host (class
 *     "socket"), over a sweep of sizes, each size repeated R times; a sample
 *     is half the median of up to 100 round trips timed one by one (after a
 *     settling phase: see settle());
 *   - kern_copy and kern_reduce (float sum) over buffers 4x the last-level
 *     cache (64 MiB at least; sysfs may not say), on every rank at once, the slowest rank's time
 *     per repeat: in a collective every rank moves data at the same time and
 *     they share the memory system; and the same kernels on buffers of 256
 *     KiB, in the cache, 128 passes per sample; and the copy kernel by
 *     working set (each rank's buffers from 32 KiB doubling to that size,
 *     every rank at once), whose steps are the caches' levels (fit_levels);
 *   - an 8-byte allreduce on a one-rank communicator (the engine's fixed cost
 *     of one call with one op, no peer), and on all ranks with the ring
 *     algorithm (reported as a check of the model);
 *   - when every rank is on one host: ring broadcast and reduce from rank 0
 *     of 256 KiB, 1 and 4 MiB (float sum, in the caches) and of the kernels' buffer
 *     size (past it), the slowest rank's median call: the engine's own
 *     copies and reductions, whose slots one core writes and another reads
 *     (see copy_bw below); across hosts, a ring broadcast of 16 MiB.
 *
 * Out of sample: the experiments validate allreduce, and a 2-rank ring
 * allreduce is a reduce-scatter and an allgather, so none of those three
 * sets a parameter (the only allreduce used is the 8-byte call on a
 * one-rank communicator, which moves nothing between ranks: the cost of a
 * call; the 8-byte ring allreduce on all ranks is printed as a check).
 * Broadcast and reduce are one-way pipelines -- the point-to-point copy
 * (or reduction) between cores, in the collective geometry the simulator
 * replays -- and the written topology names them on its "-- calib_set:"
 * line, which `chorus exp` copies into compare.csv. A ping-pong fit with
 * R^2 under 0.9 or a size missed by more than 20% is a warning in the
 * report and the file ("-- warning:"; chorus exp repeats it in report.md).
 * Per size the median of the R samples is fitted; every median has a
 * bootstrap 95% interval (GSL's MT19937, fixed seed: same data, same output).
 *
 * Fit: t(s) = alpha + s / B by weighted least squares with weights 1/t^2, so
 * that each size counts by its relative error (sizes span seven decades;
 * unweighted, the largest would decide alpha alone). When that line misses
 * some size by more than 5%, a two-piece fit is used instead (the split that
 * minimises the residual, kept only if an F test says the two extra
 * parameters matter). Small and large messages follow different lines for
 * two reasons: the engine moves a message of up to one step (512 KiB) as one
 * copy into the slot and one out, in series, and a larger one as a pipeline
 * of steps; and a message that no longer fits in the cache streams from
 * memory (on this machine the split falls there, between 8 and 16 MiB).
 * alpha is the small piece's intercept and B the large piece's bandwidth:
 * the rate a long transfer -- a large collective -- streams at. CIs of
 * fitted values are +-t(0.975, n-2) standard errors.
 *
 * How measurements map to the parameters the shipped topologies read
 * (local-cpu.lua: copy_bw, copy_local_bw, reduce_bw, mem_bw, llc, op_overhead, step_lat, wake_lat; netns.lua: the
 * same and rate, delay) -- chosen so that the model, run on the same primitive,
 * gives back what was measured:
 *   op_overhead <- the one-rank 8-byte allreduce: the model charges such a
 *                  call exactly one op_overhead (its plan is one copy of 8
 *                  bytes, which costs nothing at copy_bw).
 *   copy_bw     <- in the memory model (sim.h) a rank's thread does every
 *                  copy between cores itself (into a peer's slot, out of its
 *                  own) at this rate while the call's buffers fit in the
 *                  cache. On one host it is the rate at which the
 *                  simulator, replaying the measured ring broadcast (1 and 4
 *                  MiB; 256 KiB where the caches have three levels) on this
 *                  very topology, gives back the measured time (solved by
 *                  bisection, per size; the geometric mean).
 *                  Such a copy reads or writes lines another core holds: on
 *                  the 2-vCPU EPYC of 2026-12-03 it ran at about a third of
 *                  the kernel's rate in a core's own cache, and with the
 *                  kernel's rate 2-rank collectives were predicted 2x too
 *                  fast. Across hosts (or when the solve fails) the copy
 *                  kernel's rate in the cache, all ranks at once.
 *   copy_local_bw <- the copy kernel's rate in the cache, all ranks at once:
 *                  a copy op between a rank's own buffers (an allgather's
 *                  own chunk) stays in its core.
 *   mem_bw      <- on one host, solved as copy_bw is on the ring broadcast
 *                  and reduce past the cache (the kernels' buffer
 *                  size, at most 256 MiB; the geometric mean of the two),
 *                  with copy_bw and reduce_bw fixed: the bytes of buffers
 *                  the host's memory reads and writes per second, which the
 *                  ranks' work shares once their buffers no longer fit in
 *                  the cache. Otherwise 2 x the copy kernel's rate on
 *                  buffers past the cache x the ranks of the host, all at
 *                  once (on 2026-12-03 that was 65-76 GB/s where the
 *                  collectives gave back 39-52).
 *   llc, cache  <- where the copy kernel's rate by working set steps down
 *                  (the whole machine's working set, split among the hosts:
 *                  the namespace testbed's hosts share one machine's
 *                  caches): with three levels the private caches end at
 *                  `cache` and the last-level cache at `llc`; with two only
 *                  `llc` is written; with none, sysfs's last-level cache
 *                  (which on a VM may be its host's: 480 MiB on 2 vCPUs).
 *   llc_bw      <- with three levels, solved as mem_bw is on the ring
 *                  broadcast and reduce of 4 MiB (past the private caches,
 *                  in the llc); else, or when the model puts that size in
 *                  another level, 2 x the copy kernel's rate in the llc x
 *                  the ranks of the host.
 *                  The shm ping-pong bandwidth is a cross-check, not written.
 *   step_lat    <- alpha_shm - op_overhead: in the model a one-step message
 *                  costs its send op's overhead plus the route's latency (0
 *                  inside a host) plus the protocol's step_lat; the receive
 *                  op's overhead overlaps the wait. Without a shm peer the
 *                  base's default is kept (and used for delay below).
 *   delay       <- (alpha_socket - op_overhead - step_lat) / 2: netns.lua
 *                  routes a step between namespaces over two links of
 *                  latency `delay` (veth to the bridge and back), and
 *                  charges the protocol's step_lat once.
 *   rate        <- the socket ping-pong bandwidth B.
 *   reduce_bw   <- bytes of result per second (the unit topo.c documents):
 *                  on one host solved as copy_bw is, from the ring
 *                  reduce (the sizes copy_bw came from) with copy_bw fixed; otherwise the reduce
 *                  kernel's rate in the cache, all ranks at once.
 * A base topology that does not read one of these keeps its own value; the
 * written file marks each value the base does not read.
 *
 * The written topology (--out): the topology sandbox cannot read files (a
 * script may only `require` modules of topologies/lib), so one topology
 * cannot load another; the file is self-contained instead: a header comment
 * (date, machine, command, fit quality), a table `calibrated` of fitted
 * values, a local function `param` that shadows the loader's for the rest of
 * the chunk -- a calibrated name passes its calibrated value as the default,
 * so `chorus sim --set` still wins and `chorus topo show` lists the
 * calibrated default -- and then the base topology's text, verbatim.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include "calibrate.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "chorus.h"
#include "comm.h"
#include "cost.h"
#include "exec.h"
#include "fit.h"
#include "kernels.h"
#include "launcher.h"
#include "params.h"
#include "planner.h"
#include "ranks.h"
#include "sandbox.h"
#include "transport/transport.h"
#include "tune.h"

#define CAL_MAX_SIZES 64
#define CAL_RESAMPLES 2000
#define CAL_LEVEL 0.95
#define CAL_SEED 0x43484f52ul /* "CHOR" */
/* One line fits when it misses no size by more than this. */
#define CAL_LINE_TOLERANCE 0.05
/* Bytes moved per timed sample of a ping-pong (each way), and its bounds. */
#define CAL_SAMPLE_BYTES (16u << 20)
#define CAL_MAX_ITERS 100
#define CAL_AR_ITERS 100
#define CAL_CACHE_BYTES ((size_t)256 << 10)
/* The bandwidth's line covers the sizes from the largest / CAL_TAIL_SPAN up. */
#define CAL_TAIL_SPAN 32.0
/* The spin of a communicator with more ranks than cores (comm.c). */
#define CAL_OVERSUBSCRIBED_SPIN 50
#define CAL_CACHE_PASSES 128
#define CAL_SETTLE_MIN_S 0.2
#define CAL_SETTLE_MAX_S 1.5
/* The engine's rates (engine_calls, solve_engine): sizes of the collectives,
 * in the cache, and calls per sample. */
#define CAL_ENGINE_NSIZES 4
/* A size in the cores' private caches, two in the cache for the threads'
 * rates (or, where the copy kernel shows a private-cache level, one past it
 * in the last-level cache for llc_bw), and the last past every cache (the
 * kernels' buffer size, at most CAL_ENGINE_BIG_MAX), for the memory's. */
enum { ENG_AT_PRIVATE = 0, ENG_AT_1M, ENG_AT_4M, ENG_AT_BIG };
#define CAL_ENGINE_PRIVATE ((size_t)256 << 10)
#define CAL_ENGINE_SMALL0 ((size_t)1 << 20)
#define CAL_ENGINE_SMALL1 ((size_t)4 << 20)
/* The copy kernel by working set (levels): each rank's buffers from
 * CAL_LEVEL_MIN doubling to the kernels' size, CAL_LEVEL_BYTES copied per
 * sample. Two levels count as distinct when their rates differ by
 * CAL_LEVEL_STEP; a third level is taken when it halves the squared error
 * of two. */
#define CAL_LEVEL_MIN ((size_t)32 << 10)
#define CAL_LEVEL_SIZES 16
#define CAL_LEVEL_BYTES ((size_t)64 << 20)
#define CAL_LEVEL_STEP 1.25
#define CAL_ENGINE_BIG_MAX ((size_t)256 << 20)
#define CAL_ENGINE_CALLS 20
#define CAL_ENGINE_BIG_CALLS 3
/* Across hosts: one ring broadcast over every rank, for sock_bw (solve_net). */
#define CAL_NET_SIZE ((size_t)16 << 20)
#define CAL_NET_CALLS 3
enum { ENG_BCAST = 0, ENG_REDUCE, ENG_N };
static const chorus_coll_t eng_coll[ENG_N] = {chorus_broadcast, chorus_reduce};
static const char *const eng_name[ENG_N] = {"broadcast", "reduce"};

enum { CLASS_SHM = 0, CLASS_SOCK, NCLASSES };
static const char *const class_names[NCLASSES] = {"shm", "socket"};

typedef struct {
  int nranks; /* 0: from the launcher */
  size_t minb, maxb;
  int repeats;
  const char *topo, *out, *csv;
  char topo_path[1100];
  char *base_text; /* the base topology, read before forking */
  size_t sizes[CAL_MAX_SIZES];
  int nsizes;
  char cmdline[1024];
} cal_opts_t;

/* What rank 0 gathers. Samples are seconds (ping-pong: half round trips) or
 * seconds per buffer (kernels). */
typedef struct {
  int peer[NCLASSES];   /* -1 when the class is absent */
  double *pp[NCLASSES]; /* [size * repeats + repeat] */
  double *copy_t, *reduce_t, *ar1_t, *arn_t;
  double *ccopy_t, *creduce_t; /* the same kernels in the cache: seconds for cinner passes */
  double *wake_t;              /* half round trips of 8 B with both ranks on one CPU */
  size_t kbytes, cbytes, llc;
  int cinner, per_host; /* passes in the cache; ranks per host */
  int wake_ok;          /* wake_t was measured (both ends could pin themselves) */
  double *eng_t[ENG_N]; /* [size * repeats + repeat]: ring broadcast, reduce (seconds per call) */
  size_t eng_size[CAL_ENGINE_NSIZES];
  int eng_ok;           /* eng_t was measured (every rank on one host) */
  double *net_t;        /* [repeats]: ring broadcast of CAL_NET_SIZE over hosts (seconds per call) */
  int net_ok;
  /* The copy kernel by working set, all ranks at once: [size * repeats +
   * repeat] seconds for lvl_passes[size] copies of lvl_bytes[size]. */
  double *lvl_t;
  size_t lvl_bytes[CAL_LEVEL_SIZES];
  int lvl_passes[CAL_LEVEL_SIZES], nlvl;
  int per_machine; /* ranks on this machine, in any network namespace: they share its caches */
} cal_data_t;

typedef struct {
  const cal_opts_t *o;
  chorus_comm_t *comm;
  int rank, nranks, nhosts;
  char *buf;
  cal_data_t d;
} cal_rank_t;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* --- measuring --- */

static chorus_result_t barrier(chorus_comm_t *c) {
  int32_t one = 1, sum;
  return chorus_run_allreduce(&one, &sum, 1, chorus_int32, chorus_sum, c, NULL);
}

static int iters_for(size_t bytes) {
  size_t k = CAL_SAMPLE_BYTES / (bytes ? bytes : 1);
  return k < 1 ? 1 : k > CAL_MAX_ITERS ? CAL_MAX_ITERS : (int)k;
}

static chorus_result_t pingpong(cal_rank_t *R, int peer, int lead, size_t bytes, int iters) {
  chorus_result_t res = chorus_success;
  for (int i = 0; i < iters && res == chorus_success; i++) {
    if (lead) {
      res = chorus_send(R->buf, bytes, chorus_uint8, peer, R->comm, NULL);
      if (res == chorus_success) res = chorus_recv(R->buf, bytes, chorus_uint8, peer, R->comm, NULL);
    } else {
      res = chorus_recv(R->buf, bytes, chorus_uint8, peer, R->comm, NULL);
      if (res == chorus_success) res = chorus_send(R->buf, bytes, chorus_uint8, peer, R->comm, NULL);
    }
  }
  return res;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of t[0..n), sorting t. */
static double median_of(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  return n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
}

/* Ping-pong 8 bytes in blocks until the block's median round trip stops
 * improving (within 10% of the best block so far, twice in a row) and at
 * least CAL_SETTLE_MIN_S have passed, or CAL_SETTLE_MAX_S. Forked ranks
 * start on the CPU of their parent, and until the scheduler spreads them a
 * waiter falls asleep on its futex at every step: the first sizes measured
 * a wake-up (~90 us here), not the link. The lead decides and tells the
 * peer after every block. */
static chorus_result_t settle(cal_rank_t *R, int other, int lead, double *trip) {
  double start = now_s(), best = INFINITY;
  int good = 0;
  for (int32_t more = 1; more;) {
    for (int j = 0; j < CAL_MAX_ITERS; j++) {
      double t0 = now_s();
      chorus_result_t res = pingpong(R, other, lead, 8, 1);
      TRY(res);
      trip[j] = now_s() - t0;
    }
    if (lead) {
      double m = median_of(trip, CAL_MAX_ITERS), el = now_s() - start;
      good = m <= 1.1 * best ? good + 1 : 0;
      best = fmin(best, m);
      more = el < CAL_SETTLE_MAX_S && (el < CAL_SETTLE_MIN_S || good < 2);
    }
    TRY(lead ? chorus_send(&more, 1, chorus_int32, other, R->comm, NULL)
        : chorus_recv(&more, 1, chorus_int32, other, R->comm, NULL));
  }
  return chorus_success;
}

/* Rank 0 and `peer` ping-pong every size; other ranks skip straight on. A
 * sample is the median of k round trips timed one by one, halved: a round
 * trip that a busy machine preempted (or whose waiter went to sleep on its
 * futex) is an outlier to drop, not a cost to average in. */
static chorus_result_t sweep(cal_rank_t *R, int cls, double *trip) {
  int peer = R->d.peer[cls];
  if (peer < 0 || (R->rank != 0 && R->rank != peer)) return chorus_success;
  int lead = R->rank == 0, other = lead ? peer : 0;
  TRY(settle(R, other, lead, trip));
  for (int i = 0; i < R->o->nsizes; i++) {
    size_t s = R->o->sizes[i];
    int k = iters_for(s);
    TRY(pingpong(R, other, lead, s, 2)); /* warm-up */
    for (int r = 0; r < R->o->repeats; r++) {
      for (int j = 0; j < k; j++) {
        double t0 = now_s();
        TRY(pingpong(R, other, lead, s, 1));
        trip[j] = now_s() - t0;
      }
      if (lead) R->d.pp[cls][i * R->o->repeats + r] = median_of(trip, k) / 2;
    }
  }
  return chorus_success;
}

/* More ranks than cores: rank 0 and its shm peer pin themselves to the
 * first CPU they may run on and ping-pong 8 bytes, waiting as an
 * oversubscribed communicator waits (a short spin, then yielding), so that
 * every step waits for the peer to be scheduled. The half round trip less
 * the shm alpha is what such a step costs more (wake_lat). */
static chorus_result_t handoff(cal_rank_t *R, double *trip) {
  int peer = R->d.peer[CLASS_SHM];
  if (peer < 0 || (R->rank != 0 && R->rank != peer)) return chorus_success;
  cpu_set_t old, one;
  if (sched_getaffinity(0, sizeof old, &old) != 0)
    return err_set(chorus_system_error, "rank %d: sched_getaffinity: %s", R->rank, strerror(errno));
  int first = 0;
  while (first < CPU_SETSIZE - 1 && !CPU_ISSET(first, &old)) first++;
  CPU_ZERO(&one);
  CPU_SET(first, &one);
  /* Both ends must be pinned, or neither measures: they tell each other. */
  int lead = R->rank == 0, other = lead ? peer : 0, k = iters_for(8);
  int32_t ok = sched_setaffinity(0, sizeof one, &one) == 0, peer_ok = 0;
  int err = errno;
  chorus_result_t res =
      lead ? chorus_send(&ok, 1, chorus_int32, other, R->comm, NULL) : chorus_recv(&peer_ok, 1, chorus_int32, other, R->comm, NULL);
  if (res == chorus_success)
    res = lead ? chorus_recv(&peer_ok, 1, chorus_int32, other, R->comm, NULL) : chorus_send(&ok, 1, chorus_int32, other, R->comm, NULL);
  if (res != chorus_success || !ok || !peer_ok) {
    if (ok) sched_setaffinity(0, sizeof old, &old);
    if (lead && res == chorus_success)
      printf("# wake_lat not measured: rank %d cannot pin itself to CPU %d (%s); the base's default stays\n",
             ok ? other : 0, first, ok ? "the peer said so" : strerror(err));
    return res;
  }
  R->d.wake_ok = 1;
  int set_spin = !param_is_set(PARAM_SPIN) && R->comm->nlocal <= sysconf(_SC_NPROCESSORS_ONLN);
  if (set_spin) ring_set_spin(CAL_OVERSUBSCRIBED_SPIN);
  res = pingpong(R, other, lead, 8, 20); /* warm-up */
  for (int r = 0; r < R->o->repeats && res == chorus_success; r++) {
    for (int j = 0; j < k && res == chorus_success; j++) {
      double t0 = now_s();
      res = pingpong(R, other, lead, 8, 1);
      trip[j] = now_s() - t0;
    }
    if (lead && res == chorus_success) R->d.wake_t[r] = median_of(trip, k) / 2;
  }
  if (set_spin) ring_set_spin(-1);
  if (sched_setaffinity(0, sizeof old, &old) != 0 && res == chorus_success)
    res = err_set(chorus_system_error, "rank %d: restoring the CPU affinity: %s", R->rank, strerror(errno));
  return res;
}

/* The slowest rank's time of `passes` runs of the kernel, all ranks starting
 * together. */
static chorus_result_t timed_all(cal_rank_t *R, int what, const float *a, const float *b, float *dst, size_t bytes,
                                 int passes, double *out) {
  TRY(barrier(R->comm));
  double t0 = now_s();
  for (int i = 0; i < passes; i++) {
    if (what == 0)
      kern_copy(dst, a, bytes);
    else
      kern_reduce(dst, a, b, bytes / sizeof(float), chorus_float32, chorus_sum);
  }
  double t = now_s() - t0, tmax;
  TRY(chorus_run_allreduce(&t, &tmax, 1, chorus_float64, chorus_max, R->comm, NULL));
  *out = tmax;
  return chorus_success;
}

/* Last-level cache size from sysfs (0 when unknown). */
static size_t llc_bytes(void) {
  size_t best = 0;
  for (int i = 0; i < 8; i++) {
    char path[128], text[64];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
    FILE *f = fopen(path, "r");
    if (!f) continue;
    if (fgets(text, sizeof text, f)) {
      char *end;
      double v = strtod(text, &end);
      if (*end == 'K')
        v *= 1024;
      else if (*end == 'M')
        v *= 1024 * 1024;
      if (v > (double)best) best = (size_t)v;
    }
    fclose(f);
  }
  return best;
}

/* The kernels' buffers: three of `bytes` on every rank at once, past the
 * last-level cache (4 x its size, 64 MiB to 1 GiB) but within an eighth of
 * the machine's memory for all the ranks on it (ranks in other network
 * namespaces of this machine included): on a 2-core VM that reports its
 * host's 480 MiB L3, 8 namespace ranks took 3 GiB each and the kernel's OOM
 * killer ended one. The same on every rank of a machine: from its total
 * memory, not what happens to be free. */
static size_t kernel_bytes(size_t llc, int ranks_on_machine) {
  size_t bytes = 4 * llc;
  if (bytes < (64u << 20)) bytes = 64u << 20;
  if (bytes > (1u << 30)) bytes = 1u << 30;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page > 0) {
    size_t cap = (size_t)pages * (size_t)page / 8 / 3 / (size_t)(ranks_on_machine > 0 ? ranks_on_machine : 1);
    cap -= cap % 4096;
    if (cap < (16u << 20)) cap = 16u << 20;
    if (bytes > cap) bytes = cap;
  }
  return bytes;
}

static chorus_result_t kernels(cal_rank_t *R) {
  R->d.llc = llc_bytes();
  size_t bytes = kernel_bytes(R->d.llc, R->comm->nmachine);
  R->d.kbytes = bytes;
  float *a = NULL, *b = NULL, *dst = NULL;
  chorus_result_t res = chorus_success;
  if (posix_memalign((void **)&a, 4096, bytes) || posix_memalign((void **)&b, 4096, bytes) ||
      posix_memalign((void **)&dst, 4096, bytes)) {
    res = err_set(chorus_out_of_memory, "rank %d: cannot allocate 3 x %zu bytes for the kernel rates", R->rank, bytes);
    goto cleanup;
  }
  /* Small floats: sums stay normal numbers, no slow paths. */
  for (size_t i = 0; i < bytes / sizeof(float); i++)
    a[i] = (float)(i & 7), b[i] = 1;
  memset(dst, 0, bytes);
  for (int what = 0; what < 2; what++) {
    double t;
    if ((res = timed_all(R, what, a, b, dst, bytes, 1, &t)) != chorus_success) goto cleanup; /* warm-up */
    for (int r = 0; r < R->o->repeats; r++) {
      if ((res = timed_all(R, what, a, b, dst, bytes, 1, &t)) != chorus_success) goto cleanup;
      (what ? R->d.reduce_t : R->d.copy_t)[r] = t;
    }
  }
  /* The same kernels on buffers in the cache (three of CAL_CACHE_BYTES fit
   * in a core's L2 on most machines): one thread's own rates, which the
   * memory model charges while a call's buffers fit in the cache. */
  R->d.cbytes = CAL_CACHE_BYTES;
  R->d.cinner = CAL_CACHE_PASSES;
  for (int what = 0; what < 2; what++) {
    double t;
    if ((res = timed_all(R, what, a, b, dst, R->d.cbytes, R->d.cinner, &t)) != chorus_success) goto cleanup;
    for (int r = 0; r < R->o->repeats; r++) {
      if ((res = timed_all(R, what, a, b, dst, R->d.cbytes, R->d.cinner, &t)) != chorus_success) goto cleanup;
      (what ? R->d.creduce_t : R->d.ccopy_t)[r] = t;
    }
  }
  /* The copy kernel by working set, every rank at once: where its rate
   * steps down is where the caches end (fit_levels). sysfs may not say: a
   * VM can report its host's last-level cache (480 MiB on 2 vCPUs). */
  R->d.nlvl = 0;
  for (size_t sz = CAL_LEVEL_MIN; sz <= bytes && R->d.nlvl < CAL_LEVEL_SIZES; sz *= 2) {
    int i = R->d.nlvl++;
    size_t passes = CAL_LEVEL_BYTES / sz;
    R->d.lvl_bytes[i] = sz;
    R->d.lvl_passes[i] = passes < 1 ? 1 : (int)passes;
    double t;
    if ((res = timed_all(R, 0, a, b, dst, sz, R->d.lvl_passes[i], &t)) != chorus_success) goto cleanup;
    for (int r = 0; r < R->o->repeats; r++) {
      if ((res = timed_all(R, 0, a, b, dst, sz, R->d.lvl_passes[i], &t)) != chorus_success) goto cleanup;
      R->d.lvl_t[i * R->o->repeats + r] = t;
    }
  }
cleanup:
  free(a), free(b), free(dst);
  return res;
}

static chorus_result_t small_allreduce(chorus_comm_t *c, int repeats, double *out, int all_ranks) {
  float in[2] = {1, 2}, res_buf[2];
  chorus_result_t res = chorus_success;
  for (int i = 0; i < 10 && res == chorus_success; i++)
    res = chorus_run_allreduce(in, res_buf, 2, chorus_float32, chorus_sum, c, NULL);
  for (int r = 0; r < repeats && res == chorus_success; r++) {
    if (all_ranks && (res = barrier(c)) != chorus_success) break;
    double calls[CAL_AR_ITERS];
    for (int i = 0; i < CAL_AR_ITERS; i++) {
      double t0 = now_s();
      TRY(res = chorus_run_allreduce(in, res_buf, 2, chorus_float32, chorus_sum, c, NULL));
      calls[i] = now_s() - t0;
    }
    /* The median call, for the reason sweep() gives. */
    double t = median_of(calls, CAL_AR_ITERS), tmax = t;
    if (all_ranks) res = chorus_run_allreduce(&t, &tmax, 1, chorus_float64, chorus_max, c, NULL);
    out[r] = tmax;
  }
  return res;
}

static chorus_result_t overheads(cal_rank_t *R) {
  exec_force(R->comm, "ring", 0); /* the simulator's default algorithm */
  chorus_result_t res = small_allreduce(R->comm, R->o->repeats, R->d.arn_t, 1);
  exec_force(R->comm, "", 0);
  TRY(res);
  if (R->rank == 0) {
    /* A communicator of rank 0 alone: the call's cost without a peer. The
     * other ranks wait in the barrier below meanwhile. */
    chorus_comm_t *one;
    TRY(chorus_comm_init_all(&one, 1));
    res = small_allreduce(one, R->o->repeats, R->d.ar1_t, 0);
    chorus_result_t r2 = chorus_comm_destroy(one);
    if (res == chorus_success) res = r2;
    TRY(res);
  }
  return barrier(R->comm);
}

static chorus_result_t net_calls(cal_rank_t *R);

/* One timed call: ring broadcast (k = ENG_BCAST) or reduce, root 0. */
static chorus_result_t engine_call(cal_rank_t *R, int k, const float *in, float *out, size_t count) {
  return k == ENG_BCAST ? chorus_run_broadcast(in, out, count, chorus_float32, 0, R->comm, NULL)
                        : chorus_run_reduce(in, out, count, chorus_float32, chorus_sum, 0, R->comm, NULL);
}

/* Every rank on one host: ring broadcast and reduce from rank 0 of each of
 * eng_size (two sizes in the cache, one past it), the slowest rank's median
 * of CAL_ENGINE_CALLS calls (CAL_ENGINE_BIG_CALLS past the cache) per
 * repeat. A pipeline in one direction: each rank's thread copies (or
 * reduces) every byte once, from a slot another core wrote -- the work the
 * model charges at copy_bw and reduce_bw -- and no collective an experiment
 * validates (allreduce, or its halves allgather and reduce-scatter) is among
 * them. */
static chorus_result_t engine_calls(cal_rank_t *R) {
  if (R->nhosts != 1) return net_calls(R);
  size_t big = R->d.kbytes < CAL_ENGINE_BIG_MAX ? R->d.kbytes : CAL_ENGINE_BIG_MAX;
  R->d.eng_size[ENG_AT_PRIVATE] = CAL_ENGINE_PRIVATE, R->d.eng_size[ENG_AT_1M] = CAL_ENGINE_SMALL0;
  R->d.eng_size[ENG_AT_4M] = CAL_ENGINE_SMALL1, R->d.eng_size[ENG_AT_BIG] = big;
  float *in = NULL, *out = NULL;
  double calls[CAL_ENGINE_CALLS];
  chorus_result_t res = chorus_success;
  if (posix_memalign((void **)&in, 4096, big) || posix_memalign((void **)&out, 4096, big)) {
    free(in);
    return err_set(chorus_out_of_memory, "rank %d: cannot allocate 2 x %zu bytes for the engine's rates", R->rank,
                   big);
  }
  for (size_t i = 0; i < big / sizeof(float); i++) in[i] = (float)(i & 7), out[i] = 0;
  exec_force(R->comm, "ring", 1); /* what solve_engine replays */
  exec_agree(R->comm, TUNE_AGREE_NONE); /* the data path the simulator models, without the agreement on roots */
  for (int k = 0; k < ENG_N && res == chorus_success; k++) {
    for (int i = 0; i < CAL_ENGINE_NSIZES && res == chorus_success; i++) {
      size_t count = R->d.eng_size[i] / sizeof(float); /* the whole buffer moves, as chorus perf counts */
      int ncalls = i == CAL_ENGINE_NSIZES - 1 ? CAL_ENGINE_BIG_CALLS : CAL_ENGINE_CALLS;
      for (int w = 0; w < 2 && res == chorus_success; w++)
        res = engine_call(R, k, in, out, count);
      for (int r = 0; r < R->o->repeats && res == chorus_success; r++) {
        if ((res = barrier(R->comm)) != chorus_success) break;
        for (int j = 0; j < ncalls && res == chorus_success; j++) {
          double t0 = now_s();
          res = engine_call(R, k, in, out, count);
          calls[j] = now_s() - t0;
        }
        if (res != chorus_success) break;
        double t = median_of(calls, ncalls), tmax;
        res = chorus_run_allreduce(&t, &tmax, 1, chorus_float64, chorus_max, R->comm, NULL);
        R->d.eng_t[k][i * R->o->repeats + r] = tmax;
      }
    }
  }
  exec_force(R->comm, "", 0);
  exec_agree(R->comm, -1);
  free(in), free(out);
  if (res == chorus_success) R->d.eng_ok = 1;
  return res == chorus_success ? barrier(R->comm) : res;
}

/* Ranks on several hosts: a ring broadcast of CAL_NET_SIZE from rank 0
 * over all of them (a chain that crosses every host boundary once in one
 * direction; not the allreduce the experiments validate), the slowest
 * rank's median of CAL_NET_CALLS calls per repeat. */
static chorus_result_t net_calls(cal_rank_t *R) {
  size_t bytes = CAL_NET_SIZE, count = bytes / sizeof(float);
  float *in = NULL, *out = NULL;
  if (posix_memalign((void **)&in, 4096, bytes) || posix_memalign((void **)&out, 4096, bytes)) {
    free(in);
    return err_set(chorus_out_of_memory, "rank %d: cannot allocate 2 x %zu bytes for the hosts' broadcast", R->rank,
                   bytes);
  }
  memset(in, 0, bytes);
  memset(out, 0, bytes);
  double calls[CAL_NET_CALLS];
  exec_force(R->comm, "ring", 1);
  exec_agree(R->comm, TUNE_AGREE_NONE); /* as in engine_calls */
  chorus_result_t res = engine_call(R, ENG_BCAST, in, out, count);
  for (int r = 0; r < R->o->repeats && res == chorus_success; r++) {
    if ((res = barrier(R->comm)) != chorus_success) break;
    for (int j = 0; j < CAL_NET_CALLS && res == chorus_success; j++) {
      double t0 = now_s();
      res = engine_call(R, ENG_BCAST, in, out, count);
      calls[j] = now_s() - t0;
    }
    if (res != chorus_success) break;
    double t = median_of(calls, CAL_NET_CALLS), tmax;
    res = chorus_run_allreduce(&t, &tmax, 1, chorus_float64, chorus_max, R->comm, NULL);
    R->d.net_t[r] = tmax;
  }
  exec_force(R->comm, "", 0);
  exec_agree(R->comm, -1);
  free(in), free(out);
  if (res == chorus_success) R->d.net_ok = 1;
  return res == chorus_success ? barrier(R->comm) : res;
}

/* --- fitting and reporting (rank 0) --- */

typedef struct {
  int present, two_piece;
  fit_line_t line;
  fit_two_piece_t two;
  fit_line_t tail; /* the largest sizes alone: the bandwidth */
  double alpha, alpha_ci, bw, bw_ci, r2, max_resid;
  double med[CAL_MAX_SIZES], lo[CAL_MAX_SIZES], hi[CAL_MAX_SIZES];
} class_fit_t;

typedef struct {
  fit_ci_t copy, reduce, ar1, arn; /* rates in bytes/s for kernels, seconds for calls */
  fit_ci_t ccopy, creduce;         /* the kernels in the cache, bytes/s */
  double mem_bw;                   /* bytes read and written per second by a host's ranks at once */
  fit_ci_t wake;                   /* the 8-byte half round trip with both ranks on one CPU */
  double wake_lat;                 /* wake.median - the shm alpha */
  class_fit_t cls[NCLASSES];
  double op_overhead, step_lat, delay;
  /* The rates written: the kernels' in the cache, or solved on the engine's
   * collectives (solve_engine): per size, and their geometric mean. */
  double copy_bw, reduce_bw, mem_bw_kernel;
  int engine_solved;
  fit_ci_t eng[ENG_N][CAL_ENGINE_NSIZES]; /* measured seconds per call */
  double eng_rate[ENG_N][CAL_ENGINE_NSIZES];
  char engine_note[256]; /* why the solve was not used, when it was tried */
  int engine_failed;     /* it was tried and failed: the kernels' rates stay (a warning) */
  char reduce_note[256]; /* the reduce could not be solved: reduce_bw estimated (a warning) */
  fit_ci_t net;          /* the hosts' ring broadcast, seconds per call */
  double sock_bw;        /* solved (solve_net), 0: not */
  char net_note[256];
  const char *step_lat_from;
  int step_lat_clamped, delay_clamped;
  /* step_extra: the shm ping-pong's one-step sizes, each with what it took
   * beyond the model's op_overhead + step_lat + two copies at copy_bw
   * ("SIZE:TIME SIZE:TIME ...", the protocol's latency_by_size); "" when none. */
  char step_extra[512];
  double step_extra_max;
  /* The caches from the copy kernel by working set (fit_levels): levels 3
   * (private caches, last-level cache, memory), 2 (a cache, memory) or 0
   * (no step found: sysfs's llc stays); cache and llc are working sets of
   * the whole machine (bytes), llc_bw the last-level cache's rate (bytes
   * read plus written per second by a host's ranks: the kernel's estimate,
   * or solved on the engine). */
  double lvl_rate[CAL_LEVEL_SIZES];
  int levels;
  double cache, llc, llc_bw, llc_bw_kernel;
  int llc_bw_solved;
} cal_result_t;

static chorus_result_t fit_class(const cal_opts_t *o, const double *samples, class_fit_t *f, int cls) {
  double x[CAL_MAX_SIZES], w[CAL_MAX_SIZES];
  int n = o->nsizes;
  for (int i = 0; i < n; i++) {
    fit_ci_t ci;
    chorus_result_t res = fit_median_ci(samples + i * o->repeats, o->repeats, CAL_RESAMPLES, CAL_LEVEL,
                                        CAL_SEED + (unsigned long)(cls * CAL_MAX_SIZES + i), &ci);
    TRY(res);
    x[i] = (double)o->sizes[i];
    f->med[i] = ci.median, f->lo[i] = ci.lo, f->hi[i] = ci.hi;
    /* Relative weights: every size counts by its relative error. Weights
     * from the bootstrap intervals were tried and rejected: the few largest
     * sizes, past the cache, are the noisiest, so they lost the split that
     * separates them from the in-cache sizes -- and they are the ones whose
     * bandwidth a large collective sees. The medians are already robust. */
    w[i] = 1 / (ci.median * ci.median);
  }
  TRY(fit_line(x, f->med, w, n, &f->line, NULL));
  f->present = 1;
  const fit_line_t *small = &f->line, *large = &f->line;
  /* Two pieces only where one line misses by more than the tolerance and the
   * two extra parameters explain significantly more (F test at 1%): an
   * outlier size alone does not split the sweep. */
  if (f->line.max_resid_rel > CAL_LINE_TOLERANCE && n >= 8 &&
      fit_two_piece(x, f->med, w, n, 3, &f->two) == chorus_success &&
      fit_f_test(f->line.chisq, f->two.chisq, 2, n - 4) < 0.01) {
    f->two_piece = 1;
    small = &f->two.lo, large = &f->two.hi;
  }
  /* The bandwidth is the rate a long transfer streams at: a line over the
   * largest sizes alone (the sizes from the largest / CAL_TAIL_SPAN up, at least 3).
   * The large piece alone is not enough: with relative weights its smallest
   * sizes decide it, and where a shaped link lets bursts through faster (tc
   * tbf) those sizes made the 1 Gb/s testbed look like 1.4 Gb/s. */
  int first = n - 3;
  while (first > 0 && x[first - 1] >= x[n - 1] / CAL_TAIL_SPAN) first--;
  if (first < 0) first = 0;
  fit_line_t tail;
  if (n - first >= 3 && fit_line(x + first, f->med + first, w + first, n - first, &tail, NULL) == chorus_success &&
      tail.bw > 0) {
    f->tail = tail;
    large = &f->tail;
  }
  f->alpha = small->alpha;
  f->alpha_ci = fit_t_quantile(CAL_LEVEL, small->n - 2) * small->alpha_se;
  f->bw = large->bw;
  f->bw_ci = fit_t_quantile(CAL_LEVEL, large->n - 2) * large->bw_se;
  f->r2 = f->two_piece ? fmin(f->two.lo.r2, f->two.hi.r2) : f->line.r2;
  f->max_resid = f->two_piece ? f->two.max_resid_rel : f->line.max_resid_rel;
  if (!(f->bw > 0))
    return err_set(chorus_internal_error,
                   "%s: the times do not grow with size (slope %g s/B): no bandwidth can be fitted; widen --sizes",
                   class_names[cls], large->slope);
  return chorus_success;
}

/* The fit's value at x: the piece x falls in. */
static double class_eval(const class_fit_t *f, double x) {
  if (!f->two_piece) return fit_line_eval(&f->line, x);
  return fit_line_eval(x < f->two.break_x ? &f->two.lo : &f->two.hi, x);
}

/* The default of param("name", "...") in the base text, parsed as kind; 0
 * when the base has no such param. */
static double base_default(const char *text, const char *name, int kind) {
  char pat[2][80];
  snprintf(pat[0], sizeof pat[0], "param(\"%s\"", name);
  snprintf(pat[1], sizeof pat[1], "param('%s'", name);
  for (int k = 0; k < 2; k++) {
    const char *p = strstr(text, pat[k]);
    if (!p) continue;
    p += strlen(pat[k]);
    while (*p == ' ' || *p == ',')
      p++;
    if (*p != '"' && *p != '\'') return 0;
    char q = *p++, val[64];
    size_t n = 0;
    while (*p && *p != q && n < sizeof val - 1)
      val[n++] = *p++;
    val[n] = 0;
    double v;
    char err[256];
    return sbx_parse_unit(val, kind, &v, err, sizeof err) == 0 ? v : 0;
  }
  return 0;
}

static int base_reads(const char *text, const char *name) {
  char a[80], b[80];
  snprintf(a, sizeof a, "param(\"%s\"", name);
  snprintf(b, sizeof b, "param('%s'", name);
  return strstr(text, a) || strstr(text, b);
}

/* Three cache levels were found and the base models them (cache, llc_bw). */
static int three_levels(const cal_opts_t *o, const cal_result_t *r) {
  return r->levels == 3 && base_reads(o->base_text, "cache") && base_reads(o->base_text, "llc_bw");
}

/* The caches, from the copy kernel's rate by working set (all the
 * machine's ranks' source and destination buffers; fit.h, fit_levels):
 * three levels are private caches, last-level cache and memory. */
static void fit_cache_levels(const cal_opts_t *o, const cal_data_t *d, cal_result_t *r) {
  int n = d->nlvl;
  double ws[CAL_LEVEL_SIZES];
  double *t = malloc(sizeof *t * (size_t)o->repeats);
  if (!t) return; /* no levels: sysfs's llc stays */
  for (int i = 0; i < n; i++) {
    memcpy(t, d->lvl_t + i * o->repeats, sizeof *t * (size_t)o->repeats);
    double med = median_of(t, o->repeats);
    r->lvl_rate[i] = med > 0 ? (double)d->lvl_bytes[i] * d->lvl_passes[i] / med : 0;
    ws[i] = 2.0 * (double)d->lvl_bytes[i] * (d->per_machine > 0 ? d->per_machine : 1);
  }
  free(t);
  fit_levels_t f;
  if (fit_levels(ws, r->lvl_rate, n, CAL_LEVEL_STEP, &f) != chorus_success) return;
  r->levels = f.levels, r->cache = f.cache, r->llc = f.llc;
  /* The last-level cache's rate as the memory's is estimated: every rank
   * of the host copying, each byte read and written. */
  if (f.levels == 3) r->llc_bw = r->llc_bw_kernel = 2 * f.rate[1] * d->per_host;
}

static chorus_result_t analyse(const cal_opts_t *o, const cal_data_t *d, cal_result_t *r) {
  chorus_result_t res;
  memset(r, 0, sizeof *r);
  for (int c = 0; c < NCLASSES; c++)
    if (d->peer[c] >= 0) TRY(fit_class(o, d->pp[c], &r->cls[c], c));
  double *rate = malloc(sizeof *rate * (size_t)o->repeats);
  if (!rate) return err_set(chorus_out_of_memory, "calibrate: out of memory");
  for (int k = 0; k < 4; k++) {
    const double *t = k == 0 ? d->copy_t : k == 1 ? d->reduce_t : k == 2 ? d->ccopy_t : d->creduce_t;
    double work = k < 2 ? (double)d->kbytes : (double)d->cbytes * d->cinner;
    for (int i = 0; i < o->repeats; i++)
      rate[i] = work / t[i];
    res = fit_median_ci(rate, o->repeats, CAL_RESAMPLES, CAL_LEVEL, CAL_SEED + 1000 + (unsigned long)(k < 2 ? k : k + 2),
                        k == 0 ? &r->copy : k == 1 ? &r->reduce : k == 2 ? &r->ccopy : &r->creduce);
    if (res != chorus_success) break;
  }
  free(rate);
  TRY(res);
  /* A copy reads and writes its bytes: the host's memory moved twice the
   * copied bytes of every rank on it, all at once. */
  r->mem_bw = r->mem_bw_kernel = 2 * r->copy.median * d->per_host;
  fit_cache_levels(o, d, r);
  if ((res = fit_median_ci(d->ar1_t, o->repeats, CAL_RESAMPLES, CAL_LEVEL, CAL_SEED + 1002, &r->ar1)) ||
      (res = fit_median_ci(d->arn_t, o->repeats, CAL_RESAMPLES, CAL_LEVEL, CAL_SEED + 1003, &r->arn)))
    return res;
  r->op_overhead = r->ar1.median;
  r->copy_bw = r->ccopy.median, r->reduce_bw = r->creduce.median;
  if (d->eng_ok)
    for (int k = 0; k < ENG_N; k++)
      for (int i = 0; i < CAL_ENGINE_NSIZES; i++)
        if ((res = fit_median_ci(d->eng_t[k] + i * o->repeats, o->repeats, CAL_RESAMPLES, CAL_LEVEL,
                                 CAL_SEED + 1100 + (unsigned long)(k * CAL_ENGINE_NSIZES + i), &r->eng[k][i])))
          return res;
  if (d->net_ok && (res = fit_median_ci(d->net_t, o->repeats, CAL_RESAMPLES, CAL_LEVEL, CAL_SEED + 1200, &r->net)))
    return res;
  r->step_lat_from = "shm alpha - op_overhead";
  if (r->cls[CLASS_SHM].present) {
    r->step_lat = r->cls[CLASS_SHM].alpha - r->op_overhead;
    if (r->step_lat < 0) r->step_lat = 0, r->step_lat_clamped = 1;
  } else {
    r->step_lat = base_default(o->base_text, "step_lat", 't');
    r->step_lat_from = "the base's default (no shm peer to measure it)";
  }
  if (r->cls[CLASS_SHM].present && d->wake_ok) {
    if ((res = fit_median_ci(d->wake_t, o->repeats, CAL_RESAMPLES, CAL_LEVEL, CAL_SEED + 1006, &r->wake)))
      return res;
    r->wake_lat = r->wake.median - r->cls[CLASS_SHM].alpha;
    if (r->wake_lat < 0) r->wake_lat = 0;
  }
  if (r->cls[CLASS_SOCK].present) {
    r->delay = (r->cls[CLASS_SOCK].alpha - r->op_overhead - r->step_lat) / 2;
    if (r->delay < 0) r->delay = 0, r->delay_clamped = 1;
  }
  return chorus_success;
}

static int write_topology(const cal_opts_t *o, const cal_rank_t *R, const cal_result_t *r, const char *path);

/* The simulator's seconds for one call of plan p on topology `file` with
 * `sets`; negative (err says why) when it cannot say. */
static double predict(const char *file, const char *sets, size_t buffsize, const plan_t *p, size_t count, int calls,
                      char *err, size_t errlen) {
  sim_cost_t *c;
  if (sim_cost_create(&c, file, sets, buffsize, err, errlen) != chorus_success) return -1;
  /* The calls were timed one by one in a loop of `calls`, back to back
   * (engine_calls, net_calls): the model replays such a loop and gives the
   * time of a call in it. */
  sim_cost_set_calls(c, calls);
  double t = sim_cost_time(c, p, count, chorus_float32, err, errlen);
  sim_cost_destroy(c);
  return t;
}

#define CAL_SOLVE_LO 1e8  /* bytes/s */
#define CAL_SOLVE_HI 1e13
#define CAL_SOLVE_STEPS 48

/* The rate `name` (bytes/s) at which the simulator predicts `want` seconds
 * for plan p, by bisection on its logarithm: the time falls as the rate
 * grows. 0 when no rate in [CAL_SOLVE_LO, CAL_SOLVE_HI] gives it (err says
 * which end), -1 when the simulator failed (err says why). */
static double solve_rate(const char *file, const char *base_sets, const char *name, size_t buffsize, const plan_t *p,
                         size_t count, int calls, double want, char *err, size_t errlen) {
  char sets[512];
  double lo = log(CAL_SOLVE_LO), hi = log(CAL_SOLVE_HI);
  for (int end = 0; end < 2; end++) {
    snprintf(sets, sizeof sets, "%s%s%s=%.9gGB/s", base_sets, base_sets[0] ? "," : "", name,
             exp(end ? hi : lo) / 1e9);
    double t = predict(file, sets, buffsize, p, count, calls, err, errlen);
    if (t < 0) return -1;
    if (end ? t > want : t < want) {
      snprintf(err, errlen, "at %s = %g GB/s the model predicts %.3f us, %s than the measured %.3f us", name,
               exp(end ? hi : lo) / 1e9, t * 1e6, end ? "slower" : "faster", want * 1e6);
      return 0;
    }
  }
  for (int i = 0; i < CAL_SOLVE_STEPS; i++) {
    double mid = 0.5 * (lo + hi);
    snprintf(sets, sizeof sets, "%s%s%s=%.9gGB/s", base_sets, base_sets[0] ? "," : "", name, exp(mid) / 1e9);
    double t = predict(file, sets, buffsize, p, count, calls, err, errlen);
    if (t < 0) return -1;
    if (t > want)
      lo = mid;
    else
      hi = mid;
  }
  return exp(0.5 * (lo + hi));
}

/* The step latency by size (latency_by_size of local-cpu.lua's protocol):
 * for each ping-pong size of one step (at most GEOM_MIN_STEP: a message no
 * larger moves as one step, copied into the slot by the sender and out by
 * the receiver in series), the measured half round trip less what the model
 * charges such a step -- op_overhead + step_lat (the fitted alpha) and two
 * copies at copy_bw -- and never below 0. What is left is the size's own
 * cost the line does not see: on the 2-vCPU EPYC of 2026-12-07, when its
 * two vCPUs ran far apart (alpha 0.76-0.86 us), steps of 2-16 KiB took
 * 0.2-0.6 us more (the first lines fetched from the other core's cache);
 * when they ran close (alpha 0.25-0.29 us), at most 0.16 us. */
static void step_extra(const cal_opts_t *o, cal_result_t *r) {
  r->step_extra[0] = 0;
  r->step_extra_max = 0;
  const class_fit_t *f = &r->cls[CLASS_SHM];
  if (!f->present || !(r->copy_bw > 0)) return;
  size_t off = 0;
  for (int i = 0; i < o->nsizes && o->sizes[i] <= GEOM_MIN_STEP; i++) {
    double s = (double)o->sizes[i];
    double x = f->med[i] - (r->op_overhead + r->step_lat) - 2 * s / r->copy_bw;
    if (x < 0) x = 0;
    if (x > r->step_extra_max) r->step_extra_max = x;
    int w = snprintf(r->step_extra + off, sizeof r->step_extra - off, "%s%zuB:%.3gus", off ? " " : "", o->sizes[i],
                     x * 1e6);
    if (w < 0 || (size_t)w >= sizeof r->step_extra - off) break;
    off += (size_t)w;
  }
}

/* On one host: copy_bw from the measured ring broadcast in the cache, then
 * reduce_bw from the ring reduce with that copy_bw, then mem_bw from
 * both past the cache with the two rates fixed: each the rate at which the
 * simulator on the topology being written gives back the measured time (the
 * geometric mean of its sizes, or of the two collectives for mem_bw). The
 * other values are already the fits: the topology is written to a
 * temporary file with them and replayed. When the base does not read the
 * rates or a solve fails, the kernels' rates stay and engine_note says why. */
static void solve_engine(const cal_opts_t *o, const cal_rank_t *R, cal_result_t *r) {
  if (!R->d.eng_ok) return;
  if (!base_reads(o->base_text, "copy_bw") || !base_reads(o->base_text, "reduce_bw") ||
      !base_reads(o->base_text, "mem_bw")) {
    snprintf(r->engine_note, sizeof r->engine_note, "the base reads no copy_bw, reduce_bw or mem_bw");
    return;
  }
  char path[] = "/tmp/chorus-calibrate-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    snprintf(r->engine_note, sizeof r->engine_note, "a temporary topology: %s", strerror(errno));
    r->engine_failed = 1;
    return;
  }
  close(fd);
  char base_sets[128] = "", err[2048] = "";
  if (base_reads(o->base_text, "ranks")) snprintf(base_sets, sizeof base_sets, "ranks=%d", R->nranks);
  if (base_reads(o->base_text, "cores"))
    snprintf(base_sets + strlen(base_sets), sizeof base_sets - strlen(base_sets), "%scores=%ld",
             base_sets[0] ? "," : "", sysconf(_SC_NPROCESSORS_ONLN));
  size_t buffsize = R->comm->geom.buffsize;
  const plan_t *plans[ENG_N];
  int ok = write_topology(o, R, r, path) == 0;
  if (!ok) snprintf(err, sizeof err, "the temporary topology %s could not be written", path);
  for (int k = 0; k < ENG_N && ok; k++) {
    planner_req_t req = {.algo = "ring", .coll = eng_coll[k], .nranks = R->nranks, .root = 0,
                         .shape = &R->comm->shape, .nchannels = 1};
    planner_err_t perr;
    if (plan_cache_get(R->comm->cache, &req, 1, &plans[k], &perr) != chorus_success) {
      snprintf(err, sizeof err, "%s", perr.msg);
      ok = 0;
    }
  }
  /* The solves: what is solved for, on which collectives and sizes. With
   * three cache levels the threads' rates come from the size in the private
   * caches and the last-level cache's from the 4 MiB calls; else both
   * cache sizes give the threads' rates, as one level. */
  typedef struct {
    const char *name;
    int k0, k1, i0, i1;
  } solve_t;
  static const solve_t two[] = {{"copy_bw", ENG_BCAST, ENG_BCAST, ENG_AT_1M, ENG_AT_4M},
                                {"reduce_bw", ENG_REDUCE, ENG_REDUCE, ENG_AT_1M, ENG_AT_4M},
                                {"mem_bw", ENG_BCAST, ENG_REDUCE, ENG_AT_BIG, ENG_AT_BIG}};
  static const solve_t three[] = {{"copy_bw", ENG_BCAST, ENG_BCAST, ENG_AT_PRIVATE, ENG_AT_PRIVATE},
                                  {"reduce_bw", ENG_REDUCE, ENG_REDUCE, ENG_AT_PRIVATE, ENG_AT_PRIVATE},
                                  {"mem_bw", ENG_BCAST, ENG_REDUCE, ENG_AT_BIG, ENG_AT_BIG},
                                  {"llc_bw", ENG_BCAST, ENG_REDUCE, ENG_AT_4M, ENG_AT_4M}};
  int levels3 = three_levels(o, r);
  const solve_t *solve = levels3 ? three : two;
  int nsolve = levels3 ? 4 : 3;
  double solved[4] = {0};
  int llc_bw_kept = 0; /* llc_bw could not be solved: the kernel's estimate stays */
  for (int v = 0; v < nsolve && ok; v++) {
    char sets[256];
    snprintf(sets, sizeof sets, "%s", base_sets);
    for (int u = 0; u < v; u++)
      snprintf(sets + strlen(sets), sizeof sets - strlen(sets), "%s%s=%.9gGB/s", sets[0] ? "," : "", solve[u].name,
               solved[u] / 1e9);
    double logsum = 0, x = 1;
    int n = 0;
    for (int k = solve[v].k0; k <= solve[v].k1 && x > 0; k++)
      for (int i = solve[v].i0; i <= solve[v].i1 && x > 0; i++) {
        size_t count = R->d.eng_size[i] / sizeof(float);
        int calls = i == CAL_ENGINE_NSIZES - 1 ? CAL_ENGINE_BIG_CALLS : CAL_ENGINE_CALLS;
        x = solve_rate(path, sets, solve[v].name, buffsize, plans[k], count, calls, r->eng[k][i].median, err,
                       sizeof err);
        if (x > 0) r->eng_rate[k][i] = x, logsum += log(x), n++;
      }
    if (x > 0) {
      solved[v] = exp(logsum / n);
    } else if (v == 3) {
      /* The 4 MiB calls do not tell the last-level cache's rate (the model
       * puts them in another level): the kernel's estimate stays. */
      solved[v] = r->llc_bw_kernel, llc_bw_kept = 1;
    } else if (x == 0 && v == 1 && r->ccopy.median > 0) {
      /* The reduce measured faster than its sender can copy at copy_bw
       * (seen under load): its rate cannot be read from it. Estimated as
       * copy_bw x the kernels' reduce/copy ratio in the cache, with a
       * warning; mem_bw is still solved. */
      snprintf(r->reduce_note, sizeof r->reduce_note, "%.200s", err);
      solved[v] = solved[0] * r->creduce.median / r->ccopy.median;
      for (int i = solve[v].i0; i <= solve[v].i1; i++) r->eng_rate[ENG_REDUCE][i] = solved[v];
    } else {
      ok = 0;
    }
  }
  unlink(path);
  if (!ok) {
    snprintf(r->engine_note, sizeof r->engine_note, "not solved (%.200s): the kernels' rates stay", err);
    r->engine_failed = 1;
    return;
  }
  r->copy_bw = solved[0], r->reduce_bw = solved[1], r->mem_bw = solved[2];
  if (levels3) r->llc_bw = solved[3], r->llc_bw_solved = !llc_bw_kept;
  r->engine_solved = 1;
}

/* Across hosts: sock_bw, the rate at which the cores move the hosts' socket
 * traffic (netns.lua), solved so that the simulator on the topology being
 * written gives back the measured ring broadcast over all ranks. A model
 * that is slower than measured even without that limit (the links limit
 * it) keeps the base's default, and net_note says so. */
static void solve_net(const cal_opts_t *o, const cal_rank_t *R, cal_result_t *r) {
  if (!R->d.net_ok) return;
  if (!base_reads(o->base_text, "sock_bw")) {
    snprintf(r->net_note, sizeof r->net_note, "the base reads no sock_bw");
    return;
  }
  char path[] = "/tmp/chorus-calibrate-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    snprintf(r->net_note, sizeof r->net_note, "a temporary topology: %s", strerror(errno));
    return;
  }
  close(fd);
  char sets[160] = "", err[2048] = "";
  if (base_reads(o->base_text, "hosts")) snprintf(sets, sizeof sets, "hosts=%d", R->nhosts);
  if (base_reads(o->base_text, "ppn"))
    snprintf(sets + strlen(sets), sizeof sets - strlen(sets), "%sppn=%d", sets[0] ? "," : "", R->d.per_host);
  if (base_reads(o->base_text, "cores"))
    snprintf(sets + strlen(sets), sizeof sets - strlen(sets), "%scores=%ld", sets[0] ? "," : "",
             sysconf(_SC_NPROCESSORS_ONLN));
  planner_req_t req = {.algo = "ring", .coll = chorus_broadcast, .nranks = R->nranks, .root = 0,
                       .shape = &R->comm->shape, .nchannels = 1};
  planner_err_t perr;
  const plan_t *p;
  double x = 0;
  if (write_topology(o, R, r, path) != 0)
    snprintf(err, sizeof err, "the temporary topology %s could not be written", path);
  else if (plan_cache_get(R->comm->cache, &req, 1, &p, &perr) != chorus_success)
    snprintf(err, sizeof err, "%s", perr.msg);
  else
    x = solve_rate(path, sets, "sock_bw", R->comm->geom.buffsize, p,
                   CAL_NET_SIZE / sizeof(float), CAL_NET_CALLS, r->net.median, err, sizeof err);
  unlink(path);
  if (x > 0)
    r->sock_bw = x;
  else
    snprintf(r->net_note, sizeof r->net_note, "not solved (%.200s): the base's default stays", err);
}

/* One link class's ping-pong table and its fit. */
static void print_class(const cal_opts_t *o, const cal_rank_t *R, const cal_result_t *r, int c) {
  const class_fit_t *f = &r->cls[c];
  if (!f->present) {
    printf("#\n# %s: no peer of that class (ranks %s)\n", class_names[c],
           c == CLASS_SHM ? "all on other hosts" : "all on rank 0's host");
    return;
  }
  printf("#\n# %s ping-pong, rank 0 <-> rank %d: half round trip, median of %d [95%% bootstrap CI]\n", class_names[c],
         R->d.peer[c], o->repeats);
  printf("#%11s %10s %21s %10s %8s\n", "size (B)", "time (us)", "CI (us)", "fit (us)", "resid");
  for (int i = 0; i < o->nsizes; i++) {
    double fit = class_eval(f, (double)o->sizes[i]);
    printf("%12zu %10.3f [%8.3f, %9.3f] %10.3f %7.2f%%\n", o->sizes[i], f->med[i] * 1e6, f->lo[i] * 1e6,
           f->hi[i] * 1e6, fit * 1e6, (f->med[i] - fit) / f->med[i] * 100);
  }
  if (f->two_piece)
    printf("# fit: two pieces (one line missed by %.1f%%), break near %.0f B: small t = %.3f us + s / %.3f GB/s, "
           "large t = %.3f us + s / %.3f GB/s\n",
           f->line.max_resid_rel * 100, f->two.break_x, f->two.lo.alpha * 1e6, f->two.lo.bw / 1e9,
           f->two.hi.alpha * 1e6, f->two.hi.bw / 1e9);
  else
    printf("# fit: one line t = %.3f us + s / %.3f GB/s\n", f->line.alpha * 1e6, f->line.bw / 1e9);
  printf("# %s: alpha %.3f us +- %.3f, bandwidth %.3f GB/s +- %.3f (95%%), R^2 %.5f, max residual %.2f%%\n",
         class_names[c], f->alpha * 1e6, f->alpha_ci * 1e6, f->bw / 1e9, f->bw_ci / 1e9, f->r2, f->max_resid * 100);
  const fit_line_t *large = f->two_piece ? &f->two.hi : &f->line;
  if (f->bw_ci > 0.5 * f->bw || large->n < 4)
    printf("# warning: %s bandwidth rests on %d sizes, +- %.0f%%: sweep further past the cache (--sizes 8:256M) or "
           "repeat more (--repeats)\n",
           class_names[c], large->n, f->bw_ci / f->bw * 100);
}

/* The local rates: kernels, small allreduces, the engine's ring rates. */
static void print_rates(const cal_opts_t *o, const cal_rank_t *R, const cal_result_t *r) {
  printf("#\n# local rates, median of %d [95%% bootstrap CI]\n", o->repeats);
  printf("  copy kernel      %8.3f GB/s [%.3f, %.3f]  (%zu MiB buffers, all ranks at once)\n", r->copy.median / 1e9,
         r->copy.lo / 1e9, r->copy.hi / 1e9, R->d.kbytes >> 20);
  printf("  reduce kernel    %8.3f GB/s [%.3f, %.3f]  (float sum, bytes of result)\n", r->reduce.median / 1e9,
         r->reduce.lo / 1e9, r->reduce.hi / 1e9);
  printf("  copy in cache    %8.3f GB/s [%.3f, %.3f]  (%zu KiB buffers x %d passes, all ranks at once)\n",
         r->ccopy.median / 1e9, r->ccopy.lo / 1e9, r->ccopy.hi / 1e9, R->d.cbytes >> 10, R->d.cinner);
  printf("  reduce in cache  %8.3f GB/s [%.3f, %.3f]\n", r->creduce.median / 1e9, r->creduce.lo / 1e9,
         r->creduce.hi / 1e9);
  printf("  allreduce 8 B, 1 rank  %8.3f us [%.3f, %.3f]\n", r->ar1.median * 1e6, r->ar1.lo * 1e6, r->ar1.hi * 1e6);
  printf("  allreduce 8 B, %d ranks (ring) %8.3f us [%.3f, %.3f]", R->nranks, r->arn.median * 1e6, r->arn.lo * 1e6,
         r->arn.hi * 1e6);
  if (R->nranks == 2 && R->nhosts == 1)
    printf("  (model: 2 step_lat + 3 op_overhead = %.3f us)", (2 * r->step_lat + 3 * r->op_overhead) * 1e6);
  printf("\n");
  if (R->d.eng_ok) {
    for (int k = 0; k < ENG_N; k++)
      for (int i = 0; i < CAL_ENGINE_NSIZES; i++) {
        printf("  ring %-9s %6zu KiB  %10.3f us [%.3f, %.3f]", eng_name[k],
               R->d.eng_size[i] >> 10, r->eng[k][i].median * 1e6, r->eng[k][i].lo * 1e6, r->eng[k][i].hi * 1e6);
        if (r->engine_solved && r->eng_rate[k][i] > 0)
          printf("  -> %s %.3f GB/s",
                 i == ENG_AT_BIG                          ? "mem_bw"
                 : three_levels(o, r) && i == ENG_AT_4M   ? "llc_bw"
                 : k == ENG_BCAST                         ? "copy_bw"
                                                          : "reduce_bw",
                 r->eng_rate[k][i] / 1e9);
        printf("\n");
      }
  }
}

/* The simulator parameters the fits give. */
static void print_params(const cal_rank_t *R, const cal_result_t *r) {
  printf("#\n# simulator parameters\n");
  if (r->engine_solved) {
    printf("  copy_bw      %9.3f GB/s  the model's rate for the ring broadcast measured (kernel in the cache %.3f)\n",
           r->copy_bw / 1e9, r->ccopy.median / 1e9);
    printf("  copy_local_bw %8.3f GB/s  copy kernel in the cache (a copy between a rank's own buffers)\n",
           r->ccopy.median / 1e9);
    printf("  reduce_bw    %9.3f GB/s  the model's rate for the ring reduce measured (kernel in the cache "
           "%.3f)\n",
           r->reduce_bw / 1e9, r->creduce.median / 1e9);
    printf("  mem_bw       %9.3f GB/s  the model's memory for both past the cache (2 x copy kernel x %d ranks %.3f)\n",
           r->mem_bw / 1e9, R->d.per_host, r->mem_bw_kernel / 1e9);
  } else {
    printf("  copy_bw      %9.3f GB/s  [%.3f, %.3f]  copy kernel in the cache\n", r->ccopy.median / 1e9,
           r->ccopy.lo / 1e9, r->ccopy.hi / 1e9);
    printf("  reduce_bw    %9.3f GB/s  [%.3f, %.3f]  reduce kernel in the cache\n", r->creduce.median / 1e9,
           r->creduce.lo / 1e9, r->creduce.hi / 1e9);
    if (r->engine_note[0]) printf("#   the engine's rates: %s\n", r->engine_note);
  }
  if (!r->engine_solved)
    printf("  mem_bw       %9.3f GB/s  2 x copy kernel x %d ranks of the host (reads and writes)\n", r->mem_bw / 1e9,
           R->d.per_host);
  if (R->d.llc) printf("  llc (sysfs)  %9.3f MiB   last-level cache / %d hosts\n", (double)R->d.llc / R->nhosts / 1048576, R->nhosts);
  if (R->d.nlvl) {
    printf("#\n# copy kernel by working set, all %d ranks of the machine at once (median of %d): GB/s per rank\n",
           R->d.per_machine, R->o->repeats);
    for (int i = 0; i < R->d.nlvl; i++)
      printf("  %8zu KiB per buffer, %9.1f MiB in all  %9.3f GB/s\n", R->d.lvl_bytes[i] >> 10,
             2.0 * (double)R->d.lvl_bytes[i] * R->d.per_machine / 1048576, r->lvl_rate[i] / 1e9);
    if (r->levels == 3)
      printf("  three levels: private caches to %.1f MiB, last-level cache to %.1f MiB (the machine's working set)\n",
             r->cache / 1048576, r->llc / 1048576);
    else if (r->levels == 2)
      printf("  two levels: a cache to %.1f MiB (the machine's working set), then memory\n", r->llc / 1048576);
    else
      printf("  no level found: sysfs's last-level cache stays\n");
  }
  if (r->cls[CLASS_SHM].present && R->d.wake_ok)
    printf("  wake_lat     %9.3f us    one CPU for both ranks: 8 B half round trip %.3f us [%.3f, %.3f] - shm alpha\n",
           r->wake_lat * 1e6, r->wake.median * 1e6, r->wake.lo * 1e6, r->wake.hi * 1e6);
  printf("  op_overhead  %9.3f us    [%.3f, %.3f]  one-rank allreduce\n", r->op_overhead * 1e6, r->ar1.lo * 1e6,
         r->ar1.hi * 1e6);
  printf("  step_lat     %9.3f us    +- %.3f  %s%s\n", r->step_lat * 1e6, r->cls[CLASS_SHM].alpha_ci * 1e6,
         r->step_lat_from, r->step_lat_clamped ? " (negative: clamped to 0)" : "");
  if (r->step_extra[0])
    printf("  step_extra   %s  (a step's latency by size beyond step_lat: one-step ping-pong - op_overhead - step_lat "
           "- 2 copies at copy_bw)\n", r->step_extra);
  if (R->d.net_ok) {
    printf("  ring broadcast %zu MiB over %d hosts %10.3f us [%.3f, %.3f]", CAL_NET_SIZE >> 20, R->nhosts,
           r->net.median * 1e6, r->net.lo * 1e6, r->net.hi * 1e6);
    if (r->sock_bw > 0)
      printf("  -> sock_bw %.3f GB/s (the cores' socket traffic, both directions)\n", r->sock_bw / 1e9);
    else
      printf("\n#   sock_bw: %s\n", r->net_note);
  }
  if (r->cls[CLASS_SOCK].present) {
    printf("  rate         %9.3f Gb/s  +- %.3f  socket ping-pong bandwidth\n", r->cls[CLASS_SOCK].bw * 8 / 1e9,
           r->cls[CLASS_SOCK].bw_ci * 8 / 1e9);
    printf("  delay        %9.3f us    +- %.3f  (socket alpha - op_overhead - step_lat) / 2 links%s\n", r->delay * 1e6,
           r->cls[CLASS_SOCK].alpha_ci / 2 * 1e6, r->delay_clamped ? " (negative: clamped to 0)" : "");
  }
}

/* A fit too poor to use silently: R^2 under CAL_WARN_R2 or a size missed by
 * more than CAL_WARN_RESID. */
#define CAL_WARN_R2 0.9
#define CAL_WARN_RESID 0.20
static int class_poor(const class_fit_t *k) {
  return k->present && (k->r2 < CAL_WARN_R2 || k->max_resid > CAL_WARN_RESID);
}

/* One line per poor fit, after `prefix` ("-- warning: " in the written file,
 * "# warning: " in the report); chorus exp copies the file's into
 * report.md. */
static void fit_warnings(FILE *f, const char *prefix, const cal_result_t *r) {
  for (int c = 0; c < NCLASSES; c++) {
    const class_fit_t *k = &r->cls[c];
    if (!class_poor(k)) continue;
    fprintf(f, "%s%s ping-pong fit is poor (R^2 %.3f, a size missed by %.1f%%; limits %.2f and %.0f%%): %s\n", prefix,
            class_names[c], k->r2, k->max_resid * 100, CAL_WARN_R2, CAL_WARN_RESID * 100,
            c == CLASS_SHM ? "step_lat (its alpha) is uncertain"
                           : "rate and delay (its bandwidth and alpha) are uncertain");
  }
  /* The kernels' rates in a core's own cache predict copies between cores
   * about 2x too fast (2026-12-03): never a silent fallback. */
  if (r->engine_solved && r->reduce_note[0])
    fprintf(f, "%sreduce_bw is copy_bw x the kernels' reduce/copy ratio, not solved: the ring reduce ran faster than "
               "its sender can copy at copy_bw (%.200s)\n",
            prefix, r->reduce_note);
  if (r->engine_failed)
    fprintf(f, "%scopy_bw, reduce_bw and mem_bw are the kernels' rates, not the engine's: the ring broadcast and "
               "reduce could not be solved here (%.200s); predictions between cores will be too fast\n",
            prefix, r->engine_note);
}

static void print_report(const cal_opts_t *o, const cal_rank_t *R, const cal_result_t *r) {
  printf("# chorus calibrate: %d ranks on %d hosts, %d sizes %zu..%zu B, %d repeats, kernels %s\n", R->nranks,
         R->nhosts, o->nsizes, o->sizes[0], o->sizes[o->nsizes - 1], o->repeats, kern_isa());
  for (int c = 0; c < NCLASSES; c++) print_class(o, R, r, c);
  print_rates(o, R, r);
  print_params(R, r);
  fit_warnings(stdout, "# warning: ", r);
  fflush(stdout);
}

static void cpu_model(char *buf, size_t len) {
  snprintf(buf, len, "unknown CPU");
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10)) continue;
    char *p = strchr(line, ':');
    if (!p) break;
    for (p++; *p == ' ' || *p == '\t'; p++) {
    }
    p[strcspn(p, "\n")] = 0;
    snprintf(buf, len, "%s", p);
    break;
  }
  fclose(f);
}

/* The calibrated topology into `path` (--out, or solve_engine's
 * temporary file). */
/* One value of the written topology: its parameter, value and where it
 * came from. */
typedef struct {
  const char *name;
  char value[512];
  char why[200];
} cal_entry_t;

/* "-- calib_set: ...": the measurements the written parameters came from,
 * one line (chorus exp copies it into compare.csv's calib_set column). */
static void calib_set_line(FILE *f, const cal_opts_t *o, const cal_rank_t *R, const cal_result_t *r) {
  fprintf(f, "-- calib_set: ");
  for (int c = 0; c < NCLASSES; c++)
    if (r->cls[c].present)
      fprintf(f, "%s ping-pong %zu B-%zu MiB, ", class_names[c], o->sizes[0], o->sizes[o->nsizes - 1] >> 20);
  fprintf(f, "copy and reduce kernels, 1-rank 8 B call");
  if (r->engine_solved)
    fprintf(f, ", ring broadcast and reduce of %g %g %g %g MiB on %d ranks", (double)R->d.eng_size[0] / 1048576,
            (double)R->d.eng_size[1] / 1048576, (double)R->d.eng_size[2] / 1048576,
            (double)R->d.eng_size[3] / 1048576, R->nranks);
  if (r->levels) fprintf(f, ", the copy kernel by working set");
  if (r->sock_bw > 0) fprintf(f, ", ring broadcast of %zu MiB over %d hosts", (size_t)CAL_NET_SIZE >> 20, R->nhosts);
  fprintf(f, " (no allreduce, allgather or reduce-scatter)\n");
}

/* The file's opening comment: when, where, how, and the fits' quality. */
static void write_notes(FILE *f, const cal_opts_t *o, const cal_rank_t *R, const cal_result_t *r) {
  char date[64], host[256] = "unknown", cpu[256];
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tm);
  gethostname(host, sizeof host - 1);
  cpu_model(cpu, sizeof cpu);
  fprintf(f, "-- Calibrated topology, written by `chorus calibrate` on %s.\n", date);
  fprintf(f, "-- machine: %s, %s; %d ranks on %d hosts; kernels %s\n", host, cpu, R->nranks, R->nhosts, kern_isa());
  fprintf(f, "-- command: %s\n", o->cmdline);
  fprintf(f, "-- base: %s\n", o->topo_path);
  calib_set_line(f, o, R, r);
  fit_warnings(f, "-- warning: ", r);
  fprintf(f, "--\n");
  fprintf(f, "-- How it works: a topology script cannot read another file (the sandbox only\n"
             "-- lets it require topologies/lib modules), so the base is copied below verbatim,\n"
             "-- after a local `param` that shadows the loader's: a name in `calibrated` gets\n"
             "-- its calibrated value as the default; --set still wins over it. A name the\n"
             "-- base does not read has no effect (marked 'not read by the base').\n--\n");
  fprintf(f, "-- Fit quality (t = alpha + size / bw per link class; weights 1/t^2; 95%% CIs):\n");
  for (int c = 0; c < NCLASSES; c++) {
    const class_fit_t *k = &r->cls[c];
    if (!k->present) continue;
    fprintf(f,
            "--   %s (rank 0 <-> %d), %s: alpha %.3f us +- %.3f, bw %.3f GB/s +- %.3f, R^2 %.5f, max residual %.2f%%",
            class_names[c], R->d.peer[c], k->two_piece ? "two pieces" : "one line", k->alpha * 1e6, k->alpha_ci * 1e6,
            k->bw / 1e9, k->bw_ci / 1e9, k->r2, k->max_resid * 100);
    if (k->two_piece) fprintf(f, ", break near %.0f B", k->two.break_x);
    fprintf(f, "\n");
  }
  fprintf(f, "--   copy kernel %.3f GB/s [%.3f, %.3f], %zu MiB buffers on all ranks at once (mem_bw below)\n",
          r->copy.median / 1e9, r->copy.lo / 1e9, r->copy.hi / 1e9, R->d.kbytes >> 20);
  if (r->cls[CLASS_SHM].present)
    fprintf(f, "--   shm ping-pong bandwidth %.3f GB/s +- %.3f (a cross-check of the memory model; not written)\n",
            r->cls[CLASS_SHM].bw / 1e9, r->cls[CLASS_SHM].bw_ci / 1e9);
  fprintf(f, "--   allreduce 8 B on %d ranks (ring): %.3f us [%.3f, %.3f]\n", R->nranks, r->arn.median * 1e6,
          r->arn.lo * 1e6, r->arn.hi * 1e6);
  fprintf(f, "--   sizes %zu..%zu B (%d), %d repeats, medians with bootstrap CIs (seeded MT19937)\n\n", o->sizes[0],
          o->sizes[o->nsizes - 1], o->nsizes, o->repeats);
}

/* The rates: copy, local copy, reduce, memory, and the cache. Appends to e
 * from n; returns the new count. */
static int rate_entries(const cal_rank_t *R, const cal_result_t *r, cal_entry_t *e, int n) {
  int l3 = three_levels(R->o, r);
  e[n] = (cal_entry_t){"copy_bw", "", ""};
  snprintf(e[n].value, sizeof e[n].value, "%.4gGB/s", r->copy_bw / 1e9);
  if (r->engine_solved && l3)
    snprintf(e[n].why, sizeof e[n].why,
             "the model's rate for the ring broadcast measured (%zu KiB, in the private caches; kernel in the cache "
             "%.2f)",
             R->d.eng_size[ENG_AT_PRIVATE] >> 10, r->ccopy.median / 1e9);
  else if (r->engine_solved)
    snprintf(e[n].why, sizeof e[n].why,
             "the model's rate for the ring broadcast measured (%zu KiB %.2f, %zu KiB %.2f; kernel in the cache %.2f)",
             R->d.eng_size[ENG_AT_1M] >> 10, r->eng_rate[ENG_BCAST][ENG_AT_1M] / 1e9, R->d.eng_size[ENG_AT_4M] >> 10,
             r->eng_rate[ENG_BCAST][ENG_AT_4M] / 1e9, r->ccopy.median / 1e9);
  else
    snprintf(e[n].why, sizeof e[n].why, "copy kernel in the cache, all ranks at once, [%.3f, %.3f] GB/s",
             r->ccopy.lo / 1e9, r->ccopy.hi / 1e9);
  n++;
  e[n] = (cal_entry_t){"copy_local_bw", "", ""};
  snprintf(e[n].value, sizeof e[n].value, "%.4gGB/s", r->ccopy.median / 1e9);
  snprintf(e[n].why, sizeof e[n].why, "copy kernel in the cache, all ranks at once, [%.3f, %.3f] GB/s",
           r->ccopy.lo / 1e9, r->ccopy.hi / 1e9);
  n++;
  e[n] = (cal_entry_t){"reduce_bw", "", ""};
  snprintf(e[n].value, sizeof e[n].value, "%.4gGB/s", r->reduce_bw / 1e9);
  if (r->engine_solved && r->reduce_note[0])
    snprintf(e[n].why, sizeof e[n].why,
             "estimated: copy_bw x the kernels' reduce/copy ratio in the cache (%.2f / %.2f); the ring reduce could not "
             "be solved (see the warning above)",
             r->creduce.median / 1e9, r->ccopy.median / 1e9);
  else if (r->engine_solved && l3)
    snprintf(e[n].why, sizeof e[n].why,
             "the model's rate for the ring reduce measured (%zu KiB, in the private caches; kernel in the cache "
             "%.2f)",
             R->d.eng_size[ENG_AT_PRIVATE] >> 10, r->creduce.median / 1e9);
  else if (r->engine_solved)
    snprintf(e[n].why, sizeof e[n].why,
             "the model's rate for the ring reduce measured (%zu KiB %.2f, %zu KiB %.2f; kernel in the cache "
             "%.2f)",
             R->d.eng_size[ENG_AT_1M] >> 10, r->eng_rate[ENG_REDUCE][ENG_AT_1M] / 1e9, R->d.eng_size[ENG_AT_4M] >> 10,
             r->eng_rate[ENG_REDUCE][ENG_AT_4M] / 1e9, r->creduce.median / 1e9);
  else
    snprintf(e[n].why, sizeof e[n].why, "reduce kernel in the cache, all ranks at once, [%.3f, %.3f] GB/s",
             r->creduce.lo / 1e9, r->creduce.hi / 1e9);
  n++;
  e[n] = (cal_entry_t){"mem_bw", "", ""};
  snprintf(e[n].value, sizeof e[n].value, "%.4gGB/s", r->mem_bw / 1e9);
  if (r->engine_solved)
    snprintf(e[n].why, sizeof e[n].why,
             "the model's memory for the ring broadcast %.2f and reduce %.2f of %zu MiB (2 x copy kernel x %d "
             "ranks %.2f)",
             r->eng_rate[ENG_BCAST][ENG_AT_BIG] / 1e9, r->eng_rate[ENG_REDUCE][ENG_AT_BIG] / 1e9,
             R->d.eng_size[ENG_AT_BIG] >> 20, R->d.per_host, r->mem_bw_kernel / 1e9);
  else
    snprintf(e[n].why, sizeof e[n].why, "2 x copy kernel rate x %d ranks of the host, %zu MiB buffers", R->d.per_host,
             R->d.kbytes >> 20);
  n++;
  if (r->levels >= 2) {
    e[n] = (cal_entry_t){"llc", "", ""};
    snprintf(e[n].value, sizeof e[n].value, "%.4gMiB", r->llc / R->nhosts / 1048576);
    snprintf(e[n].why, sizeof e[n].why,
             "where the copy kernel, all %d ranks of the machine at once, leaves its last cache level (working set "
             "of the machine / %d hosts; sysfs says %.4g MiB)",
             R->d.per_machine, R->nhosts, (double)R->d.llc / 1048576);
    n++;
  } else if (R->d.llc) {
    e[n] = (cal_entry_t){"llc", "", ""};
    snprintf(e[n].value, sizeof e[n].value, "%.4gMiB", (double)R->d.llc / R->nhosts / 1048576);
    snprintf(e[n].why, sizeof e[n].why, "last-level cache (sysfs) / %d hosts; the copy kernel showed no level",
             R->nhosts);
    n++;
  }
  if (l3) {
    e[n] = (cal_entry_t){"cache", "", ""};
    snprintf(e[n].value, sizeof e[n].value, "%.4gMiB", r->cache / R->nhosts / 1048576);
    snprintf(e[n].why, sizeof e[n].why,
             "where the copy kernel, all %d ranks of the machine at once, leaves the private caches (working set of "
             "the machine / %d hosts)",
             R->d.per_machine, R->nhosts);
    n++;
    e[n] = (cal_entry_t){"llc_bw", "", ""};
    snprintf(e[n].value, sizeof e[n].value, "%.4gGB/s", r->llc_bw / 1e9);
    if (r->llc_bw_solved)
      snprintf(e[n].why, sizeof e[n].why,
               "the model's last-level cache for the ring broadcast %.2f and reduce %.2f of %zu KiB (2 x copy kernel "
               "there x %d ranks %.2f)",
               r->eng_rate[ENG_BCAST][ENG_AT_4M] / 1e9, r->eng_rate[ENG_REDUCE][ENG_AT_4M] / 1e9,
               R->d.eng_size[ENG_AT_4M] >> 10, R->d.per_host, r->llc_bw_kernel / 1e9);
    else
      snprintf(e[n].why, sizeof e[n].why, "2 x copy kernel rate in the last-level cache x %d ranks of the host",
               R->d.per_host);
    n++;
  }
  return n;
}

/* The latencies and the network: op_overhead, step_lat, wake_lat, and with
 * sockets rate, delay and sock_bw. Appends to e from n; returns the new
 * count. */
static int latency_entries(const cal_rank_t *R, const cal_result_t *r, cal_entry_t *e, int n) {
  e[n] = (cal_entry_t){"op_overhead", "", ""};
  snprintf(e[n].value, sizeof e[n].value, "%.4gus", r->op_overhead * 1e6);
  snprintf(e[n].why, sizeof e[n].why, "8-byte allreduce on one rank, [%.3f, %.3f] us", r->ar1.lo * 1e6,
           r->ar1.hi * 1e6);
  n++;
  if (r->cls[CLASS_SHM].present) {
    e[n] = (cal_entry_t){"step_lat", "", ""};
    snprintf(e[n].value, sizeof e[n].value, "%.4gus", r->step_lat * 1e6);
    snprintf(e[n].why, sizeof e[n].why, "%s%s", r->step_lat_from, r->step_lat_clamped ? " (was negative: 0)" : "");
    n++;
  }
  if (r->step_extra[0]) {
    e[n] = (cal_entry_t){"step_extra", "", ""};
    snprintf(e[n].value, sizeof e[n].value, "%s", r->step_extra);
    snprintf(e[n].why, sizeof e[n].why,
             "a step's latency by size beyond step_lat: shm ping-pong of one step - op_overhead - step_lat - 2 copies "
             "at copy_bw (at most %.3f us)", r->step_extra_max * 1e6);
    n++;
  }
  if (r->cls[CLASS_SHM].present && R->d.wake_ok) {
    e[n] = (cal_entry_t){"wake_lat", "", ""};
    snprintf(e[n].value, sizeof e[n].value, "%.4gus", r->wake_lat * 1e6);
    snprintf(e[n].why, sizeof e[n].why, "2 ranks on one CPU: 8 B half round trip %.3f us [%.3f, %.3f] - shm alpha",
             r->wake.median * 1e6, r->wake.lo * 1e6, r->wake.hi * 1e6);
    n++;
  }
  if (r->cls[CLASS_SOCK].present) {
    e[n] = (cal_entry_t){"rate", "", ""};
    snprintf(e[n].value, sizeof e[n].value, "%.4gGb/s", r->cls[CLASS_SOCK].bw * 8 / 1e9);
    snprintf(e[n].why, sizeof e[n].why, "socket ping-pong bandwidth, +- %.3f Gb/s", r->cls[CLASS_SOCK].bw_ci * 8 / 1e9);
    n++;
    e[n] = (cal_entry_t){"delay", "", ""};
    snprintf(e[n].value, sizeof e[n].value, "%.4gus", r->delay * 1e6);
    snprintf(e[n].why, sizeof e[n].why, "(socket alpha - op_overhead - step_lat %.3g us) / 2 links%s",
             r->step_lat * 1e6, r->delay_clamped ? " (was negative: 0)" : "");
    n++;
  }
  if (r->sock_bw > 0) {
    e[n] = (cal_entry_t){"sock_bw", "", ""};
    snprintf(e[n].value, sizeof e[n].value, "%.4gGB/s", r->sock_bw / 1e9);
    snprintf(e[n].why, sizeof e[n].why, "the model's socket traffic for the ring broadcast of %zu MiB over %d hosts, %.1f us",
             CAL_NET_SIZE >> 20, R->nhosts, r->net.median * 1e6);
    n++;
  }
  return n;
}

static int write_topology(const cal_opts_t *o, const cal_rank_t *R, const cal_result_t *r, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "chorus calibrate: --out %s: %s\n", path, strerror(errno));
    return 1;
  }
  write_notes(f, o, R, r);
  cal_entry_t e[20];
  int n = latency_entries(R, r, e, rate_entries(R, r, e, 0));
  fprintf(f, "local calibrated = {\n");
  for (int i = 0; i < n; i++)
    fprintf(f, "  %-13s = \"%s\", -- %s%s\n", e[i].name, e[i].value, e[i].why,
            base_reads(o->base_text, e[i].name) ? "" : "; not read by the base");
  fprintf(f, "}\n\n");
  fprintf(f, "local loader_param = param\n"
             "-- A calibrated value replaces a string default (quantities with units); a\n"
             "-- numeric or boolean default is the base's own.\n"
             "local function param(name, default)\n"
             "  local v = calibrated[name]\n"
             "  if v ~= nil and type(default) == \"string\" then return loader_param(name, v) end\n"
             "  return loader_param(name, default)\n"
             "end\n\n");
  fprintf(f, "-- ---- the base topology, %s, verbatim ----\n", o->topo_path);
  fputs(o->base_text, f);
  if (o->base_text[0] && o->base_text[strlen(o->base_text) - 1] != '\n') fputc('\n', f);
  if (fclose(f) != 0) {
    fprintf(stderr, "chorus calibrate: --out %s: %s\n", path, strerror(errno));
    return 1;
  }
  if (path == o->out) printf("# wrote %s (chorus sim COLLECTIVE --topo %s)\n", path, path);
  return 0;
}

static int write_csv(const cal_opts_t *o, const cal_rank_t *R) {
  FILE *f = fopen(o->csv, "w");
  if (!f) {
    fprintf(stderr, "chorus calibrate: --csv %s: %s\n", o->csv, strerror(errno));
    return 1;
  }
  fprintf(f, "quantity,peer,size_bytes,iters,repeat,value,unit\n");
  for (int c = 0; c < NCLASSES; c++) {
    if (R->d.peer[c] < 0) continue;
    for (int i = 0; i < o->nsizes; i++)
      for (int r = 0; r < o->repeats; r++)
        fprintf(f, "%s_pingpong,%d,%zu,%d,%d,%.6f,us\n", class_names[c], R->d.peer[c], o->sizes[i],
                iters_for(o->sizes[i]), r, R->d.pp[c][i * o->repeats + r] * 1e6);
  }
  for (int i = 0; i < R->d.nlvl; i++)
    for (int r = 0; r < o->repeats; r++)
      fprintf(f, "copy_kernel_level,-1,%zu,%d,%d,%.6f,GB/s\n", R->d.lvl_bytes[i], R->d.lvl_passes[i], r,
              (double)R->d.lvl_bytes[i] * R->d.lvl_passes[i] / R->d.lvl_t[i * o->repeats + r] / 1e9);
  for (int r = 0; r < o->repeats; r++) {
    fprintf(f, "copy_kernel,-1,%zu,1,%d,%.6f,GB/s\n", R->d.kbytes, r, (double)R->d.kbytes / R->d.copy_t[r] / 1e9);
    fprintf(f, "reduce_kernel,-1,%zu,1,%d,%.6f,GB/s\n", R->d.kbytes, r, (double)R->d.kbytes / R->d.reduce_t[r] / 1e9);
    fprintf(f, "copy_kernel_cache,-1,%zu,%d,%d,%.6f,GB/s\n", R->d.cbytes, R->d.cinner, r,
            (double)R->d.cbytes * R->d.cinner / R->d.ccopy_t[r] / 1e9);
    fprintf(f, "reduce_kernel_cache,-1,%zu,%d,%d,%.6f,GB/s\n", R->d.cbytes, R->d.cinner, r,
            (double)R->d.cbytes * R->d.cinner / R->d.creduce_t[r] / 1e9);
    fprintf(f, "allreduce_1rank,-1,8,%d,%d,%.6f,us\n", CAL_AR_ITERS, r, R->d.ar1_t[r] * 1e6);
    fprintf(f, "allreduce_%dranks,-1,8,%d,%d,%.6f,us\n", R->nranks, CAL_AR_ITERS, r, R->d.arn_t[r] * 1e6);
  }
  if (R->d.net_ok)
    for (int r = 0; r < o->repeats; r++)
      fprintf(f, "ring_broadcast_hosts,-1,%zu,%d,%d,%.6f,us\n", CAL_NET_SIZE, CAL_NET_CALLS, r, R->d.net_t[r] * 1e6);
  if (R->d.eng_ok)
    for (int k = 0; k < ENG_N; k++)
      for (int i = 0; i < CAL_ENGINE_NSIZES; i++)
        for (int r = 0; r < o->repeats; r++)
          fprintf(f, "ring_%s,-1,%zu,%d,%d,%.6f,us\n", eng_name[k],
                  R->d.eng_size[i], i == CAL_ENGINE_NSIZES - 1 ? CAL_ENGINE_BIG_CALLS : CAL_ENGINE_CALLS, r,
                  R->d.eng_t[k][i * o->repeats + r] * 1e6);
  if (fclose(f) != 0) {
    fprintf(stderr, "chorus calibrate: --csv %s: %s\n", o->csv, strerror(errno));
    return 1;
  }
  return 0;
}

/* --- one rank --- */

static int run_rank(cal_rank_t *R) {
  const cal_opts_t *o = R->o;
  chorus_comm_count(R->comm, &R->nranks);
  chorus_comm_user_rank(R->comm, &R->rank);
  chorus_comm_nhosts(R->comm, &R->nhosts);
  if (R->nranks < 2) {
    if (R->rank == 0) fprintf(stderr, "chorus calibrate: %d rank: give at least 2 (-n 2)\n", R->nranks);
    return 2;
  }
  R->d.peer[CLASS_SHM] = R->d.peer[CLASS_SOCK] = -1;
  for (int q = 1; q < R->nranks; q++) {
    int cls = R->comm->host_of[q] == R->comm->host_of[0] ? CLASS_SHM : CLASS_SOCK;
    if (R->d.peer[cls] < 0) R->d.peer[cls] = q;
  }
  for (int q = 0; q < R->nranks; q++) R->d.per_host += R->comm->host_of[q] == R->comm->host_of[0];
  int status = 1;
  size_t n = (size_t)o->nsizes * (size_t)o->repeats, m = (size_t)o->repeats;
  R->d.pp[0] = calloc(n, sizeof(double));
  R->d.pp[1] = calloc(n, sizeof(double));
  R->d.copy_t = calloc(m, sizeof(double));
  R->d.reduce_t = calloc(m, sizeof(double));
  R->d.ar1_t = calloc(m, sizeof(double));
  R->d.arn_t = calloc(m, sizeof(double));
  R->d.ccopy_t = calloc(m, sizeof(double));
  R->d.creduce_t = calloc(m, sizeof(double));
  R->d.wake_t = calloc(m, sizeof(double));
  for (int k = 0; k < ENG_N; k++) R->d.eng_t[k] = calloc(m * CAL_ENGINE_NSIZES, sizeof(double));
  R->d.net_t = calloc(m, sizeof(double));
  R->d.lvl_t = calloc(m * CAL_LEVEL_SIZES, sizeof(double));
  R->d.per_machine = R->comm->nmachine;
  double *trip = calloc(CAL_MAX_ITERS, sizeof(double));
  if (!trip || posix_memalign((void **)&R->buf, 4096, o->maxb) || !R->d.pp[0] || !R->d.pp[1] || !R->d.copy_t ||
      !R->d.reduce_t || !R->d.ar1_t || !R->d.arn_t || !R->d.ccopy_t || !R->d.creduce_t || !R->d.wake_t || !R->d.eng_t[0] || !R->d.eng_t[1] || !R->d.net_t || !R->d.lvl_t) {
    fprintf(stderr, "chorus calibrate: rank %d: cannot allocate buffers of %zu bytes\n", R->rank, o->maxb);
    goto cleanup;
  }
  memset(R->buf, 1, o->maxb); /* touch every page before timing */
  chorus_result_t res = barrier(R->comm);
  for (int c = 0; c < NCLASSES && res == chorus_success; c++) {
    res = sweep(R, c, trip);
    if (res == chorus_success) res = barrier(R->comm);
  }
  if (res == chorus_success) res = handoff(R, trip);
  if (res == chorus_success) res = barrier(R->comm);
  if (res == chorus_success) res = kernels(R);
  if (res == chorus_success) res = overheads(R);
  if (res == chorus_success) res = engine_calls(R);
  if (res != chorus_success) {
    fprintf(stderr, "chorus calibrate: rank %d: %s: %s\n", R->rank, chorus_result_string(res), chorus_last_error());
    goto cleanup;
  }
  status = 0;
  if (R->rank == 0) {
    cal_result_t r;
    res = analyse(o, &R->d, &r);
    if (res != chorus_success) {
      fprintf(stderr, "chorus calibrate: fit failed: %s\n", chorus_last_error());
      status = 1;
      goto cleanup;
    }
    /* copy_bw is solved with the step latency by size in the model, and
     * that latency read with copy_bw: one refinement of each. */
    solve_engine(o, R, &r);
    if (base_reads(o->base_text, "step_extra")) {
      step_extra(o, &r);
      if (r.engine_solved) {
        solve_engine(o, R, &r);
        step_extra(o, &r);
      }
    }
    solve_net(o, R, &r);
    print_report(o, R, &r);
    if (o->csv) status |= write_csv(o, R);
    if (o->out) status |= write_topology(o, R, &r, o->out);
  }
cleanup:
  free(trip);
  free(R->buf);
  for (int c = 0; c < NCLASSES; c++)
    free(R->d.pp[c]);
  free(R->d.copy_t), free(R->d.reduce_t), free(R->d.ar1_t), free(R->d.arn_t);
  free(R->d.ccopy_t), free(R->d.creduce_t), free(R->d.wake_t);
  for (int k = 0; k < ENG_N; k++) free(R->d.eng_t[k]);
  free(R->d.net_t);
  free(R->d.lvl_t);
  return status;
}

/* --- options and launching --- */

static int usage(FILE *f) {
  fprintf(f, "usage: chorus calibrate [-n RANKS] [--sizes MIN:MAX] [--repeats R] [--topo BASE] [--out FILE]\n"
             "                        [--csv FILE]\n\n"
             "Measures point-to-point send/recv between rank 0 and a peer on its host (shm) and on another\n"
             "host (socket, when the ranks span hosts), the copy and reduce kernels and the per-call cost;\n"
             "fits latency and bandwidth per link class (least squares, two pieces where one line does not\n"
             "fit) and prints them with 95%% confidence intervals, R^2 and residuals. On one host the\n"
             "written copy_bw and reduce_bw are the rates at which the simulator gives back the measured\n"
             "ring broadcast and reduce (256 KiB-4 MiB; llc_bw and mem_bw past the caches, whose levels\n"
             "the copy kernel by working set finds): the engine's copies and\n"
             "reductions between cores, one way. No allreduce, allgather or reduce-scatter is measured:\n"
             "the experiments validate those.\n\n"
             "  -n N           fork N local ranks (default: the launcher's ranks, else 2)\n"
             "  --sizes A:B    message sizes from A to B bytes, doubling (K, M, G suffixes; default 8:64M)\n"
             "  --repeats R    samples per size, 2 or more (default 5): medians and bootstrap CIs\n"
             "  --topo BASE    topology whose parameters get the fitted values (file or name in\n"
             "                 topologies/; default local-cpu on one host, netns across hosts)\n"
             "  --out FILE     write BASE with the fitted values as its parameter defaults, for\n"
             "                 chorus sim --topo FILE\n"
             "  --csv FILE     write every raw sample\n");
  return f == stderr ? 2 : 0;
}

/* A sweep size: at least 1 byte (before its unit), at most 1 GiB. */
static int parse_bytes(const char *s, size_t *out) {
  return param_parse_bytes(s, out) || *out < 1 || *out > (1u << 30) ? -1 : 0;
}

static int parse_sizes(const char *arg, cal_opts_t *o) {
  const char *colon = strchr(arg, ':');
  char a[64];
  if (!colon || (size_t)(colon - arg) >= sizeof a) goto bad;
  memcpy(a, arg, (size_t)(colon - arg));
  a[colon - arg] = 0;
  if (parse_bytes(a, &o->minb) || parse_bytes(colon + 1, &o->maxb)) goto bad;
  if (o->minb >= o->maxb) {
    fprintf(stderr, "chorus calibrate: --sizes %s: the smallest size must be below the largest\n", arg);
    return -1;
  }
  return 0;
bad:
  fprintf(stderr,
          "chorus calibrate: --sizes '%s': expected MIN:MAX in bytes, 1 to 1G, with K, M or G suffixes (e.g. "
          "8:64M)\n",
          arg);
  return -1;
}

/* The base topology: a readable file as given, else NAME or NAME.lua in
 * $CHORUS_TOPOLOGIES, else in the topologies/ folder beside the algorithm
 * library (the source tree's, or an installed share/chorus/). The engine
 * does not link the simulator's loader (sim/ sits above engine/), so this
 * follows the same rule by itself. */
static int read_base(cal_opts_t *o, const char *name) {
  size_t l = strlen(name);
  int has_ext = l > 4 && !strcmp(name + l - 4, ".lua");
  const char *env = param_str(PARAM_TOPOLOGIES);
  char beside[1024];
  snprintf(beside, sizeof beside, "%s", planner_algos_dir());
  char *slash = strrchr(beside, '/');
  if (slash)
    snprintf(slash + 1, sizeof beside - (size_t)(slash + 1 - beside), "topologies");
  else
    snprintf(beside, sizeof beside, "topologies");
  const char *dirs[2] = {*env ? env : beside, beside};
  snprintf(o->topo_path, sizeof o->topo_path, "%s", name);
  struct stat st;
  int found = stat(o->topo_path, &st) == 0 && S_ISREG(st.st_mode);
  for (int i = 0; i < 2 && !found && !strchr(name, '/'); i++) {
    snprintf(o->topo_path, sizeof o->topo_path, "%s/%s%s", dirs[i], name, has_ext ? "" : ".lua");
    found = stat(o->topo_path, &st) == 0 && S_ISREG(st.st_mode);
  }
  FILE *f = found ? fopen(o->topo_path, "r") : NULL;
  if (!f) {
    fprintf(stderr, "chorus calibrate: --topo %s: no such topology (not a readable file, nor %s/%s%s)\n", name, dirs[0],
            name, has_ext ? "" : ".lua");
    return -1;
  }
  o->base_text = malloc((size_t)st.st_size + 1);
  size_t got = o->base_text ? fread(o->base_text, 1, (size_t)st.st_size, f) : 0;
  fclose(f);
  if (!o->base_text || got != (size_t)st.st_size) {
    fprintf(stderr, "chorus calibrate: --topo %s: cannot read %s\n", name, o->topo_path);
    free(o->base_text);
    o->base_text = NULL;
    return -1;
  }
  o->base_text[got] = 0;
  return 0;
}

static int parse_int(const char *s, int *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (end == s || *end || errno || v < -1000000 || v > 1000000) return -1;
  *out = (int)v;
  return 0;
}

/* A forked rank (-n N): its communicator is ranks_fork's. */
static int forked_rank(chorus_comm_t *comm, int rank, void *arg) {
  cal_rank_t R = {.o = arg, .comm = comm};
  return run_rank(&R);
}

static int launch_forked(cal_opts_t *o) { return ranks_fork("chorus calibrate", o->nranks, forked_rank, o); }

int cmd_calibrate(int argc, char **argv) {
  cal_opts_t o = {.minb = 8, .maxb = 64u << 20, .repeats = 5};
  static const struct option longs[] = {{"sizes", required_argument, NULL, 'S'},
                                        {"repeats", required_argument, NULL, 'R'},
                                        {"topo", required_argument, NULL, 't'},
                                        {"out", required_argument, NULL, 'O'},
                                        {"csv", required_argument, NULL, 'C'},
                                        {"help", no_argument, NULL, 'h'},
                                        {NULL, 0, NULL, 0}};
  size_t off = 0;
  for (int i = 0; i < argc && off < sizeof o.cmdline; i++)
    off += snprintf(o.cmdline + off, sizeof o.cmdline - off, "%s%s", i ? " " : "chorus ", argv[i]);
  int nset = 0, c;
  optind = 1;
  while ((c = getopt_long(argc, argv, "n:h", longs, NULL)) != -1) {
    switch (c) {
    case 'n':
      if (parse_int(optarg, &o.nranks) || o.nranks < 2 || o.nranks > PLAN_MAX_RANKS) {
        fprintf(stderr, "chorus calibrate: -n %s: give 2 to %d ranks (rank 0 needs a peer to ping-pong with)\n", optarg,
                PLAN_MAX_RANKS);
        return 2;
      }
      nset = 1;
      break;
    case 'S':
      if (parse_sizes(optarg, &o)) return 2;
      break;
    case 'R':
      if (parse_int(optarg, &o.repeats) || o.repeats < 2 || o.repeats > 1000) {
        fprintf(stderr, "chorus calibrate: --repeats %s: give 2 to 1000 (a confidence interval needs 2 samples)\n",
                optarg);
        return 2;
      }
      break;
    case 't':
      o.topo = optarg;
      break;
    case 'O':
      o.out = optarg;
      break;
    case 'C':
      o.csv = optarg;
      break;
    case 'h':
      return usage(stdout);
    default:
      return usage(stderr);
    }
  }
  if (optind < argc) {
    fprintf(stderr, "chorus calibrate: unexpected argument '%s'\n", argv[optind]);
    return usage(stderr);
  }
  for (size_t s = o.minb; s <= o.maxb && o.nsizes < CAL_MAX_SIZES; s *= 2)
    o.sizes[o.nsizes++] = s;
  if (o.nsizes < 3) {
    fprintf(stderr, "chorus calibrate: --sizes %zu:%zu gives %d sizes; a fit needs at least 3 (doubling)\n", o.minb,
            o.maxb, o.nsizes);
    return 2;
  }
  o.maxb = o.sizes[o.nsizes - 1];
  launcher_env_t launcher;
  int from_env = !nset && launcher_env(&launcher);
  /* Across hosts the shipped testbed is netns.lua; on one host local-cpu. */
  if (read_base(&o, o.topo ? o.topo : from_env ? "netns" : "local-cpu")) return 2;
  int st;
  if (from_env) {
    cal_rank_t R = {.o = &o};
    chorus_result_t res = chorus_comm_init_env(&R.comm);
    if (res != chorus_success) {
      fprintf(stderr, "chorus calibrate: %s: %s\n", chorus_result_string(res), chorus_last_error());
      free(o.base_text);
      return 1;
    }
    st = run_rank(&R);
    chorus_comm_destroy(R.comm);
  } else {
    if (!nset) o.nranks = 2;
    st = launch_forked(&o);
  }
  free(o.base_text);
  return st;
}
