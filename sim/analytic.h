/* analytic.h -- the analytic ring: a large ring allreduce, allgather or
 * reducescatter predicted at the cost of one rank's steps. */
#ifndef CHORUS_ANALYTIC_H
#define CHORUS_ANALYTIC_H

#include "sim.h"

/* Predict a ring algorithm (the shipped ring.lua's steps, on the rings it
 * declares: orders[c * nranks + i] is the i-th rank of channel c's ring, from
 * planner_rings) without planning n ranks: on a symmetric topology every
 * rank of a ring is in the same state at the same time, so one rank whose
 * successor is itself, behind a connection with the ring's bottleneck
 * bandwidth (the least capacity share of any resource the ring's routes
 * cross) and the mean latency of its hops, replays the whole ring, step by step. The
 * cost is one rank's steps, whatever n. Supports allreduce, allgather and
 * reducescatter; chorus_invalid_usage otherwise. */
chorus_result_t sim_analytic_ring(const topo_t *t, chorus_coll_t coll, int nranks, int nchannels, const int *orders,
                                  size_t count,
                                  chorus_dtype_t dt, const sim_opts_t *o, sim_result_t *res, char *err,
                                  size_t errlen);

#endif
