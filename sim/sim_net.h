/* sim_net.h -- the flow-level network: resources with a capacity (link
 * directions, a device's memory path) and flows that cross them. Concurrent
 * flows share every resource max-min fairly (progressive filling). The
 * sharing is recomputed when a flow starts or ends, and only over the flows
 * connected to it through shared resources: a flow alone on its path gets the
 * bottleneck capacity at once, and flows elsewhere keep their rates (and
 * their scheduled completion times) untouched.
 *
 * Routes: a caller whose flows follow a fixed set of paths, at most one flow
 * on each at a time (a connection's steps cross its route one after
 * another), registers them first. A route no other route crosses anywhere
 * is exclusive: its flows always run alone at its bottleneck capacity, so
 * they touch no per-resource state at all, and their ends, a fixed delay
 * after their start for a given size, queue in FIFOs instead of the heap.
 * The results are exactly those of the general path.
 */
#ifndef CHORUS_SIM_NET_H
#define CHORUS_SIM_NET_H

#include <stdint.h>

#include "chorus.h"
#include "sim_evq.h"

typedef struct sim_net sim_net_t;

/* nres resources; cap[i] bytes per second, 0 = unlimited. */
chorus_result_t sim_net_create(sim_net_t **out, int nres, const double *cap);
void sim_net_destroy(sim_net_t *n);

/* Register a route over path[0..len-1] (borrowed: it must outlive the
 * network); *id is its number for sim_net_start_route. Routes are all
 * registered before the first flow starts (chorus_invalid_usage after), and a
 * network uses either routes or sim_net_start, never both. */
chorus_result_t sim_net_route(sim_net_t *n, const int32_t *path, int len, int *id);

/* Start a flow of `bytes` over route `route` at time `now`; the route has no
 * other flow active. `user` comes back from sim_net_pop. */
chorus_result_t sim_net_start_route(sim_net_t *n, double now, int route, double bytes, int user);

/* Start a flow of `bytes` over the resources path[0..len-1] (borrowed: it
 * must outlive the flow) at time `now`. `user` comes back from
 * sim_net_pop. Returns chorus_out_of_memory when the flow table cannot grow. */
chorus_result_t sim_net_start(sim_net_t *n, double now, const int32_t *path, int len, double bytes, int user);

/* A caller with an event queue of its own (sim_evq.h) takes the ends of
 * exclusive routes' flows into it, to merge one queue instead of two: they
 * come as events of kind `kind` whose id is the route, and each popped one
 * goes to sim_net_end, which returns its user value. Their sequence numbers
 * are the network's flow numbers, below 2^63: a caller that numbers its own
 * events from 2^63 up puts every flow end before its events of the same
 * time. The other flows stay in the network, the first of them in
 * *sim_net_shared_head ({INFINITY, UINT64_MAX} when none; the pointer lasts
 * as long as the network), and sim_net_pop ends them. Set before the first
 * flow starts. */
void sim_net_use_queue(sim_net_t *n, sim_evq_t *q, int32_t kind);
int sim_net_end(sim_net_t *n, const sim_ev_t *e);
typedef struct {
  double t;
  uint64_t seq;
} sim_net_head_t;
const sim_net_head_t *sim_net_shared_head(const sim_net_t *n);

/* Deferred re-sharing: from now on a start or an end only notes the
 * resources it touched, and sim_net_flush re-shares them all at once, over
 * the union of their components, as of the time of those changes. A caller
 * whose flows start and end in bursts at one instant (the channels of a GPU
 * rank, in lockstep) calls sim_net_flush once it is done with that instant,
 * before it reads the next finish: max-min fair rates depend only on the
 * flows active, so the rates are those a re-sharing after each change
 * gives, at a fraction of the walks -- but for ties taken in another order
 * and the last bits of the shares, which a schedule that hangs on the order
 * of steps ending at one instant can feel (sim/README.md). Until the flush,
 * a flow that shares a resource runs at its old rate, or not at all (a new
 * one). Set before the first flow starts. */
chorus_result_t sim_net_defer(sim_net_t *n);
/* Whether changes wait for sim_net_flush; re-share them (time: theirs). */
int sim_net_pending(const sim_net_t *n);
chorus_result_t sim_net_flush(sim_net_t *n);

/* When the next flow finishes (INFINITY when no flow is active). */
double sim_net_next(sim_net_t *n);

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

/* Max-min fair rates of nb bundles of routes that each move at one rate (a
 * folded connection's copies on every node: the analytic model,
 * sim.c fold_resources): bundle b crosses resource res[i] once for each i in
 * first[b] .. first[b + 1] - 1 (a resource may repeat: it then counts that
 * many times). cap[r] bytes per second, 0 = unlimited. Progressive
 * filling: every rate rises together until a resource is full; the
 * bundles through it stop there, the others go on. rate[b] is INFINITY when
 * nothing bounds it. */
chorus_result_t sim_fill_bundles(int nres, const double *cap, int nb, const int64_t *first, const int32_t *res,
                                 double *rate);

#endif
