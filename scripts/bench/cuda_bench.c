/* cuda_bench.c -- the GPU kernel's memory efficiency against the ceiling, in
 * one run: a cudaMemcpy device to device of S bytes, and the engine's fused
 * reduce-copy (recv_reduce_copy_send's arithmetic: d1 = d2 = a + b, and the
 * one-output reduce d1 = a + b) over S bytes of each operand, interleaved
 * round by round, medians of R rounds. Bandwidth is memory traffic (bytes
 * read + written) per second, so the three are comparable: the copy moves
 * 2S, the reduce 3S, the reduce-copy 4S. Prints a table and, with --csv,
 * one row per (kernel, blocks).
 * Usage: bench_cuda [--size MiB] [--rounds R] [--device D] [--dtype float|half|bfloat16] [--csv FILE] */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chorus.h"
#include "kern_cuda.h"

#define CU(x)                                                                                                          \
  do {                                                                                                                 \
    cudaError_t e_ = (x);                                                                                              \
    if (e_ != cudaSuccess) {                                                                                           \
      fprintf(stderr, "bench_cuda: %s: %s\n", #x, cudaGetErrorString(e_));                                             \
      return 1;                                                                                                        \
    }                                                                                                                  \
  } while (0)

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  size_t mib = 256;
  int rounds = 15, dev = 0;
  chorus_dtype_t dt = chorus_float32;
  const char *csv = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--size") && i + 1 < argc) mib = strtoul(argv[++i], NULL, 10);
    else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--device") && i + 1 < argc) dev = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--csv") && i + 1 < argc) csv = argv[++i];
    else if (!strcmp(argv[i], "--dtype") && i + 1 < argc) {
      if (chorus_dtype_parse(argv[++i], &dt) != chorus_success) {
        fprintf(stderr, "bench_cuda: --dtype: %s\n", chorus_last_error());
        return 2;
      }
    } else {
      fprintf(stderr, "usage: bench_cuda [--size MiB] [--rounds R] [--device D] [--dtype T] [--csv FILE]\n");
      return 2;
    }
  }
  if (rounds < 1 || rounds > 1000 || mib < 1) return fprintf(stderr, "bench_cuda: bad --rounds or --size\n"), 2;
  int ndev = 0;
  cudaError_t ge = cudaGetDeviceCount(&ndev);
  if (ge != cudaSuccess || ndev == 0) {
    printf("skipped: no CUDA device: %s\n", ge != cudaSuccess ? cudaGetErrorString(ge) : "none found");
    return 77;
  }
  CU(cudaSetDevice(dev));
  struct cudaDeviceProp prop;
  CU(cudaGetDeviceProperties(&prop, dev));
  size_t bytes = mib << 20, es = chorus_dtype_size(dt), count = bytes / es;
  char *a, *b, *d1, *d2;
  CU(cudaMalloc((void **)&a, bytes));
  CU(cudaMalloc((void **)&b, bytes));
  CU(cudaMalloc((void **)&d1, bytes));
  CU(cudaMalloc((void **)&d2, bytes));
  CU(cudaMemset(a, 0, bytes)); /* zeros: a valid value of every type */
  CU(cudaMemset(b, 0, bytes));
  CU(cudaMemset(d1, 0, bytes));
  CU(cudaMemset(d2, 0, bytes));
  cudaStream_t s;
  CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1;
  CU(cudaEventCreate(&e0));
  CU(cudaEventCreate(&e1));
  int sms = prop.multiProcessorCount;
  /* What runs per round: the copy, then each kernel at 1, 2 and 4 blocks per SM. */
  enum { NK = 7 };
  const char *names[NK] = {"memcpy D2D", "reduce", "reduce", "reduce", "reduce-copy", "reduce-copy", "reduce-copy"};
  int blocks[NK] = {0, sms, 2 * sms, 4 * sms, sms, 2 * sms, 4 * sms};
  double traffic[NK] = {2, 3, 3, 3, 4, 4, 4};
  double *ms = calloc((size_t)NK * rounds, sizeof *ms);
  char err[256];
  for (int r = -1; r < rounds; r++) { /* round -1 warms up */
    for (int k = 0; k < NK; k++) {
      CU(cudaEventRecord(e0, s));
      if (k == 0) CU(cudaMemcpyAsync(d1, a, bytes, cudaMemcpyDeviceToDevice, s));
      else if (kcu_reduce_copy(d1, k >= 4 ? d2 : NULL, a, b, count, dt, chorus_sum, blocks[k], s, err, sizeof err)) {
        fprintf(stderr, "bench_cuda: %s\n", err);
        return 1;
      }
      CU(cudaEventRecord(e1, s));
      CU(cudaEventSynchronize(e1));
      float t;
      CU(cudaEventElapsedTime(&t, e0, e1));
      if (r >= 0) ms[k * rounds + r] = t;
    }
  }
  FILE *f = csv ? fopen(csv, "w") : NULL;
  if (csv && !f) return fprintf(stderr, "bench_cuda: cannot write %s\n", csv), 1;
  if (f) fprintf(f, "device,kernel,dtype,bytes,blocks,rounds,median_ms,traffic_GBps,ratio_to_copy\n");
  printf("# bench_cuda: %s (%d SMs), %zu MiB per operand, %s, %d rounds interleaved, medians\n", prop.name, sms, mib,
         chorus_dtype_name(dt), rounds);
  printf("%-12s %7s %10s %14s %9s\n", "kernel", "blocks", "ms", "traffic GB/s", "vs copy");
  double copy_bw = 0, best_rc = 0;
  for (int k = 0; k < NK; k++) {
    qsort(ms + k * rounds, (size_t)rounds, sizeof *ms, cmp);
    double med = ms[k * rounds + rounds / 2];
    double bw = traffic[k] * (double)bytes / (med * 1e-3) / 1e9;
    if (k == 0) copy_bw = bw;
    if (k >= 4 && bw > best_rc) best_rc = bw;
    printf("%-12s %7d %10.3f %14.1f %8.1f%%\n", names[k], blocks[k], med, bw, 100 * bw / copy_bw);
    if (f)
      fprintf(f, "%s,%s,%s,%zu,%d,%d,%.4f,%.1f,%.4f\n", prop.name, names[k], chorus_dtype_name(dt), bytes, blocks[k],
              rounds, med, bw, bw / copy_bw);
  }
  printf("reduce-copy best: %.1f%% of the copy's bandwidth (target 90%%)\n", 100 * best_rc / copy_bw);
  if (f) fclose(f);
  return 0;
}
