/* kernels_bench.c -- each instruction set's reduction kernel side by side:
 * dst = a + b (kern_reduce, sum) for fp32, bf16 and fp16 arrays of --size KiB
 * (default 4096: 4 MiB each), one thread, pre-faulted and warmed up, median
 * of repeats. GB/s counts 3 x size (two reads, one write), as stream.c.
 *
 * Usage: bench_kernels [--size KiB] [--reps N] [--csv FILE] */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return a < b ? -1 : a > b;
}

int main(int argc, char **argv) {
  size_t kib = 4096;
  int reps = 11;
  const char *csv = NULL;
  for (int i = 1; i < argc; i++) {
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(argv[i], "--size") == 0 && val) {
      kib = strtoul(val, NULL, 10);
      i++;
    } else if (strcmp(argv[i], "--reps") == 0 && val) {
      reps = atoi(val);
      i++;
    } else if (strcmp(argv[i], "--csv") == 0 && val) {
      csv = val;
      i++;
    } else {
      fprintf(stderr, "usage: bench_kernels [--size KiB] [--reps N] [--csv FILE]\n");
      return strcmp(argv[i], "--help") == 0 ? 0 : 2;
    }
  }
  if (kib < 1 || reps < 1 || reps > 1000) {
    fprintf(stderr, "bench_kernels: bad --size or --reps\n");
    return 2;
  }
  size_t bytes = kib << 10;
  void *pa = NULL, *pb = NULL, *pd = NULL;
  if (posix_memalign(&pa, 4096, bytes) || posix_memalign(&pb, 4096, bytes) || posix_memalign(&pd, 4096, bytes)) {
    fprintf(stderr, "bench_kernels: out of memory for 3 x %zu KiB\n", kib);
    return 1;
  }
  unsigned char *a = pa, *b = pb, *d = pd;
  static const struct {
    const char *name;
    chorus_dtype_t dt;
  } types[] = {{"fp32", chorus_float32}, {"bf16", chorus_bfloat16}, {"fp16", chorus_float16}};
  /* normal values in every type: 1 + small integers (and their halves) */
  float *fa = pa, *fb = pb;
  for (size_t i = 0; i < bytes / 4; i++) {
    fa[i] = 1.0f + (float)(i & 63);
    fb[i] = 0.5f;
  }
  memset(d, 0, bytes); /* pre-fault the destination too */
  FILE *out = NULL;
  if (csv && !(out = fopen(csv, "w"))) {
    fprintf(stderr, "bench_kernels: cannot write %s: %s\n", csv, strerror(errno));
    return 1;
  }
  if (out) fprintf(out, "isa,dtype,op,size_bytes,inner,reps,median_s,median_GBps,best_GBps,median_Gelem_s\n");
  printf("# bench_kernels: dst = a + b, %zu KiB arrays, 1 thread, median of %d repeats; GB/s counts 3 x size\n", kib,
         reps);
  printf("%-9s %-5s %12s %12s %14s\n", "isa", "dtype", "median_GBps", "best_GBps", "median_Gelem_s");
  static const char *const isas[] = {"avx512", "avx2", "portable"};
  double *t = malloc(sizeof(double) * (size_t)reps);
  int inner = (int)(((size_t)256 << 20) / (bytes * 3) + 1); /* >= 256 MiB moved per repeat */
  for (int k = 0; k < 3; k++) {
    if (kern_set_isa(isas[k]) != 0) {
      printf("%-9s (not supported on this CPU)\n", isas[k]);
      continue;
    }
    for (int ty = 0; ty < 3; ty++) {
      size_t n = bytes / chorus_dtype_size(types[ty].dt);
      unsigned short *ha = pa, *hb = pb;
      /* 16-bit inputs: normal values near 1 and 0.5 (no subnormal, NaN or Inf) */
      if (types[ty].dt == chorus_float16)
        for (size_t i = 0; i < n; i++) {
          ha[i] = (unsigned short)(0x3c00 + (i & 255));
          hb[i] = 0x3800;
        }
      if (types[ty].dt == chorus_bfloat16)
        for (size_t i = 0; i < n; i++) {
          ha[i] = (unsigned short)(0x3f80 + (i & 63));
          hb[i] = 0x3f00;
        }
      kern_reduce(d, a, b, n, types[ty].dt, chorus_sum); /* warm-up */
      for (int r = 0; r < reps; r++) {
        double t0 = now();
        for (int j = 0; j < inner; j++)
          kern_reduce(d, a, b, n, types[ty].dt, chorus_sum);
        t[r] = now() - t0;
      }
      qsort(t, (size_t)reps, sizeof *t, cmp_double);
      double moved = 3.0 * (double)bytes * inner, med = t[reps / 2];
      printf("%-9s %-5s %12.2f %12.2f %14.3f\n", isas[k], types[ty].name, moved / med / 1e9, moved / t[0] / 1e9,
             (double)n * inner / med / 1e9);
      if (out)
        fprintf(out, "%s,%s,sum,%zu,%d,%d,%.9f,%.3f,%.3f,%.4f\n", isas[k], types[ty].name, bytes, inner, reps, med,
                moved / med / 1e9, moved / t[0] / 1e9, (double)n * inner / med / 1e9);
    }
  }
  volatile unsigned char sink = d[bytes / 2];
  (void)sink;
  free(t);
  if (out) fclose(out);
  free(a);
  free(b);
  free(d);
  return 0;
}
