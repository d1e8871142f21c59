/* tune.h -- which algorithm and how many channels a call uses when neither
 * the caller (chorus perf -a/-c), CHORUS_ALGO nor CHORUS_NCHANNELS says.
 * The rules are thresholds measured on the CPU engine (BENCHMARKS.md, "CPU
 * engine"); they are not yet the simulator's cost model. */
#ifndef CHORUS_TUNE_H
#define CHORUS_TUNE_H

#include <stddef.h>

#include "chorus.h"

/* nlocal: ranks on this host. algo receives a shipped algorithm name; *nchannels a channel count. */
void tune_select(chorus_coll_t coll, int nranks, int nlocal, size_t bytes, char *algo, size_t len, int *nchannels);

/* The algorithm to try when the chosen one declines the shape. */
const char *tune_fallback(chorus_coll_t coll);

#endif
