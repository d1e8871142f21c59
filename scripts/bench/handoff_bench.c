/* handoff_bench.c -- how fast one core writes a step that another core then
 * reads, by each way the executor can write it: the shared-memory transport's
 * case, where a sender's slot was last read by its peer's core, so every line
 * it writes is first taken back from that core.
 *
 * Two threads, pinned to CPUs 0 and 1, take turns on one slot of --size KiB
 * (default 128, the engine's step of a 512 KiB chunk): the writer fills it
 * from its own inputs (in its cache), the reader copies it out (as a
 * receive does) and hands it back. Ways of writing:
 *   copy          memcpy(slot, a)                          (a send)
 *   reduce        kern_reduce(slot, a, b)                  (a reduce that sends on)
 *   reduce_tiled  kern_reduce into a 16 KiB local tile, then memcpy of the
 *                 tile into the slot, tile by tile
 *   reduce2       kern_reduce2(dst, slot, a, b): the result kept in dst and
 *                 sent (the executor's recv_reduce_copy_send)
 * GB/s is bytes of the slot per second of the writer's time alone, median of
 * --reps repeats of --iters hand-offs. Needs 2 CPUs (exits 77 otherwise).
 *
 * Usage: bench_handoff [--size KiB] [--iters N] [--reps N] */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "kernels.h"

#define TILE_BYTES ((size_t)16 << 10)
enum { W_COPY, W_REDUCE, W_TILED, W_REDUCE2, W_N };
static const char *const way_names[W_N] = {"copy", "reduce", "reduce_tiled", "reduce2"};

typedef struct {
  size_t bytes;
  int iters, way;
  float *slot, *a, *b, *dst, *rdst, *tile;
  _Atomic int turn; /* 0: the writer's, 1: the reader's, 2: stop */
  double write_s;   /* the writer's time of one pass */
} bench_t;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void write_slot(bench_t *B) {
  size_t n = B->bytes / sizeof(float);
  switch (B->way) {
  case W_COPY: kern_copy(B->slot, B->a, B->bytes); break;
  case W_REDUCE: kern_reduce(B->slot, B->a, B->b, n, chorus_float32, chorus_sum); break;
  case W_TILED:
    for (size_t off = 0; off < n; off += TILE_BYTES / sizeof(float)) {
      size_t k = n - off < TILE_BYTES / sizeof(float) ? n - off : TILE_BYTES / sizeof(float);
      kern_reduce(B->tile, B->a + off, B->b + off, k, chorus_float32, chorus_sum);
      kern_copy(B->slot + off, B->tile, k * sizeof(float));
    }
    break;
  default: kern_reduce2(B->dst, B->slot, B->a, B->b, n, chorus_float32, chorus_sum); break;
  }
}

static void *reader(void *arg) {
  bench_t *B = arg;
  if (pin(1) != 0) return (void *)1;
  for (;;) {
    int t;
    while ((t = atomic_load_explicit(&B->turn, memory_order_acquire)) == 0) {
    }
    if (t == 2) return NULL;
    kern_copy(B->rdst, B->slot, B->bytes);
    atomic_store_explicit(&B->turn, 0, memory_order_release);
  }
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

int main(int argc, char **argv) {
  size_t kib = 128;
  int iters = 2000, reps = 9;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--size") == 0) kib = strtoul(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--iters") == 0) iters = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[i + 1]);
    else {
      fprintf(stderr, "usage: bench_handoff [--size KiB] [--iters N] [--reps N]\n");
      return 2;
    }
  }
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
    printf("# bench_handoff: skipped: needs 2 CPUs\n");
    return 77;
  }
  if (kib < 16 || iters < 1 || reps < 1 || reps > 99) {
    fprintf(stderr, "bench_handoff: --size >= 16 KiB, --iters >= 1, --reps 1..99\n");
    return 2;
  }
  bench_t B = {.bytes = kib << 10, .iters = iters};
  float **bufs[] = {&B.slot, &B.a, &B.b, &B.dst, &B.rdst, &B.tile};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) {
    if (posix_memalign((void **)bufs[i], 4096, B.bytes)) {
      fprintf(stderr, "bench_handoff: out of memory\n");
      return 1;
    }
    for (size_t k = 0; k < B.bytes / sizeof(float); k++) (*bufs[i])[k] = (float)(k & 7);
  }
  printf("# bench_handoff: kernels %s, slot %zu KiB written on CPU 0 and read on CPU 1, %d hand-offs x %d repeats\n",
         kern_isa(), kib, iters, reps);
  printf("%-14s %12s %12s\n", "way", "median_GBps", "best_GBps");
  if (pin(0) != 0) {
    printf("# bench_handoff: skipped: cannot pin to CPU 0\n");
    return 77;
  }
  for (int w = 0; w < W_N; w++) {
    double rate[99];
    for (int r = 0; r < reps; r++) {
      B.way = w;
      atomic_store(&B.turn, 0);
      pthread_t th;
      if (pthread_create(&th, NULL, reader, &B) != 0) return 1;
      double spent = 0;
      for (int i = 0; i < iters; i++) {
        while (atomic_load_explicit(&B.turn, memory_order_acquire) != 0) {
        }
        double t0 = now();
        write_slot(&B);
        spent += now() - t0;
        atomic_store_explicit(&B.turn, 1, memory_order_release);
      }
      while (atomic_load_explicit(&B.turn, memory_order_acquire) != 0) {
      }
      atomic_store(&B.turn, 2);
      void *ret;
      pthread_join(th, &ret);
      if (ret) {
        printf("# bench_handoff: skipped: cannot pin to CPU 1\n");
        return 77;
      }
      rate[r] = (double)B.bytes * iters / spent / 1e9;
    }
    qsort(rate, (size_t)reps, sizeof rate[0], cmp_double);
    printf("%-14s %12.2f %12.2f\n", way_names[w], rate[reps / 2], rate[reps - 1]);
  }
  return 0;
}
