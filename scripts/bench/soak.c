/* soak.c -- the soak benchmark: N collectives (default 100000) across R
 * forked ranks (default 4), each of a random collective, count, data type,
 * op, algorithm and root drawn from one seed, so every rank draws the same
 * sequence. Every element of every result is checked against a value
 * computed here; the resident set size is sampled from /proc/self/statm
 * every 10000 calls (steady memory: no growth after the warm-up).
 * Usage: soak_bench [-n CALLS] [-r RANKS] [-s SEED] [-m MAXCOUNT]
 * Prints "rss" lines per sample and one "done" line per rank; exits non-zero
 * on any wrong element or failed call. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chorus.h"
#include "comm.h"
#include "exec.h"

#define SOAK_SAMPLE_EVERY 10000

typedef struct {
  long calls;
  int nranks;
  uint64_t seed;
  size_t maxcount;
} soak_opts_t;

/* The algorithms each collective may be forced to; "" lets the tuner choose. */
static const char *const algos[chorus_num_collectives][6] = {
    [chorus_allreduce] = {"", "ring", "tree", "hybrid", "rd", "rhd"},
    [chorus_broadcast] = {"", "ring", "tree"},
    [chorus_reduce] = {"", "ring", "tree"},
    [chorus_allgather] = {"", "ring", "direct"},
    [chorus_reducescatter] = {"", "ring"},
    [chorus_alltoall] = {"", "direct"},
};

static uint64_t next(uint64_t *s) {
  /* xorshift64*: the same on every rank for the same seed. */
  *s ^= *s >> 12, *s ^= *s << 25, *s ^= *s >> 27;
  return *s * 0x2545f4914f6cdd1dull;
}

typedef struct {
  chorus_coll_t coll;
  chorus_dtype_t dt;
  chorus_redop_t op;
  const char *algo;
  int root;
  size_t count;
} call_desc_t;

static call_desc_t draw(uint64_t *s, const soak_opts_t *o) {
  call_desc_t d;
  d.coll = (chorus_coll_t)(next(s) % chorus_num_collectives);
  int nalg = 0;
  while (nalg < 6 && algos[d.coll][nalg]) nalg++;
  d.algo = algos[d.coll][next(s) % (uint64_t)nalg];
  d.dt = (chorus_dtype_t)(next(s) % chorus_num_dtypes);
  d.op = (chorus_redop_t)(next(s) % chorus_num_redops);
  d.root = (int)(next(s) % (uint64_t)o->nranks);
  /* Log-uniform counts, 0 and small ones often, up to maxcount. */
  int bits = 0;
  while (((size_t)1 << bits) < o->maxcount) bits++;
  size_t cap = (size_t)1 << (next(s) % (uint64_t)(bits + 1));
  d.count = (size_t)(next(s) % (cap + 1));
  if (d.count > o->maxcount) d.count = o->maxcount;
  return d;
}

/* Inputs are small integers (1..3 for prod, 0..3 otherwise), so that every
 * sum, product, min, max and average is exact in every type, fp16 included. */
static int input(int rank, size_t i, long k, chorus_redop_t op) {
  return op == chorus_prod ? (int)((rank + i + (size_t)k) % 3) + 1 : (int)((rank * 3 + i + (size_t)k) % 4);
}

static uint16_t half_of(int v) { return v == 0 ? 0 : v == 1 ? 0x3c00 : v == 2 ? 0x4000 : 0x4200; }
static uint16_t bf16_of(int v) { return v == 0 ? 0 : v == 1 ? 0x3f80 : v == 2 ? 0x4000 : 0x4040; }

static double half_value(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? NAN : ldexp(m | 1024, e - 25);
  return (h >> 15) ? -v : v;
}

static double bf16_value(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static void put(void *buf, size_t i, chorus_dtype_t dt, int v) {
  switch (dt) {
  case chorus_int8: ((int8_t *)buf)[i] = (int8_t)v; break;
  case chorus_uint8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
  case chorus_int32: ((int32_t *)buf)[i] = v; break;
  case chorus_uint32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
  case chorus_int64: ((int64_t *)buf)[i] = v; break;
  case chorus_uint64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
  case chorus_float16: ((uint16_t *)buf)[i] = half_of(v); break;
  case chorus_bfloat16: ((uint16_t *)buf)[i] = bf16_of(v); break;
  case chorus_float32: ((float *)buf)[i] = (float)v; break;
  default: ((double *)buf)[i] = v; break;
  }
}

static double get(const void *buf, size_t i, chorus_dtype_t dt) {
  switch (dt) {
  case chorus_int8: return ((const int8_t *)buf)[i];
  case chorus_uint8: return ((const uint8_t *)buf)[i];
  case chorus_int32: return ((const int32_t *)buf)[i];
  case chorus_uint32: return ((const uint32_t *)buf)[i];
  case chorus_int64: return (double)((const int64_t *)buf)[i];
  case chorus_uint64: return (double)((const uint64_t *)buf)[i];
  case chorus_float16: return half_value(((const uint16_t *)buf)[i]);
  case chorus_bfloat16: return bf16_value(((const uint16_t *)buf)[i]);
  case chorus_float32: return ((const float *)buf)[i];
  default: return ((const double *)buf)[i];
  }
}

static int is_float(chorus_dtype_t dt) { return dt >= chorus_float16; }

static const char *op_name(chorus_redop_t op) {
  static const char *const names[chorus_num_redops] = {"sum", "prod", "min", "max", "avg"};
  return names[op];
}

/* The reduction of element i (of the full send buffer) across all ranks. */
static double reduced(const call_desc_t *d, size_t i, long k, int nranks) {
  double acc = input(0, i, k, d->op);
  for (int q = 1; q < nranks; q++) {
    double v = input(q, i, k, d->op);
    switch (d->op) {
    case chorus_prod: acc *= v; break;
    case chorus_min: acc = v < acc ? v : acc; break;
    case chorus_max: acc = v > acc ? v : acc; break;
    default: acc += v; break;
    }
  }
  if (d->op == chorus_avg) acc = is_float(d->dt) ? acc / nranks : trunc(acc / nranks);
  return acc;
}

static long rss_kb(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  long size = 0, res = 0;
  if (f) {
    if (fscanf(f, "%ld %ld", &size, &res) != 2) res = 0;
    fclose(f);
  }
  return res * (sysconf(_SC_PAGESIZE) / 1024);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One rank's soak; returns the process exit status. */
static int rank_main(chorus_comm_t *c, int rank, const soak_opts_t *o) {
  int n = o->nranks;
  size_t elems = o->maxcount * (size_t)n;
  char *sb = malloc(elems * 8 + 64), *rb = malloc(elems * 8 + 64);
  if (!sb || !rb) return 2;
  uint64_t s = o->seed ? o->seed : 1;
  long wrong = 0, failed = 0, declined = 0, first_wrong = -1;
  long rss0 = rss_kb(), rss_warm = 0;
  double t0 = now();
  for (long k = 0; k < o->calls; k++) {
    call_desc_t d = draw(&s, o);
    size_t es = chorus_dtype_size(d.dt);
    /* Element counts of the send and receive buffers. */
    size_t ns = d.count, nr = d.count;
    if (d.coll == chorus_allgather) nr = d.count * (size_t)n;
    if (d.coll == chorus_reducescatter || d.coll == chorus_alltoall) ns = d.count * (size_t)n;
    if (d.coll == chorus_alltoall) nr = d.count * (size_t)n;
    for (size_t i = 0; i < ns; i++) put(sb, i, d.dt, input(rank, i, k, d.op));
    memset(rb, 0xee, nr * es);
    exec_force(c, d.algo, 0);
    chorus_result_t res = chorus_run_collective(d.coll, sb, rb, d.count, d.dt, d.op, d.root, c, NULL);
    if (res != chorus_success) {
      /* A shape the algorithm declines fails alike on every rank before any data moves. */
      if (res == chorus_invalid_usage && strstr(chorus_last_error(), "not supported")) {
        declined++;
        continue;
      }
      if (!failed) fprintf(stderr, "soak: rank %d call %ld (%s %s): %s\n", rank, k, chorus_coll_name(d.coll), d.algo,
                           chorus_last_error());
      failed++;
      break;
    }
    long bad = 0;
    for (size_t i = 0; i < nr && d.coll != chorus_reduce; i++) {
      double want;
      switch (d.coll) {
      case chorus_allreduce: want = reduced(&d, i, k, n); break;
      case chorus_broadcast: want = input(d.root, i, k, d.op); break;
      case chorus_allgather: want = input((int)(i / d.count), i % d.count, k, d.op); break;
      case chorus_reducescatter: want = reduced(&d, (size_t)rank * d.count + i, k, n); break;
      default: want = input((int)(i / d.count), (size_t)rank * d.count + i % d.count, k, d.op); break;
      }
      bad += get(rb, i, d.dt) != want;
    }
    if (d.coll == chorus_reduce && rank == d.root)
      for (size_t i = 0; i < nr; i++) bad += get(rb, i, d.dt) != reduced(&d, i, k, n);
    if (bad && first_wrong < 0) {
      first_wrong = k;
      fprintf(stderr, "soak: rank %d call %ld: %ld wrong elements (%s %s %s %s count %zu root %d)\n", rank, k, bad,
              chorus_coll_name(d.coll), d.algo[0] ? d.algo : "(tuner)", chorus_dtype_name(d.dt), op_name(d.op), d.count,
              d.root);
    }
    wrong += bad != 0;
    if ((k + 1) % SOAK_SAMPLE_EVERY == 0) {
      long r = rss_kb();
      if (k + 1 == SOAK_SAMPLE_EVERY) rss_warm = r;
      printf("rss rank=%d calls=%ld rss_kb=%ld\n", rank, k + 1, r);
      fflush(stdout);
    }
  }
  double dt = now() - t0;
  if (o->calls % SOAK_SAMPLE_EVERY) printf("rss rank=%d calls=%ld rss_kb=%ld\n", rank, o->calls, rss_kb());
  printf("done rank=%d calls=%ld wrong=%ld failed=%ld declined=%ld seconds=%.1f rss_start_kb=%ld rss_warm_kb=%ld "
         "rss_end_kb=%ld\n",
         rank, o->calls, wrong, failed, declined, dt, rss0, rss_warm, rss_kb());
  fflush(stdout);
  free(sb);
  free(rb);
  return wrong || failed ? 1 : 0;
}

int main(int argc, char **argv) {
  soak_opts_t o = {.calls = 100000, .nranks = 4, .seed = 1, .maxcount = 16384};
  for (int opt; (opt = getopt(argc, argv, "n:r:s:m:h")) != -1;) {
    switch (opt) {
    case 'n': o.calls = atol(optarg); break;
    case 'r': o.nranks = atoi(optarg); break;
    case 's': o.seed = strtoull(optarg, NULL, 0); break;
    case 'm': o.maxcount = (size_t)atol(optarg); break;
    default:
      fprintf(stderr, "usage: soak_bench [-n CALLS] [-r RANKS] [-s SEED] [-m MAXCOUNT]\n"
                      "  N random collectives on R forked ranks, every result checked, RSS sampled.\n");
      return opt == 'h' ? 0 : 2;
    }
  }
  if (o.nranks < 1 || o.nranks > 64 || o.calls < 0 || o.maxcount < 1) {
    fprintf(stderr, "soak_bench: ranks 1..64, calls >= 0, maxcount >= 1\n");
    return 2;
  }
  /* Fork before any thread exists: rank 0 makes the id and pipes it on. */
  int idpipe[2];
  if (pipe(idpipe) != 0) return 2;
  pid_t pids[64];
  for (int r = 0; r < o.nranks; r++) {
    pids[r] = fork();
    if (pids[r] < 0) {
      fprintf(stderr, "soak_bench: fork: %s\n", strerror(errno));
      return 2;
    }
    if (pids[r] == 0) {
      chorus_unique_id_t id;
      if (r == 0) {
        if (chorus_get_unique_id(&id) != chorus_success) _exit(2);
        for (int q = 1; q < o.nranks; q++)
          if (write(idpipe[1], &id, sizeof id) != (ssize_t)sizeof id) _exit(2);
      } else if (read(idpipe[0], &id, sizeof id) != (ssize_t)sizeof id) {
        _exit(2);
      }
      close(idpipe[0]);
      close(idpipe[1]);
      chorus_comm_t *c;
      if (chorus_comm_init_rank(&c, o.nranks, id, r) != chorus_success) {
        fprintf(stderr, "soak: rank %d: %s\n", r, chorus_last_error());
        _exit(2);
      }
      int st = rank_main(c, r, &o);
      chorus_comm_destroy(c);
      exit(st); /* exit, not _exit: leak checkers report at exit */
    }
  }
  close(idpipe[0]);
  close(idpipe[1]);
  int status = 0;
  for (int r = 0; r < o.nranks; r++) {
    int st;
    waitpid(pids[r], &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
      fprintf(stderr, "soak_bench: rank %d ended with status %#x\n", r, st);
      status = 1;
    }
  }
  return status;
}
