/* busbw.h -- the bus-bandwidth factor nccl-tests reports with: algorithm
 * bandwidth times this factor is what each rank's link carried, so that
 * collectives of one size compare (DOMAIN.md). */
#ifndef CHORUS_BUSBW_H
#define CHORUS_BUSBW_H

#include "chorus.h"

/* busbw / algbw of coll on nranks: 2(n-1)/n for allreduce, (n-1)/n for
 * allgather, reducescatter and alltoall, 1 otherwise. */
double sim_bus_factor(chorus_coll_t coll, int nranks);

#endif
