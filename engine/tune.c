/* tune.c -- the CPU engine's selection rules. Small messages pay per step,
 * so they take the algorithm with the fewest steps and one channel; large
 * ones are memory-bound and take the bandwidth-optimal ring on two channels
 * (two threads per rank keep more loads in flight). */
#include "tune.h"

#include <stdio.h>
#include <unistd.h>

#define TUNE_SMALL (32u << 10)
#define TUNE_TWO_CHANNELS (1u << 20)

void tune_select(chorus_coll_t coll, int nranks, int nlocal, size_t bytes, char *algo, size_t len, int *nchannels) {
  const char *a = "ring";
  switch (coll) {
  case chorus_allreduce: a = bytes <= TUNE_SMALL && nranks > 1 ? "rd" : "ring"; break;
  case chorus_broadcast:
  case chorus_reduce: a = bytes <= TUNE_SMALL && nranks > 2 ? "tree" : "ring"; break;
  case chorus_alltoall: a = "direct"; break;
  default: a = "ring"; break;
  }
  snprintf(algo, len, "%s", a);
  /* A second channel is a second thread per rank: it pays only when every
   * rank of this host has a core for it (measured: on 2 cores with 2 ranks,
   * 2 channels lose up to 3x at 256 KiB and gain nothing at 64 MiB). */
  static long cores; /* sysconf reads a /sys file: once, not per call */
  if (!cores) cores = sysconf(_SC_NPROCESSORS_ONLN);
  *nchannels = bytes >= TUNE_TWO_CHANNELS && cores >= 2L * nlocal ? 2 : 1;
}

const char *tune_fallback(chorus_coll_t coll) { return coll == chorus_alltoall ? "direct" : "ring"; }
