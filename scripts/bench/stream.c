/* stream.c -- the memory-bandwidth bound the engine is measured against:
 * copy (memcpy and kern_copy) and add (kern_reduce fp32 sum, c = a + b) on 1
 * and 2 threads for array sizes from 1 MiB to 256 MiB. Buffers are allocated
 * once at the largest size and pre-faulted (a first touch here costs ~12 us a
 * page); each point is warmed up, then timed as the median of several
 * repeats. Bandwidth counts the bytes the kernel must move, STREAM-style:
 * copy 2 x size, add 3 x size (write-allocate traffic not counted).
 *
 * Usage: bench_stream [--threads 1,2] [--min MiB] [--max MiB] [--reps N] [--csv FILE]
 * Prints a table; with --csv also writes one row per point. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "kernels.h"

enum { K_MEMCPY, K_KERNCOPY, K_ADD, K_NUM };
static const char *const kname[K_NUM] = {"memcpy", "kern_copy", "add"};
static const int kstreams[K_NUM] = {2, 2, 3}; /* arrays touched per element */

typedef struct {
  pthread_barrier_t start, stop;
  char *a, *b, *c; /* the three arrays, max bytes each */
  int nthreads, kernel, inner, quit;
  size_t bytes; /* per array, all threads together */
} shared_t;

typedef struct {
  shared_t *sh;
  int id;
} worker_t;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Thread id's share of the arrays: contiguous, 4 KiB-aligned slices. */
static void slice(const shared_t *sh, int id, size_t *off, size_t *len) {
  size_t per = (sh->bytes / (size_t)sh->nthreads) & ~(size_t)4095;
  *off = per * (size_t)id;
  *len = id == sh->nthreads - 1 ? sh->bytes - *off : per;
}

static void run_kernel(shared_t *sh, int id) {
  size_t off, len;
  slice(sh, id, &off, &len);
  for (int r = 0; r < sh->inner; r++) {
    switch (sh->kernel) {
    case K_MEMCPY:
      memcpy(sh->c + off, sh->a + off, len);
      break;
    case K_KERNCOPY:
      kern_copy(sh->c + off, sh->a + off, len);
      break;
    default:
      kern_reduce(sh->c + off, sh->a + off, sh->b + off, len / 4, chorus_float32, chorus_sum);
      break;
    }
  }
}

static void pin(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set); /* best effort */
}

static void *worker(void *p) {
  worker_t *w = p;
  shared_t *sh = w->sh;
  pin(w->id);
  for (;;) {
    pthread_barrier_wait(&sh->start);
    if (sh->quit) return NULL;
    run_kernel(sh, w->id);
    pthread_barrier_wait(&sh->stop);
  }
}

/* One timed repeat with the calling thread as thread 0. */
static double repeat_once(shared_t *sh) {
  pthread_barrier_wait(&sh->start);
  double t0 = now();
  run_kernel(sh, 0);
  pthread_barrier_wait(&sh->stop);
  return now() - t0;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

static void *alloc_prefaulted(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static int parse_threads(const char *s, int *out, int max) {
  int n = 0;
  while (*s && n < max) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 1 || v > 64) return -1;
    out[n++] = (int)v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return -1;
  }
  return n;
}

static void usage(FILE *f) {
  fprintf(f, "usage: bench_stream [--threads 1,2] [--min MiB] [--max MiB] [--reps N] [--csv FILE]\n"
             "Memory bandwidth of memcpy, kern_copy and kern_reduce (fp32 sum) for array sizes\n"
             "from --min to --max MiB (doubling), on each thread count.\n");
}

int main(int argc, char **argv) {
  int threads[8] = {1, 2}, nthr = 2, reps = 9;
  size_t min_mib = 1, max_mib = 256;
  const char *csv = NULL;
  for (int i = 1; i < argc; i++) {
    const char *arg = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(arg, "--threads") == 0 && val) {
      nthr = parse_threads(val, threads, 8);
      i++;
    } else if (strcmp(arg, "--min") == 0 && val) {
      min_mib = strtoul(val, NULL, 10);
      i++;
    } else if (strcmp(arg, "--max") == 0 && val) {
      max_mib = strtoul(val, NULL, 10);
      i++;
    } else if (strcmp(arg, "--reps") == 0 && val) {
      reps = atoi(val);
      i++;
    } else if (strcmp(arg, "--csv") == 0 && val) {
      csv = val;
      i++;
    } else {
      fprintf(stderr, "bench_stream: unknown or incomplete argument '%s'\n", arg);
      usage(stderr);
      return 2;
    }
  }
  if (nthr < 1 || min_mib < 1 || max_mib < min_mib || reps < 1 || reps > 1000) {
    fprintf(stderr, "bench_stream: bad --threads, --min, --max or --reps\n");
    return 2;
  }
  size_t max_bytes = max_mib << 20;
  shared_t sh;
  memset(&sh, 0, sizeof sh);
  sh.a = alloc_prefaulted(max_bytes);
  sh.b = alloc_prefaulted(max_bytes);
  sh.c = alloc_prefaulted(max_bytes);
  if (!sh.a || !sh.b || !sh.c) {
    fprintf(stderr, "bench_stream: cannot map 3 x %zu MiB: %s\n", max_mib, strerror(errno));
    return 1;
  }
  /* fp32 values that keep the sums normal: no subnormal or Inf slow paths */
  void *va = sh.a, *vb = sh.b, *vc = sh.c;
  float *fa = va, *fb = vb, *fc = vc;
  for (size_t i = 0; i < max_bytes / 4; i++) {
    fa[i] = 1.0f + (float)(i & 1023);
    fb[i] = 0.5f;
  }
  memset(sh.c, 0, max_bytes);

  FILE *out = NULL;
  if (csv) {
    out = fopen(csv, "w");
    if (!out) {
      fprintf(stderr, "bench_stream: cannot write %s: %s\n", csv, strerror(errno));
      return 1;
    }
    fprintf(out, "isa,threads,kernel,size_bytes,bytes_moved,inner,reps,median_s,median_GBps,best_GBps\n");
  }
  printf("# bench_stream: kernels isa %s, median of %d repeats; GB/s = 1e9 bytes/s moved "
         "(copy 2x size, add 3x size)\n",
         kern_isa(), reps);
  printf("%7s %-10s %10s %12s %12s\n", "threads", "kernel", "size_MiB", "median_GBps", "best_GBps");
  double *t = malloc(sizeof(double) * (size_t)reps);
  for (int ti = 0; ti < nthr; ti++) {
    int nt = threads[ti];
    pthread_t tid[64];
    worker_t w[64];
    pthread_barrier_init(&sh.start, NULL, (unsigned)nt);
    pthread_barrier_init(&sh.stop, NULL, (unsigned)nt);
    sh.nthreads = nt;
    sh.quit = 0;
    for (int i = 1; i < nt; i++) {
      w[i].sh = &sh;
      w[i].id = i;
      pthread_create(&tid[i], NULL, worker, &w[i]);
    }
    pin(0);
    for (int k = 0; k < K_NUM; k++)
      for (size_t mib = min_mib; mib <= max_mib; mib *= 2) {
        sh.kernel = k;
        sh.bytes = mib << 20;
        /* enough passes per repeat that one repeat moves >= 64 MiB: barrier
         * costs vanish and small sizes are not timed at clock resolution */
        sh.inner = (int)((64u + mib - 1) / mib);
        repeat_once(&sh); /* warm-up: caches, TLB, frequency */
        for (int r = 0; r < reps; r++)
          t[r] = repeat_once(&sh);
        qsort(t, (size_t)reps, sizeof *t, cmp_double);
        double moved = (double)kstreams[k] * (double)sh.bytes * sh.inner;
        double med = t[reps / 2], best = t[0];
        printf("%7d %-10s %10zu %12.2f %12.2f\n", nt, kname[k], mib, moved / med / 1e9, moved / best / 1e9);
        fflush(stdout);
        if (out)
          fprintf(out, "%s,%d,%s,%zu,%.0f,%d,%d,%.9f,%.3f,%.3f\n", kern_isa(), nt, kname[k], sh.bytes, moved, sh.inner,
                  reps, med, moved / med / 1e9, moved / best / 1e9);
      }
    sh.quit = 1;
    pthread_barrier_wait(&sh.start);
    for (int i = 1; i < nt; i++)
      pthread_join(tid[i], NULL);
    pthread_barrier_destroy(&sh.start);
    pthread_barrier_destroy(&sh.stop);
  }
  /* the result is used: the compiler cannot drop the work */
  volatile float sink = fc[12345 % (max_bytes / 4)];
  (void)sink;
  free(t);
  if (out) fclose(out);
  munmap(sh.a, max_bytes);
  munmap(sh.b, max_bytes);
  munmap(sh.c, max_bytes);
  return 0;
}
