/* sim_net.h -- the flow-level network: resources with a capacity (link
 * directions, a device's memory path) and flows that cross them. Concurrent
 * flows share every resource max-min fairly (progressive filling). The
 * sharing is recomputed when a flow starts or ends, and only over the flows
 * connected to it through shared resources: a flow alone on its path gets the
 * bottleneck capacity at once, and flows elsewhere keep their rates (and
 * their scheduled completion times) untouched.
 */
#ifndef CHORUS_SIM_NET_H
#define CHORUS_SIM_NET_H

#include <stdint.h>

#include "chorus.h"

typedef struct sim_net sim_net_t;

/* nres resources; cap[i] bytes per second, 0 = unlimited. */
chorus_result_t sim_net_create(sim_net_t **out, int nres, const double *cap);
void sim_net_destroy(sim_net_t *n);

/* Start a flow of `bytes` over the resources path[0..len-1] (borrowed: it
 * must outlive the flow) at time `now`. `user` comes back from
 * sim_net_pop. Returns chorus_out_of_memory when the flow table cannot grow. */
chorus_result_t sim_net_start(sim_net_t *n, double now, const int32_t *path, int len, double bytes, int user);

/* When the next flow finishes (INFINITY when no flow is active). */
double sim_net_next(const sim_net_t *n);

/* End the flow that finishes next: returns its user value and sets *t to its
 * finish time, then re-shares the resources it held. -1 when none. */
int sim_net_pop(sim_net_t *n, double *t);

/* Flows active now; the most that were active at once; flows started;
 * component recomputations made (progressive-filling runs over more than one
 * flow). */
int sim_net_active(const sim_net_t *n);
int sim_net_peak(const sim_net_t *n);
uint64_t sim_net_started(const sim_net_t *n);
uint64_t sim_net_recomputes(const sim_net_t *n);

/* Seconds a resource had at least one flow on it (a resource busy now counts
 * until `now`). Bytes are the caller's to count (per flow, off the hot path). */
double sim_net_res_busy(const sim_net_t *n, int res, double now);

#endif
